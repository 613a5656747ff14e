//! The behaviour suite (tests/behaviour/) compiled against our
//! current-thread runtime (`Builder::new_current_thread`). Every test that
//! runs here passes on Tokio's current-thread runtime
//! (`behaviour_tokio_current_thread.rs`): a failure is a place where `rt`'s
//! current-thread runtime does not behave as Tokio's does.
#![cfg(not(loom))]
#![cfg(not(miri))]
#![allow(missing_docs)]

/// The runtime under test, under the name the suite uses (`crate::rt`).
mod rt {
    pub use ::rt::*;
}

/// The flavour the shim builds: current-thread.
const MULTI_THREAD: bool = false;

#[path = "behaviour/shim_rt.rs"]
#[allow(dead_code)]
mod shim;

#[path = "behaviour/mod.rs"]
mod behaviour;

// Tests of Tokio APIs that rt gained after the suite was written (each
// file's header names the API); every entry file compiles them now.
#[path = "behaviour/pending_io_api.rs"]
mod pending_io_api;
#[path = "behaviour/pending_local.rs"]
mod pending_local;
#[path = "behaviour/pending_mpsc.rs"]
mod pending_mpsc;
#[path = "behaviour/pending_net.rs"]
mod pending_net;
#[path = "behaviour/pending_round3.rs"]
mod pending_round3;
#[path = "behaviour/pending_sync.rs"]
mod pending_sync;
#[path = "behaviour/pending_time.rs"]
mod pending_time;
