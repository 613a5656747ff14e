//! Reference solution for ch10_owned_read.

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

// SAFETY: a Vec's bytes are on the heap; moving the Vec does not move them.
unsafe impl Buffer for Vec<u8> {
    fn as_mut_ptr(&mut self) -> *mut u8 {
        Vec::as_mut_ptr(self)
    }
    fn room(&self) -> usize {
        self.capacity()
    }
    unsafe fn set_filled(&mut self, n: usize) {
        // SAFETY: passed on from the caller.
        unsafe { self.set_len(n) }
    }
}

/// A read handed to the "kernel": where to write, how much, its tag.
#[derive(Debug, Clone, Copy)]
pub struct Submitted {
    /// The file descriptor.
    pub fd: i32,
    /// Where the kernel writes.
    pub ptr: *mut u8,
    /// At most this many bytes.
    pub len: usize,
    /// The tag the completion will carry.
    pub user_data: u64,
}

/// The driver's side of the ring, without the kernel: reads are recorded in
/// `submitted`, and whoever plays the kernel calls [`Ring::complete`].
#[derive(Debug, Default)]
pub struct Ring {
    /// Every read submitted, in order.
    pub submitted: Vec<Submitted>,
    completions: HashMap<u64, i32>,
    wakers: HashMap<u64, Waker>,
    next_tag: u64,
}

impl Ring {
    /// Queues a read of at most `len` bytes into `ptr`; returns its tag.
    pub fn submit(&mut self, fd: i32, ptr: *mut u8, len: usize) -> u64 {
        let user_data = self.next_tag;
        self.next_tag += 1;
        self.submitted.push(Submitted {
            fd,
            ptr,
            len,
            user_data,
        });
        user_data
    }

    /// The kernel's side: the operation `user_data` finished with `result`
    /// (bytes, or `-errno`); wakes the task waiting for it.
    pub fn complete(&mut self, user_data: u64, result: i32) {
        self.completions.insert(user_data, result);
        if let Some(waker) = self.wakers.remove(&user_data) {
            waker.wake();
        }
    }

    /// The result of `user_data` if it has completed (taken: asking twice
    /// gives `None`); otherwise keeps `waker` to wake on completion.
    pub fn poll_completion(&mut self, user_data: u64, waker: &Waker) -> Option<i32> {
        let result = self.completions.remove(&user_data);
        if result.is_none() {
            self.wakers.insert(user_data, waker.clone());
        }
        result
    }
}

/// A read from `fd` into a buffer it owns until the completion.
pub struct OwnedRead<B: Buffer> {
    ring: Rc<RefCell<Ring>>,
    fd: i32,
    /// The buffer; `None` once it has been given back.
    buf: Option<B>,
    /// The tag, once submitted.
    user_data: Option<u64>,
}

// The buffer is never pinned: its bytes stay put by `Buffer`'s promise.
impl<B: Buffer> Unpin for OwnedRead<B> {}

/// Reads from `fd` into `buf`; resolves to the result and the buffer.
pub fn read<B: Buffer>(ring: Rc<RefCell<Ring>>, fd: i32, buf: B) -> OwnedRead<B> {
    OwnedRead {
        ring,
        fd,
        buf: Some(buf),
        user_data: None,
    }
}

impl<B: Buffer> Future for OwnedRead<B> {
    type Output = (io::Result<usize>, B);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut ring = this.ring.borrow_mut();
        let buf = this
            .buf
            .as_mut()
            .expect("OwnedRead polled after it completed");
        let Some(user_data) = this.user_data else {
            this.user_data = Some(ring.submit(this.fd, buf.as_mut_ptr(), buf.room()));
            return Poll::Pending;
        };
        let Some(result) = ring.poll_completion(user_data, cx.waker()) else {
            return Poll::Pending;
        };
        let mut buf = this.buf.take().expect("checked above");
        if result < 0 {
            return Poll::Ready((Err(io::Error::from_raw_os_error(-result)), buf));
        }
        let n = result as usize;
        // SAFETY: the kernel reports n bytes written from the start, n <= room.
        unsafe { buf.set_filled(n) };
        Poll::Ready((Ok(n), buf))
    }
}
