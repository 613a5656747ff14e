//! Sockets as futures, on Chapter 5's reactor.
//!
//! Each socket here is a mio socket plus a [`Registration`]: a small shared
//! record of "is it readable? is it writable? who waits for each?" that the
//! event loop's readiness callback updates. A read then goes:
//!
//! 1. if the record says readable, try the non-blocking `read`;
//! 2. if it returns data (or end of stream, or an error), done: `Ready`;
//! 3. if it says `WouldBlock`, mark the record not readable, keep the task's
//!    waker, return `Pending`;
//! 4. when epoll reports the socket readable, the loop's callback marks the
//!    record readable again and wakes the task, which polls again from 1.
//!
//! mio registers sockets edge-triggered, so step 3 must really have seen
//! `WouldBlock`: an edge is reported once. And since the executor and the
//! reactor share one thread, no event can slip in between steps 2 and 3.
//!
//! [`TcpStream`] implements `futures::io::AsyncRead` and `AsyncWrite`, so
//! the `futures` crate's helpers (`read_line`, `write_all`, `BufReader`,
//! `split`) work on it as they would on any async stream.
//!
//! Book: Chapter 6, "Leaf futures on the reactor".

use std::cell::RefCell;
use std::future::Future;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use chapter_05::event_loop::{IoId, Readiness};
use futures::io::{AsyncRead, AsyncWrite};
use mio::Interest;

use crate::executor::with_reactor;

/// Readiness as the reactor last reported it, and who waits for it.
#[derive(Debug)]
struct IoState {
    readable: bool,
    writable: bool,
    read_waker: Option<Waker>,
    write_waker: Option<Waker>,
}

/// A socket's link with the reactor.
#[derive(Debug)]
pub struct Registration {
    id: IoId,
    state: Rc<RefCell<IoState>>,
}

fn no_reactor() -> io::Error {
    io::Error::other("sockets need an executor with a reactor (Executor::new)")
}

// ANCHOR: registration
impl Registration {
    /// Registers `source` with the reactor of the running executor.
    pub fn new(source: &mut impl mio::event::Source) -> io::Result<Registration> {
        // Optimistic: assume ready until an operation says WouldBlock.
        let state = Rc::new(RefCell::new(IoState {
            readable: true,
            writable: true,
            read_waker: None,
            write_waker: None,
        }));
        let shared = Rc::clone(&state);
        let id = with_reactor(|ev| {
            ev.register_io(
                source,
                Interest::READABLE | Interest::WRITABLE,
                move |_, ready: Readiness| {
                    let mut state = shared.borrow_mut();
                    let mut wake = Vec::new();
                    if ready.readable {
                        state.readable = true;
                        wake.extend(state.read_waker.take());
                    }
                    if ready.writable {
                        state.writable = true;
                        wake.extend(state.write_waker.take());
                    }
                    drop(state);
                    wake.into_iter().for_each(Waker::wake);
                },
            )
        })
        .ok_or_else(no_reactor)??;
        Ok(Registration { id, state })
    }

    /// Runs a non-blocking operation when the socket may be ready, and
    /// arranges a wake-up if it would block.
    pub fn poll_io<T>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut() -> io::Result<T>,
    ) -> Poll<io::Result<T>> {
        loop {
            let mut guard = self.state.borrow_mut();
            let state = &mut *guard; // one borrow of the RefMut, split in two
            let (ready, waker) = match direction {
                Direction::Read => (&mut state.readable, &mut state.read_waker),
                Direction::Write => (&mut state.writable, &mut state.write_waker),
            };
            if !*ready {
                *waker = Some(cx.waker().clone());
                return Poll::Pending;
            }
            drop(guard);
            match op() {
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    // Not ready after all: wait for the next edge.
                    let mut state = self.state.borrow_mut();
                    match direction {
                        Direction::Read => state.readable = false,
                        Direction::Write => state.writable = false,
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                result => return Poll::Ready(result),
            }
        }
    }
}
// ANCHOR_END: registration

impl Drop for Registration {
    fn drop(&mut self) {
        // The socket itself is closed by its owner right after; a closed
        // descriptor leaves epoll on its own. The callback goes now.
        let id = self.id;
        with_reactor(|ev| ev.remove_io(id));
    }
}

/// Which readiness an operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Reading (or accepting).
    Read,
    /// Writing (or connecting).
    Write,
}

/// A listening socket.
#[derive(Debug)]
pub struct TcpListener {
    listener: mio::net::TcpListener,
    registration: Registration,
}

impl TcpListener {
    /// Takes over a bound std listener (Chapter 3's has a large backlog).
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        listener.set_nonblocking(true)?;
        let mut listener = mio::net::TcpListener::from_std(listener);
        let registration = Registration::new(&mut listener)?;
        Ok(TcpListener {
            listener,
            registration,
        })
    }

    /// Binds `addr`.
    pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
        TcpListener::from_std(std::net::TcpListener::bind(addr)?)
    }

    /// Where it listens.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Waits for the next connection.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, peer) = std::future::poll_fn(|cx| {
            self.registration
                .poll_io(cx, Direction::Read, || self.listener.accept())
        })
        .await?;
        Ok((TcpStream::new(stream)?, peer))
    }
}

/// A connected socket.
#[derive(Debug)]
pub struct TcpStream {
    stream: mio::net::TcpStream,
    registration: Registration,
}

impl TcpStream {
    fn new(mut stream: mio::net::TcpStream) -> io::Result<TcpStream> {
        stream.set_nodelay(true)?;
        let registration = Registration::new(&mut stream)?;
        Ok(TcpStream {
            stream,
            registration,
        })
    }

    /// Connects to `addr`. Like every future, it does nothing until polled.
    pub fn connect(addr: SocketAddr) -> Connect {
        Connect {
            addr,
            pending: None,
            done: false,
        }
    }

    /// The peer's address.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.stream.peer_addr()
    }
}

// ANCHOR: connect
/// A connection being made: resolves once the socket is writable and the
/// kernel reports no error. A named type (not an `async fn`) so the
/// hand-written relay future can hold one in a field.
#[derive(Debug)]
pub struct Connect {
    addr: SocketAddr,
    pending: Option<TcpStream>,
    done: bool,
}

impl Future for Connect {
    type Output = io::Result<TcpStream>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        assert!(!self.done, "Connect polled after completion");
        if self.pending.is_none() {
            // The first poll starts the connect (and registers the socket
            // with the reactor of the executor that polls us).
            match mio::net::TcpStream::connect(self.addr).and_then(TcpStream::new) {
                Ok(stream) => self.pending = Some(stream),
                Err(err) => {
                    self.done = true;
                    return Poll::Ready(Err(err));
                }
            }
        }
        let stream = self.pending.as_mut().expect("set just above");
        let connected = stream.registration.poll_io(cx, Direction::Write, || {
            if let Some(err) = stream.stream.take_error()? {
                return Err(err);
            }
            match stream.stream.peer_addr() {
                Ok(_) => Ok(()),
                Err(err) if err.kind() == io::ErrorKind::NotConnected => {
                    Err(io::ErrorKind::WouldBlock.into())
                }
                Err(err) => Err(err),
            }
        });
        match connected {
            Poll::Pending => Poll::Pending,
            Poll::Ready(result) => {
                self.done = true;
                let stream = self.pending.take().expect("set above");
                Poll::Ready(result.map(|()| stream))
            }
        }
    }
}
// ANCHOR_END: connect

impl AsyncRead for TcpStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let stream = &mut this.stream;
        this.registration
            .poll_io(cx, Direction::Read, || stream.read(buf))
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let stream = &mut this.stream;
        this.registration
            .poll_io(cx, Direction::Write, || stream.write(buf))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(())) // no user-space buffer to flush
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.stream.shutdown(Shutdown::Write) {
            Err(err) if err.kind() != io::ErrorKind::NotConnected => Poll::Ready(Err(err)),
            _ => Poll::Ready(Ok(())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::{Executor, spawn};
    use futures::io::{AsyncReadExt, AsyncWriteExt};

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn a_connection_carries_bytes_both_ways() {
        let ex = Executor::new().unwrap();
        ex.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = listener.local_addr().unwrap();
            let server = spawn(async move {
                let (mut stream, _) = listener.accept().await.unwrap();
                let mut buf = vec![0u8; 1 << 20];
                stream.read_exact(&mut buf).await.unwrap();
                stream.write_all(&buf).await.unwrap();
                stream.close().await.unwrap();
            });
            let client = TcpStream::connect(addr).await.unwrap();
            let sent: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
            // Write and read concurrently: a megabyte does not fit in the
            // socket buffers, so writing it all first could deadlock.
            let (mut reader, mut writer) = client.split();
            let writing = async {
                writer.write_all(&sent).await.unwrap();
            };
            let mut echoed = Vec::new();
            let reading = async {
                reader.read_to_end(&mut echoed).await.unwrap();
            };
            futures::join!(writing, reading);
            assert_eq!(echoed, sent);
            server.await;
        });
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn connecting_to_nobody_is_refused() {
        let ex = Executor::new().unwrap();
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let err = ex.block_on(TcpStream::connect(addr)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
    }
}
