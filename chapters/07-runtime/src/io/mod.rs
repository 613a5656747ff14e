//! Non-blocking I/O on the runtime's driver.
//!
//! * `scheduled_io`: one socket's readiness word (with its tick) and wakers;
//! * `driver`: the `mio::Poll`, the token table, one turn of the event loop;
//! * `registration`: a socket's handle on the driver, and the
//!   ready/try/clear loop every operation runs;
//! * [`Interest`] and [`Ready`]: the public names for what `ready()` waits
//!   for and what it saw (Tokio's `tokio::io::{Interest, Ready}`).
//!
//! Book: Chapter 7, "The I/O driver".

pub(crate) mod driver;
mod interest;
mod ready;
pub(crate) mod registration;
pub(crate) mod scheduled_io;
pub(crate) mod timerfd;

pub use interest::Interest;
pub use ready::Ready;
