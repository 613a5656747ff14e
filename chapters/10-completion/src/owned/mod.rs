//! # Owned buffers: a completion-based future API
//!
//! With epoll (Chapters 4 to 7), a future asks "is the socket readable?"
//! and, once it is, calls `read` itself, into a buffer it merely borrows
//! for the length of that call. With io_uring the kernel does the read, at
//! a time of its choosing, *after* the call that asked for it has
//! returned. So the buffer must belong to the operation, not to a caller's
//! stack frame:
//!
//! ```
//! # #[cfg(target_os = "linux")] {
//! use chapter_10::owned::{Runtime, TcpListener, TcpStream};
//! # let Ok(runtime) = Runtime::new() else { return };
//! # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
//! # let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
//! # std::io::Write::write_all(&mut client, b"hello").unwrap();
//! # let (server, _) = listener.accept().unwrap();
//! # let stream = TcpStream::from_std(server);
//! runtime.block_on(async {
//!     let buf = Vec::with_capacity(4096);
//!     // The buffer goes in by value...
//!     let (result, buf) = stream.read(buf).await;
//!     // ...and comes back with the bytes once the kernel is done.
//!     assert_eq!(result.unwrap(), buf.len());
//!     assert_eq!(&buf[..], b"hello");
//! });
//! # }
//! ```
//!
//! ## Why `AsyncRead` cannot express this
//!
//! `AsyncRead::poll_read(self, cx, buf: &mut [u8])` lends the buffer for
//! one call of `poll_read`. A readiness implementation fits: it reads
//! inside that call, or returns `Pending` having touched nothing. A
//! completion implementation would have to hand `buf`'s address to the
//! kernel and return `Pending`, and then the borrow ends: the caller may
//! drop the buffer, reuse it, or poll again with a *different* slice,
//! while the kernel still holds the first address and will write there.
//! No signature that borrows can keep the memory alive past the call; the
//! operation must own it. (An implementation can only read into a buffer
//! of its own and copy out on a later poll, which pays a copy for every
//! byte.)
//!
//! ## The pieces
//!
//! * [`buf`]: [`IoBuf`] and [`IoBufMut`], what a buffer must promise (its
//!   bytes do not move when it does);
//! * [`driver`]: the ring and the table of operations in flight, routed by
//!   `user_data`, with the parked buffers of dropped operations;
//! * [`executor`]: [`Runtime`], the single-thread loop (poll tasks, one
//!   `io_uring_enter` per batch, wake by completion);
//! * [`op`]: the [`Op`] future and [`read`](fn@read), [`write`](fn@write), [`write_all`],
//!   [`accept`];
//! * [`net`]: [`TcpListener`] and [`TcpStream`];
//! * [`echo`]: the echo server on all of it.
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

pub mod buf;
pub mod driver;
pub mod echo;
pub mod executor;
#[cfg(feature = "naive-drop")]
pub mod naive;
pub mod net;
pub mod op;

pub use buf::{IoBuf, IoBufMut};
pub use driver::Stats;
pub use executor::{Options, Runtime, spawn, yield_now};
pub use net::{TcpListener, TcpStream};
pub use op::{Op, accept, read, write, write_all};
