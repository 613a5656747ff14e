//! # Chapter 1: processes and threads
//!
//! What does the operating system give us to do several things at once, and
//! what does each of those things cost? This crate measures it on the
//! reader's machine and builds the simplest server that uses the answer:
//! one thread per connection.
//!
//! The concepts, one file each:
//!
//! * [`spawn_cost`]: starting a thread, a `fork`ed process and a new program;
//! * [`memory`]: what an idle thread costs in virtual and resident memory;
//! * [`echo_server`] and [`echo_client`]: thread-per-connection, both sides,
//!   with every byte verified through a [`pattern`];
//! * [`proc_status`]: reading the kernel's view of a process from `/proc`.
//!
//! And the measuring discipline every chapter reuses: [`measure`] (medians of
//! many runs), [`machine`] (name the machine), [`console`] (the `--json`,
//! `--quick` and progress-bar conventions), [`gate`] (start a crowd of threads
//! together). [`experiments`] runs the chapter's experiments for the binary;
//! [`cli_check`] is what every chapter's tests check of its binary's output.
//!
//! The book tells the story in Chapter 1; `cargo run -p chapter-01` runs it.

pub mod cli_check;
pub mod console;
pub mod echo_client;
pub mod echo_server;
pub mod experiments;
pub mod gate;
pub mod machine;
pub mod measure;
pub mod memory;
pub mod pattern;
pub mod proc_status;
pub mod spawn_cost;
