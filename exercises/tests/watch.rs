//! `watch` under a pseudo-terminal, as a learner runs it: it runs the
//! exercise's tests, shows the hint on `h`, runs them again when the file is
//! saved, moves on when they pass, and quits on `q`, restoring the terminal.
//!
//! It works on a copy of the workspace (`--dir`, `tests/common/mod.rs`), so
//! your exercise files are never touched.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;
use common::{target, workspace, workspace_copy};

/// Building the copy can take minutes on a busy machine the first time.
const PATIENCE: Duration = Duration::from_secs(600);

/// A pseudo-terminal pair: (controller, terminal).
fn openpty() -> (OwnedFd, OwnedFd) {
    let (mut controller, mut terminal) = (0, 0);
    // SAFETY: openpty writes two descriptors into the given integers; the
    // name, termios and winsize pointers may be null.
    let result = unsafe {
        libc::openpty(
            &mut controller,
            &mut terminal,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(result, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just created and are owned by nobody else.
    unsafe {
        (
            OwnedFd::from_raw_fd(controller),
            OwnedFd::from_raw_fd(terminal),
        )
    }
}

/// The terminal's output so far, and a way to wait for text in it.
struct Screen {
    output: Arc<Mutex<Vec<u8>>>,
}

impl Screen {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Waits until `needle` has appeared `times` times in all, or fails.
    fn wait_for(&self, child: &mut Child, needle: &str, times: usize) {
        let deadline = Instant::now() + PATIENCE;
        while self.text().matches(needle).count() < times {
            if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
                let _ = child.kill();
                panic!(
                    "waited for {needle:?} (x{times}); the screen shows:\n{}",
                    self.text()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn watch_reruns_on_save_shows_the_hint_moves_on_and_quits() {
    let real_stub = workspace().join("exercises/ch05/poll_timeout.rs");
    let before = std::fs::read(&real_stub).unwrap();

    // A fresh copy for each run, at the same place each time, so its build
    // is incremental.
    let copy = workspace_copy();
    let exercises = copy.join("exercises");
    let stub = exercises.join("ch05/poll_timeout.rs");
    let solution =
        std::fs::read_to_string(exercises.join("solutions/ch05/poll_timeout.rs")).unwrap();
    // A nearly right solution: "wait forever" comes out as "do not wait".
    let wrong = solution.replace("None => -1,", "None => 0,");
    assert_ne!(
        wrong, solution,
        "the solution changed: pick another mistake"
    );
    std::fs::write(&stub, &wrong).unwrap();

    let target = target();
    let (controller, terminal) = openpty();
    let settings = terminal.try_clone().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_exercises"))
        .args(["watch", "ch05_poll_timeout", "--dir"])
        .arg(&exercises)
        .env("CARGO_TARGET_DIR", &target)
        .stdin(Stdio::from(terminal.try_clone().unwrap()))
        .stdout(Stdio::from(terminal.try_clone().unwrap()))
        .stderr(Stdio::from(terminal))
        .spawn()
        .expect("the checker runs");
    let output = Arc::new(Mutex::new(Vec::new()));
    let mut reader = std::fs::File::from(controller.try_clone().unwrap());
    {
        let output = output.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                output.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
    }
    let screen = Screen { output };
    let mut keys = std::fs::File::from(controller);

    // The wrong solution fails, and the watch waits for a save.
    screen.wait_for(&mut child, "ch05_poll_timeout does not pass yet", 1);

    // `h` shows the hint at once, without Enter.
    keys.write_all(b"h").unwrap();
    screen.wait_for(&mut child, "Hint for ch05_poll_timeout", 1);
    screen.wait_for(&mut child, "saturating_duration_since", 1);

    // Saving the file again, still wrong, runs the tests again.
    std::fs::write(&stub, &wrong).unwrap();
    screen.wait_for(&mut child, "ch05_poll_timeout does not pass yet", 2);

    // Saving a right solution passes and moves on to the next exercise.
    std::fs::write(&stub, &solution).unwrap();
    screen.wait_for(&mut child, "ch05_poll_timeout passes", 1);
    screen.wait_for(&mut child, "Next: ch05_next_tick", 1);

    // `q` quits, even while the next exercise's tests are running.
    keys.write_all(b"q").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("watch did not quit on q:\n{}", screen.text());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}:\n{}", screen.text());
    // The child has exited, but its last words may still sit in the
    // terminal's buffer, not yet read by the reader thread: wait for them
    // (bounded), rather than for a fixed 100 ms.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !screen.text().contains("Bye") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(screen.text().contains("Bye"), "{}", screen.text());
    // The terminal is back in line mode, echoing.
    let mut termios = std::mem::MaybeUninit::<libc::termios>::uninit();
    // SAFETY: tcgetattr fills the termios when it returns 0, and it is read
    // only then.
    let termios = unsafe {
        assert_eq!(
            libc::tcgetattr(settings.as_raw_fd(), termios.as_mut_ptr()),
            0
        );
        termios.assume_init()
    };
    assert_ne!(termios.c_lflag & libc::ICANON, 0, "line mode not restored");
    assert_ne!(termios.c_lflag & libc::ECHO, 0, "echo not restored");

    assert_eq!(
        std::fs::read(&real_stub).unwrap(),
        before,
        "your exercise file was changed"
    );
    let _ = std::fs::remove_dir_all(&copy);
}
