//! The behaviour suite (tests/behaviour/) compiled against Tokio's
//! current-thread runtime (`Builder::new_current_thread`), to tell the tests
//! that need worker threads (they return early when `shim::MULTI_THREAD` is
//! false, with the reason) from those that hold on every flavour. The same
//! files run on our current-thread runtime in
//! `behaviour_rt_current_thread.rs`.
#![cfg(not(loom))]
#![cfg(not(miri))]
#![allow(missing_docs)]

use tokio as rt;

/// The flavour the shim builds: current-thread.
const MULTI_THREAD: bool = false;

#[path = "behaviour/shim_tokio.rs"]
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
