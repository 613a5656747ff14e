//! Every exercise of the book, in the order the chapters set them.
//!
//! An exercise `chNN_topic` has three files, named after it:
//!
//! * `exercises/chNN/topic.rs`: the stub the reader edits (`todo!()` bodies
//!   and doc comments that state exactly what to build);
//! * `exercises/tests/chNN_topic.rs`: the tests, which load the stub, or the
//!   reference solution under `--features solutions`;
//! * `exercises/solutions/chNN/topic.rs`: the reference solution.
//!
//! The hint lives here. A unit test in `main.rs` checks that this list and
//! the files on disk agree.

/// One exercise.
#[derive(Debug, Clone, Copy)]
pub struct Exercise {
    /// `chNN_topic`: the test target's name, and what `hint` takes.
    pub name: &'static str,
    /// One line: what the reader builds.
    pub title: &'static str,
    /// Shown by `hint NAME`, and for the next unsolved exercise.
    pub hint: &'static str,
}

impl Exercise {
    /// The chapter number, from the name.
    pub fn chapter(&self) -> &str {
        &self.name[2..4]
    }

    /// The stub's path, relative to the `exercises/` directory.
    pub fn stub_path(&self) -> String {
        format!("ch{}/{}.rs", self.chapter(), self.topic())
    }

    /// The reference solution's path, relative to `exercises/`.
    pub fn solution_path(&self) -> String {
        format!("solutions/{}", self.stub_path())
    }

    /// The test file's path, relative to `exercises/`.
    pub fn test_path(&self) -> String {
        format!("tests/{}.rs", self.name)
    }

    fn topic(&self) -> &str {
        &self.name[5..]
    }
}

/// All exercises, chapter by chapter.
pub const EXERCISES: &[Exercise] = &[
    Exercise {
        name: "ch01_proc_status",
        title: "parse VmSize, VmRSS and Threads from /proc/<pid>/status",
        hint: "Find a field's line with `line.strip_prefix(name)` and require that what \
               remains starts with ':' (that rules out look-alikes such as VmRSSX). Then \
               `split_whitespace()` the rest: the first word parses with `.parse::<u64>()`, \
               the second must be exactly the unit (`Some(\"kB\")` or `None`), and there \
               must be no third. Write that once as a helper taking the name and the unit, \
               and call it three times with `?`.",
    },
    Exercise {
        name: "ch01_echo_loop",
        title: "an echo loop that survives short reads, partial writes and signals",
        hint: "Loop on `stream.read(&mut buf)`: match `Ok(0)` (end of file: return the \
               total), `Ok(n)`, an error whose `kind()` is `ErrorKind::Interrupted` \
               (`continue`), and any other error (return it). For the write, \
               `Write::write_all` already loops over partial writes and retries \
               `Interrupted`: `stream.write_all(&buf[..n])?`.",
    },
    Exercise {
        name: "ch01_thread_pool",
        title: "a bounded thread pool: execute blocks when the queue is full",
        hint: "`std::sync::mpsc::sync_channel::<Job>(capacity)` is a bounded queue whose \
               `send` blocks while it is full. Keep the `SyncSender` in the pool (in an \
               `Option`, so `drop` can take it) and share the `Receiver` among the workers \
               as `Arc<Mutex<Receiver<Job>>>`. A worker loops: lock, `recv()`, unlock (let \
               the guard drop before running the job!), run the job inside \
               `std::panic::catch_unwind(AssertUnwindSafe(job))`. When `recv()` returns \
               `Err`, the sender is gone and the queue is empty: return. In `drop`, drop \
               the sender first, then join every worker.",
    },
];

/// The exercise called `name`.
pub fn find(name: &str) -> Option<&'static Exercise> {
    EXERCISES.iter().find(|e| e.name == name)
}
