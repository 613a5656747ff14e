//! TCP on the runtime's I/O driver: [`TcpListener`] and [`TcpStream`].
//!
//! Both wrap a non-blocking `mio` socket and a registration with the driver;
//! every operation is the ready/try/clear loop of `io/registration.rs`.
//! `TcpStream` implements `futures::io::AsyncRead` and `AsyncWrite`, so the
//! `futures::io::{AsyncReadExt, AsyncWriteExt}` helpers (`read`,
//! `write_all`, `read_to_end`, `close`, `copy`...) work on it.
//!
//! Book: Chapter 7, "The I/O driver".

mod tcp;

pub use tcp::{TcpListener, TcpStream};
