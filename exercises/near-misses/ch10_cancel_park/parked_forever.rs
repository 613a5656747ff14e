//! Near miss of ch10_cancel_park: the dropped read's buffer is parked, and
//! the completion is routed, but a parked slot is put back instead of
//! freed: every cancelled read leaks its buffer; the tests must catch it
//! because a server that drops reads (timeouts, closed connections) would
//! grow without bound.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// A buffer an operation can own.
///
/// # Safety
///
/// `as_mut_ptr` must stay the same, valid for `room()` bytes, while the
/// value lives, however often it moves.
pub unsafe trait Buffer: 'static {
    /// Where the kernel may write; unchanged when `self` moves.
    fn as_mut_ptr(&mut self) -> *mut u8;
    /// How many bytes the kernel may write.
    fn room(&self) -> usize;
    /// Records that the first `n` bytes hold data.
    ///
    /// # Safety
    ///
    /// The first `n <= room()` bytes must have been written.
    unsafe fn set_filled(&mut self, n: usize);
}

/// A read handed to the "kernel": where to write, how much, its tag.
#[derive(Debug, Clone, Copy)]
pub struct Submitted {
    /// Where the kernel writes.
    pub ptr: *mut u8,
    /// At most this many bytes.
    pub len: usize,
    /// The tag the completion will carry.
    pub user_data: u64,
}

/// One operation the ring knows about.
pub enum Slot {
    /// Submitted, not completed; the waker of the task awaiting it.
    Waiting(Option<Waker>),
    /// Completed; the result waits for the future's next poll.
    Done(i32),
    /// Its future was dropped in flight; the ring holds the buffer until
    /// the completion.
    Parked(Box<dyn Any>),
}

/// The driver's side of the ring, without the kernel: the tests play the
/// kernel, writing into submitted addresses and calling
/// [`Ring::complete`].
#[derive(Default)]
pub struct Ring {
    /// Every read submitted, in order.
    pub submitted: Vec<Submitted>,
    /// The operations not yet finished with, by tag.
    pub slots: HashMap<u64, Slot>,
    next_tag: u64,
}

impl Ring {
    /// Queues a read into `ptr`; returns its tag.
    pub fn submit(&mut self, ptr: *mut u8, len: usize, waker: &Waker) -> u64 {
        let user_data = self.next_tag;
        self.next_tag += 1;
        self.submitted.push(Submitted {
            ptr,
            len,
            user_data,
        });
        self.slots.insert(user_data, Slot::Waiting(Some(waker.clone())));
        user_data
    }

    /// The result of `user_data` if it has completed (the slot is then
    /// forgotten); otherwise keeps `waker`.
    pub fn poll_completion(&mut self, user_data: u64, waker: &Waker) -> Option<i32> {
        match self.slots.get_mut(&user_data) {
            Some(Slot::Done(result)) => {
                let result = *result;
                self.slots.remove(&user_data);
                Some(result)
            }
            Some(Slot::Waiting(stored)) => {
                *stored = Some(waker.clone());
                None
            }
            Some(Slot::Parked(_)) | None => panic!("operation {user_data} is not awaited"),
        }
    }
}

/// A read from the ring into a buffer it owns until the completion.
pub struct OwnedRead<B: Buffer> {
    ring: Rc<RefCell<Ring>>,
    /// The buffer; `None` once given back.
    buf: Option<B>,
    /// The tag, once submitted.
    user_data: Option<u64>,
}

// The buffer is never pinned: its bytes stay put by `Buffer`'s promise.
impl<B: Buffer> Unpin for OwnedRead<B> {}

/// Reads into `buf`; resolves to the result and the buffer.
pub fn read<B: Buffer>(ring: Rc<RefCell<Ring>>, buf: B) -> OwnedRead<B> {
    OwnedRead {
        ring,
        buf: Some(buf),
        user_data: None,
    }
}

impl<B: Buffer> Future for OwnedRead<B> {
    type Output = (io::Result<usize>, B);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut ring = this.ring.borrow_mut();
        let buf = this.buf.as_mut().expect("OwnedRead polled after it completed");
        let Some(user_data) = this.user_data else {
            this.user_data = Some(ring.submit(buf.as_mut_ptr(), buf.room(), cx.waker()));
            return Poll::Pending;
        };
        let Some(result) = ring.poll_completion(user_data, cx.waker()) else {
            return Poll::Pending;
        };
        let mut buf = this.buf.take().expect("checked above");
        if result < 0 {
            return Poll::Ready((Err(io::Error::from_raw_os_error(-result)), buf));
        }
        // SAFETY: the kernel wrote `result` bytes from the start.
        unsafe { buf.set_filled(result as usize) };
        Poll::Ready((Ok(result as usize), buf))
    }
}

impl Ring {
    /// The future of `user_data` was dropped in flight with `buf`.
    pub fn park(&mut self, user_data: u64, buf: Box<dyn Any>) {
        match self.slots.get(&user_data) {
            Some(Slot::Waiting(_)) => {
                self.slots.insert(user_data, Slot::Parked(buf));
            }
            // Done: the kernel has finished; `buf` is freed on return.
            _ => {
                self.slots.remove(&user_data);
            }
        }
    }

    /// The kernel's side: operation `user_data` finished with `result`.
    pub fn complete(&mut self, user_data: u64, result: i32) {
        match self.slots.remove(&user_data) {
            Some(Slot::Waiting(waker)) => {
                self.slots.insert(user_data, Slot::Done(result));
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
            // The buffer is dropped here, after the kernel's last write.
            Some(Slot::Parked(buf)) => {
                self.slots.insert(user_data, Slot::Parked(buf));
            }
            Some(Slot::Done(_)) | None => panic!("operation {user_data} completed twice"),
        }
    }
}

impl<B: Buffer> Drop for OwnedRead<B> {
    fn drop(&mut self) {
        if let (Some(user_data), Some(buf)) = (self.user_data, self.buf.take()) {
            self.ring.borrow_mut().park(user_data, Box::new(buf));
        }
    }
}
