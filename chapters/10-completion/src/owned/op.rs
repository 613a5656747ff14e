//! One operation as a future that owns its buffer.
//!
//! [`Op`] holds a prepared submission entry and the buffer it points to.
//! Its first poll queues the entry in the ring (the driver hands it to the
//! kernel at the executor's next `io_uring_enter`); later polls ask the
//! driver whether the completion has arrived. When it has, the future
//! returns the raw result *and the buffer*: the caller gets its memory
//! back only once the kernel is done with it.
//!
//! Dropping an `Op` in flight is where completion I/O differs from
//! readiness: the kernel may still write into the buffer. The `Op` hands
//! the buffer to the driver, which parks it until the completion arrives
//! ([`Drop`] below). The naive drop, which lets the buffer go with the
//! future, exists only with the `naive-drop` feature, for the test that
//! shows it corrupting memory (`tests/cancel.rs`).
//!
//! Book: Chapter 10, "Owned buffers and cancellation".

use std::any::Any;
use std::future::Future;
use std::io;
use std::os::fd::RawFd;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use io_uring::{opcode, squeue, types};

use super::buf::{IoBuf, IoBufMut};
use super::driver::Orphan;
use super::executor::{Shared, current};

/// What dropping an operation in flight does with its buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDrop {
    /// Park it in the driver until the completion arrives.
    Park,
    /// Free it with the future, while the kernel may still write into it.
    /// The bug this chapter shows; test builds only.
    #[cfg(feature = "naive-drop")]
    Free,
}

enum State {
    /// Not yet submitted: the entry, ready to queue.
    Prepared(squeue::Entry),
    /// Submitted; the driver's slot.
    InFlight(usize),
    Done,
}

/// An operation in flight, owning the buffer `B` the kernel uses. Resolves
/// to the raw CQE result (`>= 0`, or `-errno`) and the buffer.
pub struct Op<B: 'static> {
    shared: Rc<Shared>,
    state: State,
    buf: Option<B>,
    on_drop: OnDrop,
    /// Disposes of the result if the future is dropped before it.
    orphan: Option<Orphan>,
}

impl<B: 'static> Op<B> {
    /// An operation for `entry`, whose pointers lead into `buf` (or
    /// nowhere). Must be created inside a runtime.
    pub(crate) fn new(entry: squeue::Entry, buf: B, on_drop: OnDrop) -> Op<B> {
        Op {
            shared: current(),
            state: State::Prepared(entry),
            buf: Some(buf),
            on_drop,
            orphan: None,
        }
    }

    /// Sets what the driver does with the result of this operation if its
    /// future is dropped first.
    pub(crate) fn on_orphan(mut self, orphan: Orphan) -> Op<B> {
        self.orphan = Some(orphan);
        self
    }
}

// The buffer is never pinned: the kernel needs its *bytes* to stay put,
// which `IoBuf` promises, not the `B` value, which moves freely.
impl<B: 'static> Unpin for Op<B> {}

impl<B: 'static> Future for Op<B> {
    type Output = (i32, B);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<(i32, B)> {
        let this = self.get_mut();
        let mut driver = this.shared.driver.borrow_mut();
        match std::mem::replace(&mut this.state, State::Done) {
            State::Prepared(entry) => {
                // SAFETY: the entry points into `this.buf` (whose bytes do
                // not move: `IoBuf`'s contract). `this` keeps the buffer
                // until the driver reports the completion below, and if
                // `this` is dropped first, `Drop` parks the buffer in the
                // driver, which frees it only after the completion.
                let id = unsafe { driver.submit(entry, cx.waker()) };
                this.state = State::InFlight(id);
                Poll::Pending
            }
            State::InFlight(id) => match driver.take_result(id, cx.waker()) {
                Some(result) => {
                    let buf = this.buf.take().expect("an Op's buffer is taken once");
                    Poll::Ready((result, buf))
                }
                None => {
                    this.state = State::InFlight(id);
                    Poll::Pending
                }
            },
            State::Done => panic!("Op polled after it completed"),
        }
    }
}

// ANCHOR: drop
impl<B: 'static> Drop for Op<B> {
    fn drop(&mut self) {
        let State::InFlight(id) = self.state else {
            return; // never submitted, or completed: the buffer is ours
        };
        let Ok(mut driver) = self.shared.driver.try_borrow_mut() else {
            // Dropped while the driver is busy (it never calls us back, so
            // this is defensive): leak the buffer rather than free it.
            std::mem::forget(self.buf.take());
            return;
        };
        match self.on_drop {
            // The kernel may write into the buffer until the completion:
            // the driver owns it from now on.
            OnDrop::Park => {
                let buf = self.buf.take().map(|buf| Box::new(buf) as Box<dyn Any>);
                driver.park(id, buf, self.orphan);
            }
            // The bug: the slot is forgotten, and `self.buf` is freed when
            // this function returns, under the kernel's feet.
            #[cfg(feature = "naive-drop")]
            OnDrop::Free => driver.park(id, None, self.orphan),
        }
    }
}
// ANCHOR_END: drop

/// Converts a CQE result into `io::Result`.
pub(crate) fn to_io(result: i32) -> io::Result<usize> {
    if result < 0 {
        Err(io::Error::from_raw_os_error(-result))
    } else {
        Ok(result as usize)
    }
}

/// The most one operation asks for: the SQE's length field is 32 bits.
fn clamp(len: usize) -> u32 {
    len.min(u32::MAX as usize) as u32
}

// ANCHOR: read
/// Reads from `fd` into `buf` (from its start, up to its room) and gives
/// `buf` back, filled with what arrived.
pub async fn read<B: IoBufMut>(fd: RawFd, buf: B) -> (io::Result<usize>, B) {
    read_with(fd, buf, OnDrop::Park).await
}

pub(crate) async fn read_with<B: IoBufMut>(
    fd: RawFd,
    mut buf: B,
    on_drop: OnDrop,
) -> (io::Result<usize>, B) {
    let entry = opcode::Read::new(types::Fd(fd), buf.as_mut_ptr(), clamp(buf.room())).build();
    let (result, mut buf) = Op::new(entry, buf, on_drop).await;
    let result = to_io(result);
    if let Ok(n) = result {
        // SAFETY: the kernel wrote n bytes from the start, n <= room.
        unsafe { buf.set_filled(n) };
    }
    (result, buf)
}
// ANCHOR_END: read

/// Writes `buf`'s filled bytes from `offset` on to `fd` (once: the kernel
/// may take fewer) and gives `buf` back.
pub async fn write_from<B: IoBuf>(fd: RawFd, buf: B, offset: usize) -> (io::Result<usize>, B) {
    let offset = offset.min(buf.filled());
    let start = buf.as_ptr().wrapping_add(offset);
    let entry = opcode::Write::new(types::Fd(fd), start, clamp(buf.filled() - offset)).build();
    let (result, buf) = Op::new(entry, buf, OnDrop::Park).await;
    (to_io(result), buf)
}

/// Writes `buf`'s filled bytes to `fd` once (the kernel may take fewer)
/// and gives `buf` back.
pub async fn write<B: IoBuf>(fd: RawFd, buf: B) -> (io::Result<usize>, B) {
    write_from(fd, buf, 0).await
}

// ANCHOR: write_all
/// Writes every filled byte of `buf` to `fd`, resubmitting after short
/// writes, and gives `buf` back.
pub async fn write_all<B: IoBuf>(fd: RawFd, mut buf: B) -> (io::Result<()>, B) {
    let mut written = 0;
    while written < buf.filled() {
        let (result, back) = write_from(fd, buf, written).await;
        buf = back;
        match result {
            Ok(0) => return (Err(io::ErrorKind::WriteZero.into()), buf),
            Ok(n) => written += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return (Err(err), buf),
        }
    }
    (Ok(()), buf)
}
// ANCHOR_END: write_all

/// Accepts a connection on the listening socket `fd`; returns the new
/// socket's descriptor (close-on-exec). If the future is dropped and the
/// accept completes anyway, the driver closes the new socket.
pub async fn accept(fd: RawFd) -> io::Result<RawFd> {
    let entry = opcode::Accept::new(types::Fd(fd), std::ptr::null_mut(), std::ptr::null_mut())
        .flags(libc::SOCK_CLOEXEC)
        .build();
    let (result, ()) = Op::new(entry, (), OnDrop::Park)
        .on_orphan(close_accepted)
        .await;
    to_io(result).map(|fd| fd as RawFd)
}

/// Closes the descriptor an orphaned accept returned.
fn close_accepted(result: i32) {
    if result >= 0 {
        // SAFETY: a successful accept's result is a new descriptor that no
        // one else has seen; its future is gone, so no one ever will.
        unsafe { libc::close(result) };
    }
}
