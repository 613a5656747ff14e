//! The public methods several socket types share, written once.
//!
//! A `TcpStream` and a `UnixStream` offer the same readiness API, the same
//! `try_read`/`try_write` family and the same `AsyncRead`/`AsyncWrite`; a
//! `UdpSocket` and a `UnixDatagram` the same connected `send`/`recv`
//! family. The work behind every one of those methods is already written
//! once, in `core/io_driver/registered_source.rs`; what is left per type is the
//! method itself, one line that hands the call to the socket's
//! `RegisteredSource`. Writing those lines out per type would repeat them
//! two, four or ten times, so each family is a macro here, expanded inside
//! the `impl` of each type that has it:
//!
//! * `readiness_methods!`: `ready`, `readable`, `writable`, `try_io`,
//!   `async_io`, `take_error`, for every socket that sends and receives;
//! * `stream_methods!`: `try_read`, `try_write` and their vectored and
//!   `BufMut` forms, `poll_read_ready`, `poll_write_ready`;
//! * `datagram_methods!`: `send`, `recv` and their `try_`, `poll_` and
//!   `BufMut` forms, `poll_send_ready`, `poll_recv_ready`;
//! * `addressed_datagram_methods!`: `recv_from` and its `try_`, `poll_`
//!   and `BufMut` forms, `try_send_to`, `poll_send_to`, given each family's
//!   address types;
//! * `stream_traits!`: `AsyncRead` and `AsyncWrite`, for a stream or a
//!   half of one;
//! * `listener_methods!`: `accept` and `poll_accept`, `local_addr`,
//!   `into_std`;
//! * `fd_impls!`: `AsRawFd` and `AsFd`;
//! * `try_from_std!`: `TryFrom` the `std` socket, which is `from_std`;
//! * `deprecated_tos!`: Tokio's deprecated `tos`/`set_tos`.
//!
//! Every macro expects the type to keep its socket in a field `io`, a
//! `RegisteredSource` (the halves name the path to it instead).
//!
//! Book: Chapter 8, "Sockets".

/// `AsRawFd` and `AsFd` for types that keep their socket in `self.io`: the
/// descriptor, for `socket2::SockRef`, `setsockopt` and the like.
macro_rules! fd_impls {
    ($($ty:ty),*) => {$(
        impl ::std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                ::std::os::fd::AsRawFd::as_raw_fd(&*self.io)
            }
        }

        impl ::std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                ::std::os::fd::AsFd::as_fd(&*self.io)
            }
        }
    )*};
}
pub(crate) use fd_impls;

/// Tokio's deprecated `tos`/`set_tos`, the old names of `tos_v4` and
/// `set_tos_v4` (the option is IPv4's only), for the types that have those.
macro_rules! deprecated_tos {
    () => {
        /// The old name of [`tos_v4`](Self::tos_v4), deprecated as in Tokio
        /// 1.54.
        #[deprecated(
            note = "`tos` related methods have been renamed `tos_v4` since they are IPv4-specific."
        )]
        #[doc(hidden)]
        pub fn tos(&self) -> ::std::io::Result<u32> {
            self.tos_v4()
        }

        /// The old name of [`set_tos_v4`](Self::set_tos_v4), deprecated as
        /// in Tokio 1.54.
        #[deprecated(
            note = "`tos` related methods have been renamed `tos_v4` since they are IPv4-specific."
        )]
        #[doc(hidden)]
        pub fn set_tos(&self, tos: u32) -> ::std::io::Result<()> {
            self.set_tos_v4(tos)
        }
    };
}
pub(crate) use deprecated_tos;

/// `TryFrom` a `std` socket, for types with a `from_std`, as Tokio has it:
/// `try_from_std!(UdpSocket: std::net::UdpSocket)`. It is `from_std` under
/// the standard name, so it fails the same way (outside a runtime).
macro_rules! try_from_std {
    ($($ty:ident: $std:ty),*) => {$(
        impl ::std::convert::TryFrom<$std> for $ty {
            type Error = ::std::io::Error;

            /// Takes over the `std` socket: [`from_std`](Self::from_std).
            fn try_from(socket: $std) -> ::std::io::Result<$ty> {
                $ty::from_std(socket)
            }
        }
    )*};
}
pub(crate) use try_from_std;

// ANCHOR: readiness
/// The readiness API on `&self`, for a type whose `io` field is a
/// `RegisteredSource`.
macro_rules! readiness_methods {
    () => {
        /// Waits until any readiness of `interest` is set and returns what
        /// is set in those directions (e.g. `READABLE | READ_CLOSED`). One
        /// task can wait for reading and writing together with
        /// `Interest::READABLE | Interest::WRITABLE`.
        pub async fn ready(
            &self,
            interest: $crate::io::Interest,
        ) -> ::std::io::Result<$crate::io::Ready> {
            self.io.ready(interest).await
        }

        /// Waits until the socket is readable (or its read side closed):
        /// then a `try_` read will likely succeed. Any number of tasks may
        /// wait at once on a shared socket; each is woken.
        ///
        /// The wait may end spuriously; the `try_` call then says
        /// `WouldBlock` (and clears the readiness), and the caller waits
        /// again.
        ///
        /// Cancel safety: readiness is not consumed by waiting, only by a
        /// `try_` call that hits `WouldBlock`, so a dropped wait loses
        /// nothing.
        pub async fn readable(&self) -> ::std::io::Result<()> {
            self.io
                .readiness($crate::io_driver::scheduled_io::Direction::Read)
                .await
        }

        /// Waits until the socket is writable (or its write side closed);
        /// the counterpart of `readable` for the `try_` writes.
        pub async fn writable(&self) -> ::std::io::Result<()> {
            self.io
                .readiness($crate::io_driver::scheduled_io::Direction::Write)
                .await
        }

        /// Runs `f`, a non-blocking operation on the socket (through
        /// [`AsRawFd`](std::os::fd::AsRawFd), say), if the socket looks
        /// ready for `interest`; a `WouldBlock` from `f` clears that
        /// readiness, so the next `ready(interest)` waits for a new event.
        /// `WouldBlock` without calling `f` if the socket is not ready.
        pub fn try_io<R>(
            &self,
            interest: $crate::io::Interest,
            f: impl FnOnce() -> ::std::io::Result<R>,
        ) -> ::std::io::Result<R> {
            let direction = $crate::io_driver::registered_source::direction_of(interest);
            self.io.try_io(direction, |_| f())
        }

        /// Waits until the socket is ready for `interest`, then runs `f`;
        /// on `WouldBlock` clears the readiness and waits again: the loop
        /// of `readable` and `try_io` in one call.
        pub async fn async_io<R>(
            &self,
            interest: $crate::io::Interest,
            mut f: impl FnMut() -> ::std::io::Result<R>,
        ) -> ::std::io::Result<R> {
            let direction = $crate::io_driver::registered_source::direction_of(interest);
            self.io.async_io(direction, |_| f()).await
        }

        /// The pending socket error (`SO_ERROR`), taken.
        pub fn take_error(&self) -> ::std::io::Result<Option<::std::io::Error>> {
            self.io.take_error()
        }
    };
}
pub(crate) use readiness_methods;
// ANCHOR_END: readiness

/// A byte stream's `try_` reads and writes, and its poll methods for
/// readiness.
macro_rules! stream_methods {
    () => {
        /// Reads what the kernel has without waiting: `Ok(n)` bytes (0 at
        /// end of stream or for an empty `buf`), or `WouldBlock` if nothing
        /// is there now, which clears the readable state until the driver
        /// sees new data.
        pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.io.try_read(buf)
        }

        /// `try_read` into several buffers (one `readv`).
        pub fn try_read_vectored(
            &self,
            bufs: &mut [::std::io::IoSliceMut<'_>],
        ) -> ::std::io::Result<usize> {
            self.io.try_read_vectored(bufs)
        }

        /// `try_read` into the spare capacity of `buf` (a `BytesMut`, a
        /// `Vec<u8>`), advancing it by what was read. The bytes go straight
        /// into `buf`'s uninitialized memory: nothing is zeroed or copied.
        pub fn try_read_buf<B: ::bytes::BufMut>(&self, buf: &mut B) -> ::std::io::Result<usize> {
            self.io.try_recv_buf(buf)
        }

        /// Writes what the kernel will take without waiting: `Ok(n)` bytes,
        /// or `WouldBlock` if the send buffer is full (clearing the
        /// writable state until the driver sees room).
        pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.io.try_write(buf)
        }

        /// `try_write` from several buffers (one `writev`).
        pub fn try_write_vectored(
            &self,
            bufs: &[::std::io::IoSlice<'_>],
        ) -> ::std::io::Result<usize> {
            self.io.try_write_vectored(bufs)
        }

        /// Polls for read readiness, with the waker of the stream's reader
        /// slot (the one `poll_read` uses): only the last caller's waker is
        /// kept.
        pub fn poll_read_ready(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.io
                .poll_ready(cx, $crate::io_driver::scheduled_io::Direction::Read)
        }

        /// Polls for write readiness, with the waker of the stream's
        /// writer slot.
        pub fn poll_write_ready(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.io
                .poll_ready(cx, $crate::io_driver::scheduled_io::Direction::Write)
        }
    };
}
pub(crate) use stream_methods;

/// A datagram socket's connected `send`/`recv` family (the peer set by
/// `connect`, or the other end of a pair); the addressed forms are
/// `addressed_datagram_methods!`, below.
macro_rules! datagram_methods {
    () => {
        /// Sends one datagram to the connected peer; returns the bytes
        /// sent, all of `buf` or an error.
        pub async fn send(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.io
                .async_io(
                    $crate::io_driver::scheduled_io::Direction::Write,
                    |socket| socket.send(buf),
                )
                .await
        }

        /// Sends to the connected peer without waiting (`WouldBlock` if the
        /// send buffer is full).
        pub fn try_send(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.io.try_io(
                $crate::io_driver::scheduled_io::Direction::Write,
                |socket| socket.send(buf),
            )
        }

        /// Waits for one datagram from the connected peer. A datagram
        /// longer than `buf` is cut to fit (the rest is lost).
        ///
        /// Cancel safety: a datagram is taken only by a call that returns
        /// it.
        pub async fn recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.io
                .async_io($crate::io_driver::scheduled_io::Direction::Read, |socket| {
                    socket.recv(buf)
                })
                .await
        }

        /// Receives from the connected peer without waiting (`WouldBlock`
        /// if no datagram waits, which clears the readable state).
        pub fn try_recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.io
                .try_io($crate::io_driver::scheduled_io::Direction::Read, |socket| {
                    socket.recv(buf)
                })
        }

        /// Waits for one datagram from the connected peer and appends it to
        /// the spare capacity of `buf` (a `BytesMut`, a `Vec<u8>`),
        /// advancing it; a datagram longer than that room is cut to fit.
        ///
        /// Cancel safety: a datagram is taken only by a call that returns
        /// it.
        pub async fn recv_buf<B: ::bytes::BufMut>(&self, buf: &mut B) -> ::std::io::Result<usize> {
            self.io.recv_buf(buf).await
        }

        /// `recv_buf` without waiting.
        pub fn try_recv_buf<B: ::bytes::BufMut>(&self, buf: &mut B) -> ::std::io::Result<usize> {
            self.io.try_recv_buf(buf)
        }

        /// Polls until a datagram can be sent, with the waker of the
        /// socket's writer slot (only the last caller's is kept).
        pub fn poll_send_ready(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.io
                .poll_ready(cx, $crate::io_driver::scheduled_io::Direction::Write)
        }

        /// Polls until a datagram waits, with the waker of the socket's
        /// reader slot (only the last caller's is kept).
        pub fn poll_recv_ready(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<()>> {
            self.io
                .poll_ready(cx, $crate::io_driver::scheduled_io::Direction::Read)
        }

        /// `send` as a poll method: sends one datagram to the connected
        /// peer, or registers `cx` (the writer slot) and returns `Pending`.
        pub fn poll_send(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &[u8],
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            self.io.poll_io(
                cx,
                $crate::io_driver::scheduled_io::Direction::Write,
                |socket| socket.send(buf),
            )
        }

        /// `recv` as a poll method: receives one datagram from the
        /// connected peer into `buf` and returns its length, or registers
        /// `cx` (the reader slot) and returns `Pending`.
        ///
        /// Tokio's takes a `ReadBuf` and records the length in it; ours
        /// takes the bytes and returns the length, as `poll_read` does in
        /// rt (see `rt::io`).
        pub fn poll_recv(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &mut [u8],
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            self.io.poll_io(
                cx,
                $crate::io_driver::scheduled_io::Direction::Read,
                |socket| socket.recv(buf),
            )
        }
    };
}
pub(crate) use datagram_methods;

/// A datagram socket's addressed family: `recv_from` and its `try_`,
/// `poll_` and `BufMut` forms, `try_send_to` and `poll_send_to`.
///
/// UDP and Unix datagrams differ here only in their addresses, so the macro
/// is told them:
///
/// * `sender: $addr, from $from_sockaddr`: the sender's address type (what
///   the `mio` socket's `recv_from` returns), and the function that makes
///   one from a `socket2::SockAddr`, which is what the `BufMut` receives get
///   (they go through `socket2`, which writes into uninitialized memory);
/// * `target: [$generics] $target: $target_ty => $arg`: a send's target
///   parameter with the generic parameters its type needs, and the
///   expression that hands it to the `mio` socket's `send_to` (called
///   again on each try, so it must not move `$target`).
///
/// The `async fn send_to` stays with each type: UDP resolves a host name
/// first, Unix has a path and nothing to resolve.
macro_rules! addressed_datagram_methods {
    (
        sender: $addr:ty, from $from_sockaddr:path;
        target: [$($generics:tt)*] $target:ident: $target_ty:ty => $arg:expr
    ) => {
        /// Waits for one datagram; returns its length and its sender. A
        /// datagram longer than `buf` is cut to fit (the rest is lost).
        ///
        /// Cancel safety: a datagram is taken only by a call that returns
        /// it.
        pub async fn recv_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $addr)> {
            self.io
                .async_io(
                    $crate::io_driver::scheduled_io::Direction::Read,
                    |socket| socket.recv_from(buf),
                )
                .await
        }

        /// `recv_from` without waiting (`WouldBlock` if no datagram waits,
        /// which clears the readable state).
        pub fn try_recv_from(&self, buf: &mut [u8]) -> ::std::io::Result<(usize, $addr)> {
            self.io.try_io(
                $crate::io_driver::scheduled_io::Direction::Read,
                |socket| socket.recv_from(buf),
            )
        }

        /// `recv_from` as a poll method: receives one datagram into `buf`
        /// and returns its length and sender, or registers `cx` (the reader
        /// slot; only the last caller's waker is kept) and returns
        /// `Pending`.
        ///
        /// Tokio's takes a `ReadBuf` and returns only the sender; ours
        /// takes the bytes and returns the length too, as `poll_recv` does.
        pub fn poll_recv_from(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &mut [u8],
        ) -> ::std::task::Poll<::std::io::Result<(usize, $addr)>> {
            self.io.poll_io(
                cx,
                $crate::io_driver::scheduled_io::Direction::Read,
                |socket| socket.recv_from(buf),
            )
        }

        /// `recv_from` into the spare capacity of `buf` (a `BytesMut`, a
        /// `Vec<u8>`), advancing it, as `recv_buf` does; a datagram longer
        /// than that room is cut to fit.
        ///
        /// Cancel safety: a datagram is taken only by a call that returns
        /// it.
        pub async fn recv_buf_from<B: ::bytes::BufMut>(
            &self,
            buf: &mut B,
        ) -> ::std::io::Result<(usize, $addr)> {
            let (n, from) = self.io.recv_buf_from(buf).await?;
            Ok((n, $from_sockaddr(from)?))
        }

        /// `recv_buf_from` without waiting.
        pub fn try_recv_buf_from<B: ::bytes::BufMut>(
            &self,
            buf: &mut B,
        ) -> ::std::io::Result<(usize, $addr)> {
            let (n, from) = self.io.try_recv_buf_from(buf)?;
            Ok((n, $from_sockaddr(from)?))
        }

        /// Sends one datagram to `target` without waiting (`WouldBlock` if
        /// the send buffer is full, which clears the writable state).
        pub fn try_send_to<$($generics)*>(
            &self,
            buf: &[u8],
            $target: $target_ty,
        ) -> ::std::io::Result<usize> {
            self.io.try_io(
                $crate::io_driver::scheduled_io::Direction::Write,
                |socket| socket.send_to(buf, $arg),
            )
        }

        /// `send_to` as a poll method: sends one datagram to `target`, or
        /// registers `cx` (the writer slot; only the last caller's waker is
        /// kept) and returns `Pending`.
        pub fn poll_send_to<$($generics)*>(
            &self,
            cx: &mut ::std::task::Context<'_>,
            buf: &[u8],
            $target: $target_ty,
        ) -> ::std::task::Poll<::std::io::Result<usize>> {
            self.io.poll_io(
                cx,
                $crate::io_driver::scheduled_io::Direction::Write,
                |socket| socket.send_to(buf, $arg),
            )
        }
    };
}
pub(crate) use addressed_datagram_methods;

/// `AsyncRead` and `AsyncWrite` for a stream or a half of one, given how to
/// reach the `RegisteredSource` from `&self`: `stream_traits!(read
/// TcpStream, |stream| &stream.io)`. A read half gets only `read`, a write
/// half only `write`. Closing shuts down the write direction; there is no
/// user-space buffer to flush.
macro_rules! stream_traits {
    (read $ty:ty, |$this:ident| $io:expr) => {
        impl ::futures::io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $this = &*self;
                $io.poll_read(cx, buf)
            }

            fn poll_read_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $this = &*self;
                $io.poll_read_vectored(cx, bufs)
            }
        }
    };
    (write $ty:ty, |$this:ident| $io:expr) => {
        impl ::futures::io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $this = &*self;
                $io.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let $this = &*self;
                $io.poll_write_vectored(cx, bufs)
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                // Every write went to the kernel: nothing to flush.
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: ::std::pin::Pin<&mut Self>,
                _cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                let $this = &*self;
                ::std::task::Poll::Ready($io.shutdown_write())
            }
        }
    };
    (both $ty:ty, |$this:ident| $io:expr) => {
        $crate::net::shared::stream_traits!(read $ty, |$this| $io);
        $crate::net::shared::stream_traits!(write $ty, |$this| $io);
    };
}
pub(crate) use stream_traits;

/// A listener's methods, for a listener whose `io` is a `RegisteredSource`
/// of `$mio`, accepting `$stream`s (made by `$stream::from_mio`) from peers
/// with addresses `$addr`, and given back as a `$std` listener.
macro_rules! listener_methods {
    ($mio:ty, $stream:ident, $addr:ty, $std:ty) => {
        /// Accepts a connection.
        ///
        /// Any number of tasks may await `accept` on one listener at once
        /// (share it in an `Arc`): each waits in the socket's waiter list,
        /// and every waiter is woken when connections arrive.
        ///
        /// Cancel safety: dropping the future before it completes loses no
        /// connection; one not yet accepted stays in the kernel's queue.
        pub async fn accept(&self) -> ::std::io::Result<($stream, $addr)> {
            let read = $crate::io_driver::scheduled_io::Direction::Read;
            let (stream, peer) = self.io.async_io(read, <$mio>::accept).await?;
            Ok(($stream::from_mio(stream)?, peer))
        }

        /// Polls for a connection: the future of `accept` as a poll method,
        /// for code that writes its own futures. Only the waker of the last
        /// call is kept.
        pub fn poll_accept(
            &self,
            cx: &mut ::std::task::Context<'_>,
        ) -> ::std::task::Poll<::std::io::Result<($stream, $addr)>> {
            let read = $crate::io_driver::scheduled_io::Direction::Read;
            let (stream, peer) = ::std::task::ready!(self.io.poll_io(cx, read, <$mio>::accept))?;
            ::std::task::Poll::Ready(Ok(($stream::from_mio(stream)?, peer)))
        }

        /// The address it listens on.
        pub fn local_addr(&self) -> ::std::io::Result<$addr> {
            self.io.local_addr()
        }

        /// Gives the listener back as a `std` listener, taken off the
        /// driver. It is still in non-blocking mode (as in Tokio): call
        /// `set_nonblocking(false)` before a blocking `accept`.
        pub fn into_std(self) -> ::std::io::Result<$std> {
            self.io.into_std()
        }
    };
}
pub(crate) use listener_methods;
