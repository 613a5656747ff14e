//! Watch mode, as rustlings has: `cargo run -p exercises -- watch`.
//!
//! It picks the current exercise (the one named, or the one `list --start`
//! chose if it is not solved, or else the first unsolved one),
//! runs its tests, and runs them again each time its file is saved. When
//! they pass it says so and moves to the next exercise. Keys act at once:
//! `h` shows the hint, `r` runs the tests again, `q` (or Ctrl-C) quits.
//!
//! How: one channel carries every [`Event`]. A [`notify`] watcher on each
//! chapter's directory sends `Saved` for every change there (editors often
//! save by writing a new file and renaming it over the old one, so watching
//! the directory sees saves that watching the file itself would miss). A
//! thread reads standard input, in key-at-a-time mode
//! ([`crate::terminal`]), and sends `Key`. A save usually arrives as several
//! events (truncate, write, close), so the loop waits until the file has
//! been quiet for [`SETTLE`] before it runs anything. The tests run as
//! `cargo test --test NAME` in a child process, whose output goes straight
//! to the terminal; while it runs the loop still reads keys, so `q` stops
//! it.
//!
//! Each run's result goes into the checker's record (`src/state.rs`), and
//! the exercise it moves on to becomes the current one. `--dir` points the
//! watch at another copy of the `exercises/` package (its own test does
//! this, so that it never touches your files).

use std::collections::VecDeque;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecursiveMode, Watcher};

use crate::catalog::{EXERCISES, Exercise};
use crate::state::{State, Status};
use crate::terminal::{CTRL_C, CTRL_D, KeyMode};

/// How long a file must be quiet after a change before the tests run: long
/// enough to see the end of one save's events, short enough not to notice.
const SETTLE: Duration = Duration::from_millis(200);

/// Something the loop reacts to.
#[derive(Debug)]
enum Event {
    /// A file was created, written or renamed into place.
    Saved(PathBuf),
    /// A key was pressed (a byte of standard input).
    Key(u8),
    /// Standard input ended.
    InputClosed,
}

/// What the user asked for while tests were running.
enum Interrupt {
    None,
    Quit,
}

/// Runs the watch loop on the exercises package in `dir`, starting at
/// `start` (or at the first unsolved exercise).
pub fn run(dir: &Path, start: Option<&str>) -> io::Result<bool> {
    let mut index = match start {
        Some(name) => match EXERCISES.iter().position(|e| e.name == name) {
            Some(index) => index,
            None => {
                return Err(io::Error::other(format!(
                    "no exercise called {name:?} (see `cargo run -p exercises -- list`)"
                )));
            }
        },
        None => match current(dir) {
            Some(index) => index,
            None => {
                println!("Checking your exercises...");
                let results = crate::check_all(dir, false)?;
                crate::state::note_results(
                    dir,
                    results.iter().map(|(e, o)| (*e, o.solved())),
                    true,
                )?;
                match results.iter().position(|(_, outcome)| !outcome.solved()) {
                    Some(index) => index,
                    None => {
                        println!("Every exercise is solved. Well done.");
                        return Ok(true);
                    }
                }
            }
        },
    };

    let (sender, events) = mpsc::channel();
    let _watcher = watch_chapters(dir, sender.clone())?;
    let _keys = KeyMode::enable()?;
    read_keys(sender);

    let mut pending = VecDeque::new();
    let mut rerun = true;
    // The screen is cleared before a run, except after a success, whose
    // message stays on screen above the next exercise.
    let mut clear = true;
    loop {
        if rerun {
            rerun = false;
            let exercise = &EXERCISES[index];
            show_header(dir, exercise, clear);
            clear = true;
            let result = run_tests(dir, exercise, &events, &mut pending)?;
            if let (passed, Interrupt::None) = result {
                crate::state::note_results(dir, [(exercise, passed)], false)?;
            }
            match result {
                (_, Interrupt::Quit) => break,
                (true, Interrupt::None) => {
                    println!("\n✓ {} passes. Well done!", exercise.name);
                    index += 1;
                    if index == EXERCISES.len() {
                        println!("Every exercise is solved. Well done.");
                        return Ok(true);
                    }
                    let mut state = State::load(dir);
                    state.current = Some(EXERCISES[index].name.to_string());
                    state.save(dir)?;
                    println!("Next: {}\n", EXERCISES[index].name);
                    rerun = true;
                    clear = false;
                    continue;
                }
                (false, Interrupt::None) => show_keys(dir, exercise),
            }
        }
        let event = match pending.pop_front() {
            Some(event) => event,
            None => match events.recv() {
                Ok(event) => event,
                Err(_) => break,
            },
        };
        let exercise = &EXERCISES[index];
        match event {
            Event::Key(b'q' | CTRL_C | CTRL_D) | Event::InputClosed => break,
            Event::Key(b'h') => {
                println!("\nHint for {}:", exercise.name);
                println!("{}\n", crate::indent(&crate::wrap(exercise.hint, 74), "  "));
            }
            Event::Key(b'r') => rerun = true,
            Event::Key(_) => {}
            Event::Saved(path) => {
                if is_stub(dir, exercise, &path) {
                    settle(dir, exercise, &events, &mut pending);
                    rerun = true;
                }
            }
        }
    }
    println!("\nBye. `cargo run -p exercises -- watch` picks up where you left off.");
    Ok(true)
}

/// The exercise `list --start` made current, unless it is solved.
fn current(dir: &Path) -> Option<usize> {
    let state = State::load(dir);
    let index = EXERCISES
        .iter()
        .position(|e| Some(e.name) == state.current.as_deref())?;
    (state.status(dir, &EXERCISES[index]) != Status::Solved).then_some(index)
}

/// Whether `path` is the exercise's stub, the file the learner edits.
/// (The watcher reports paths under the directory it was given, which is
/// `dir` joined with the chapter, so they compare as they are.)
fn is_stub(dir: &Path, exercise: &Exercise, path: &Path) -> bool {
    path == dir.join(exercise.stub_path())
}

/// Waits until the stub has had no event for [`SETTLE`], keeping any other
/// event for later.
fn settle(
    dir: &Path,
    exercise: &Exercise,
    events: &Receiver<Event>,
    pending: &mut VecDeque<Event>,
) {
    loop {
        match events.recv_timeout(SETTLE) {
            Ok(Event::Saved(path)) if is_stub(dir, exercise, &path) => continue,
            Ok(event) => pending.push_back(event),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Clears the screen (on a terminal) and says what is being checked.
fn show_header(dir: &Path, exercise: &Exercise, clear: bool) {
    if clear && io::stdout().is_terminal() {
        print!("\x1b[2J\x1b[H");
    }
    let done = EXERCISES
        .iter()
        .position(|e| e.name == exercise.name)
        .unwrap_or(0);
    println!(
        "{}  [{done} of {} done]  {}",
        exercise.name,
        EXERCISES.len(),
        exercise.title
    );
    println!("  file  {}", dir.join(exercise.stub_path()).display());
    println!("Running its tests...\n");
    let _ = io::stdout().flush();
}

fn show_keys(dir: &Path, exercise: &Exercise) {
    println!("\n✗ {} does not pass yet.", exercise.name);
    println!(
        "Edit {} and save: the tests run again.",
        dir.join(exercise.stub_path()).display()
    );
    println!("Keys: h hint, r run again, q quit");
    let _ = io::stdout().flush();
}

/// Runs the exercise's tests, with their output on the terminal. Returns
/// whether they passed, and whether `q` was pressed meanwhile (which stops
/// them). Other events are kept in `pending`.
fn run_tests(
    dir: &Path,
    exercise: &Exercise,
    events: &Receiver<Event>,
    pending: &mut VecDeque<Event>,
) -> io::Result<(bool, Interrupt)> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("test")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(["--quiet", "--test", exercise.name])
        .current_dir(dir)
        .stdin(Stdio::null());
    // A loom model builds with --cfg loom, in release, in its own directory.
    crate::runner::Runner::of(exercise).configure(&mut command, dir);
    let mut child = command.spawn()?;
    let deadline = Instant::now() + crate::TEST_TIME_LIMIT;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status.success(), Interrupt::None));
        }
        if Instant::now() >= deadline {
            child.kill()?;
            child.wait()?;
            println!(
                "\nThe tests ran for {}s: a hang counts as a failure.",
                crate::TEST_TIME_LIMIT.as_secs()
            );
            return Ok((false, Interrupt::None));
        }
        match events.recv_timeout(Duration::from_millis(50)) {
            Ok(Event::Key(b'q' | CTRL_C | CTRL_D) | Event::InputClosed) => {
                child.kill()?;
                child.wait()?;
                return Ok((false, Interrupt::Quit));
            }
            Ok(event) => pending.push_back(event),
            Err(_) => {}
        }
    }
}

/// Watches every chapter directory of the package in `dir`.
fn watch_chapters(dir: &Path, sender: Sender<Event>) -> io::Result<notify::RecommendedWatcher> {
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        // Not every event: reading the file (as the compiler does) or
        // changing its times is not a save.
        let saved = matches!(
            event.kind,
            EventKind::Create(_)
                | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Name(_) | ModifyKind::Any)
                | EventKind::Access(AccessKind::Close(AccessMode::Write))
        );
        if saved {
            for path in event.paths {
                let _ = sender.send(Event::Saved(path));
            }
        }
    })
    .map_err(io::Error::other)?;
    let mut chapters: Vec<String> = EXERCISES.iter().map(|e| e.chapter().to_string()).collect();
    chapters.dedup();
    for chapter in chapters {
        watcher
            .watch(
                &dir.join(format!("ch{chapter}")),
                RecursiveMode::NonRecursive,
            )
            .map_err(io::Error::other)?;
    }
    Ok(watcher)
}

/// Sends each byte of standard input as a key, then `InputClosed`.
fn read_keys(sender: Sender<Event>) {
    thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut byte = [0u8];
        loop {
            match stdin.read(&mut byte) {
                Ok(1) => {
                    if sender.send(Event::Key(byte[0])).is_err() {
                        return;
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                _ => {
                    let _ = sender.send(Event::InputClosed);
                    return;
                }
            }
        }
    });
}
