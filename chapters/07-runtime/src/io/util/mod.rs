//! The I/O toolbox: what a program calls on a stream, under Tokio's names,
//! built on the `futures::io` traits every rt stream implements. None of it
//! touches the driver: it works the same on a socket, a file or an
//! in-memory pipe.
//!
//! * the extension traits: `read_ext.rs` ([`AsyncReadExt`](crate::io::AsyncReadExt)),
//!   `write_ext.rs`, `buf_read_ext.rs` and `lines.rs`, `seek_ext.rs`;
//! * buffering: `buf_stream.rs`;
//! * plumbing: `copy.rs` (`copy`, `copy_buf`, `copy_bidirectional`),
//!   `split.rs` and its inverse `join.rs`, the in-memory pipes of
//!   `duplex.rs`, and the devices of `devices.rs` (`empty`, `sink`,
//!   `repeat`).
//!
//! Book: Chapter 7, "Sockets" (the extension traits).

pub(crate) mod buf_read_ext;
pub(crate) mod buf_stream;
pub(crate) mod copy;
pub(crate) mod devices;
pub(crate) mod duplex;
pub(crate) mod join;
pub(crate) mod lines;
pub(crate) mod read_ext;
pub(crate) mod seek_ext;
pub(crate) mod split;
pub(crate) mod write_ext;
