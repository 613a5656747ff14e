//! What the checker remembers between runs, for `list` and `solution`.
//!
//! The file is `exercises/.checker/state.txt` (ignored by git; deleting it
//! loses nothing but the record of past checks). One line per fact:
//!
//! ```text
//! current ch07_counter
//! ch01_proc_status passed 9f1c2e0a7b3d4c55
//! ch07_counter failed 03b2d9c1e4f5a6b7
//! ch07_budget started 8a7b6c5d4e3f2a1b
//! ```
//!
//! `current` is the exercise `list --start` chose, where `watch` starts.
//! Each other line is an exercise's last event (`passed` or `failed` for a
//! check by `check`, `watch` or the progress view; `started` for `list
//! --start`) and a hash of its stub's bytes at that moment, so a pass
//! counts only while the stub is still the one that passed. The progress
//! view checks every exercise, so it records a failure only for an exercise
//! already on record ([`note_results`]). `reset`'s
//! backups go to `exercises/.checker/backups/`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::catalog::Exercise;
use crate::shipped;

/// The directory, relative to `exercises/`, of the state file and backups.
pub const STATE_DIR: &str = ".checker";

/// Where an exercise stands, as `list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Its tests passed on the stub as it is now.
    Solved,
    /// The stub differs from the shipped one, or it was checked or started.
    Started,
    /// The stub is as shipped and was never checked.
    NotStarted,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Started => "started",
            Status::NotStarted => "not started",
        }
    }
}

/// The state file's contents.
#[derive(Debug, Default)]
pub struct State {
    /// The exercise `list --start` chose.
    pub current: Option<String>,
    /// Exercise name to (last event, stub hash then).
    events: BTreeMap<String, (String, u64)>,
}

impl State {
    fn path(dir: &Path) -> PathBuf {
        dir.join(STATE_DIR).join("state.txt")
    }

    /// Reads the state of the package in `dir`; empty if there is none.
    pub fn load(dir: &Path) -> State {
        let mut state = State::default();
        let Ok(text) = fs::read_to_string(Self::path(dir)) else {
            return state;
        };
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words[..] {
                ["current", name] => state.current = Some(name.to_string()),
                [name, event, hash] => {
                    if let Ok(hash) = u64::from_str_radix(hash, 16) {
                        state
                            .events
                            .insert(name.to_string(), (event.to_string(), hash));
                    }
                }
                _ => {}
            }
        }
        state
    }

    /// Writes it back.
    pub fn save(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir.join(STATE_DIR))?;
        let mut text =
            String::from("# The exercise checker's record (cargo run -p exercises -- list).\n");
        if let Some(current) = &self.current {
            text.push_str(&format!("current {current}\n"));
        }
        for (name, (event, hash)) in &self.events {
            text.push_str(&format!("{name} {event} {hash:016x}\n"));
        }
        fs::write(Self::path(dir), text)
    }

    /// Notes `event` for `exercise`, with its stub as it is now.
    pub fn note(&mut self, dir: &Path, exercise: &Exercise, event: &str) {
        let hash = fnv1a(&fs::read(dir.join(exercise.stub_path())).unwrap_or_default());
        self.events
            .insert(exercise.name.to_string(), (event.to_string(), hash));
    }

    /// Forgets every event of `exercise` (after a reset).
    pub fn forget(&mut self, exercise: &Exercise) {
        self.events.remove(exercise.name);
    }

    /// Where `exercise` stands.
    pub fn status(&self, dir: &Path, exercise: &Exercise) -> Status {
        let Ok(stub) = fs::read(dir.join(exercise.stub_path())) else {
            return Status::Started;
        };
        match self.events.get(exercise.name) {
            Some((event, hash)) if event == "passed" && *hash == fnv1a(&stub) => Status::Solved,
            Some(_) => Status::Started,
            None if shipped::find(exercise.name).is_some_and(|s| s.stub.as_bytes() != stub) => {
                Status::Started
            }
            None => Status::NotStarted,
        }
    }
}

/// Records each exercise's check result in the state of `dir`. A `sweep`
/// (the progress view, which checks every exercise at once) records every
/// pass but a failure only for an exercise already on record, so that
/// looking at your progress does not mark every exercise as started.
pub fn note_results<'a>(
    dir: &Path,
    results: impl IntoIterator<Item = (&'a Exercise, bool)>,
    sweep: bool,
) -> io::Result<()> {
    let mut state = State::load(dir);
    for (exercise, passed) in results {
        if passed {
            state.note(dir, exercise, "passed");
        } else if !sweep || state.events.contains_key(exercise.name) {
            state.note(dir, exercise, "failed");
        }
    }
    state.save(dir)
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust versions.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_records_passes_and_the_state_follows_the_stub() {
        let dir = std::env::temp_dir().join(format!("exercises-state-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let exercise = crate::catalog::find("ch05_slab").unwrap();
        let other = crate::catalog::find("ch05_timer_heap").unwrap();
        for e in [exercise, other] {
            fs::create_dir_all(dir.join("ch05")).unwrap();
            fs::write(dir.join(e.stub_path()), shipped::find(e.name).unwrap().stub).unwrap();
        }
        let status = |e| State::load(&dir).status(&dir, e);
        // A sweep's failure does not start an exercise; its pass solves one.
        note_results(&dir, [(exercise, false), (other, true)], true).unwrap();
        assert_eq!(status(exercise), Status::NotStarted);
        assert_eq!(status(other), Status::Solved);
        // A check asked for starts it, failed or not.
        note_results(&dir, [(exercise, false)], false).unwrap();
        assert_eq!(status(exercise), Status::Started);
        // A pass counts only while the stub is the one that passed.
        fs::write(dir.join(other.stub_path()), "// changed").unwrap();
        assert_eq!(status(other), Status::Started);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
