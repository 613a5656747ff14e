//! The I/O toolbox: what a program calls on a stream, under Tokio's names,
//! built on the `futures::io` traits every rt stream implements. None of it
//! touches the driver: it works the same on a socket, a file or an
//! in-memory pipe.
//!
//! * the extension traits: `read_ext.rs` ([`AsyncReadExt`](crate::io::AsyncReadExt)),
//!   `write_ext.rs`, `buf_read_ext.rs` and `lines.rs`, `seek_ext.rs`;
//! * `read_buf.rs`: Tokio's [`ReadBuf`](crate::io::ReadBuf), a buffer
//!   that tracks how much of itself is filled and initialized;
//! * buffering: `buf_reader.rs` (Tokio's `BufReader`, on `futures::io`'s)
//!   and `buf_stream.rs`;
//! * plumbing: `copy.rs` (`copy`, `copy_buf`, `copy_bidirectional`),
//!   `split.rs` and its inverse `join.rs`, the in-memory pipes of
//!   `duplex.rs`, and the devices of `devices.rs` (`empty`, `sink`,
//!   `repeat`).
//!
//! Book: Chapter 8, "Sockets" (the extension traits).

/// Methods of the extension traits that `futures::io`'s extension trait
/// `$ext` already has, with Tokio's signature and output: each is declared
/// with its docs, as Tokio declares it, and passes its call on to the
/// method of the same name there. For methods on `&mut self`, which need
/// `Self: Unpin` (the returned future polls `self` through `Pin::new`).
macro_rules! futures_io_methods {
    ($ext:ident; $(
        $(#[$doc:meta])*
        fn $name:ident $(<$lt:lifetime>)?
            (&$($self_lt:lifetime)? mut self $(, $arg:ident: $arg_ty:ty)*) -> $ret:ty;
    )*) => {$(
        $(#[$doc])*
        fn $name $(<$lt>)? (&$($self_lt)? mut self $(, $arg: $arg_ty)*) -> $ret
        where
            Self: Unpin,
        {
            futures::io::$ext::$name(self $(, $arg)*)
        }
    )*};
}

pub(crate) mod buf_read_ext;
pub(crate) mod buf_reader;
pub(crate) mod buf_stream;
pub(crate) mod copy;
pub(crate) mod devices;
pub(crate) mod duplex;
pub(crate) mod join;
pub(crate) mod lines;
pub(crate) mod read_buf;
pub(crate) mod read_ext;
pub(crate) mod seek_ext;
pub(crate) mod split;
pub(crate) mod write_ext;
