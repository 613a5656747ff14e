//! Tests for exercise ch10_owned_read (`exercises/ch10/owned_read.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch10/owned_read.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch10/owned_read.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod owned_read;

mod ch10_owned_read {
    use super::owned_read::*;
    use std::cell::RefCell;
    use std::future::Future;
    use std::io;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::pin::Pin;
    use std::rc::Rc;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};

    /// Counts its wake-ups.
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting_waker() -> (Waker, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Waker::from(count.clone()), count)
    }

    fn poll<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
        Pin::new(future).poll(&mut Context::from_waker(waker))
    }

    /// Plays the kernel: writes `bytes` where submission `index` points.
    fn kernel_writes(ring: &Rc<RefCell<Ring>>, index: usize, bytes: &[u8]) -> u64 {
        let submitted = ring.borrow().submitted[index];
        assert!(bytes.len() <= submitted.len, "test bug: more than asked");
        // SAFETY: the read's future owns the buffer, alive and unmoved, and
        // the submission says it has `len` bytes of room.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), submitted.ptr, bytes.len()) };
        submitted.user_data
    }

    #[test]
    fn the_first_poll_submits_the_buffers_own_memory_once() {
        let ring = Rc::new(RefCell::new(Ring::default()));
        let mut buf = Vec::with_capacity(4096);
        let heap = Vec::as_mut_ptr(&mut buf);
        let mut read = read(ring.clone(), 7, buf);
        let (waker, _) = counting_waker();
        assert!(poll(&mut read, &waker).is_pending());
        {
            let ring = ring.borrow();
            assert_eq!(ring.submitted.len(), 1);
            let submitted = ring.submitted[0];
            assert_eq!(submitted.fd, 7);
            assert_eq!(submitted.ptr, heap, "not the buffer's own bytes");
            assert_eq!(submitted.len, 4096, "the whole capacity is room");
        }
        // Spurious polls: still pending, never submitted again.
        for _ in 0..3 {
            assert!(poll(&mut read, &waker).is_pending());
        }
        assert_eq!(ring.borrow().submitted.len(), 1);
    }

    #[test]
    fn the_completion_wakes_and_the_buffer_comes_back_filled() {
        let ring = Rc::new(RefCell::new(Ring::default()));
        let mut read = read(ring.clone(), 3, Vec::with_capacity(64));
        let (first, _) = counting_waker();
        assert!(poll(&mut read, &first).is_pending());
        // The task is polled again (with another waker) before the kernel
        // is done: that waker is the one to wake.
        let (second, woken) = counting_waker();
        assert!(poll(&mut read, &second).is_pending());
        let tag = kernel_writes(&ring, 0, b"hello, owner");
        ring.borrow_mut().complete(tag, 12);
        assert_eq!(woken.0.load(Ordering::SeqCst), 1);
        let Poll::Ready((result, buf)) = poll(&mut read, &second) else {
            panic!("pending after its completion");
        };
        assert_eq!(result.unwrap(), 12);
        assert_eq!(buf, b"hello, owner");
        assert_eq!(buf.capacity(), 64, "the same buffer comes back");
    }

    #[test]
    fn end_of_stream_is_zero_bytes_and_an_empty_buffer() {
        let ring = Rc::new(RefCell::new(Ring::default()));
        let mut read = read(ring.clone(), 3, b"stale".to_vec());
        let (waker, _) = counting_waker();
        assert!(poll(&mut read, &waker).is_pending());
        ring.borrow_mut().complete(0, 0);
        let Poll::Ready((result, buf)) = poll(&mut read, &waker) else {
            panic!("pending after its completion");
        };
        assert_eq!(result.unwrap(), 0);
        assert!(buf.is_empty());
    }

    #[test]
    fn a_negative_result_is_an_errno_and_the_buffer_is_untouched() {
        let ring = Rc::new(RefCell::new(Ring::default()));
        let mut read = read(ring.clone(), 3, b"keep".to_vec());
        let (waker, _) = counting_waker();
        assert!(poll(&mut read, &waker).is_pending());
        ring.borrow_mut().complete(0, -libc::ECONNRESET);
        let Poll::Ready((result, buf)) = poll(&mut read, &waker) else {
            panic!("pending after its completion");
        };
        let err = result.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
        assert_eq!(err.raw_os_error(), Some(libc::ECONNRESET));
        assert_eq!(buf, b"keep");
    }

    #[test]
    fn two_reads_get_their_own_completions() {
        let ring = Rc::new(RefCell::new(Ring::default()));
        let mut a = read(ring.clone(), 1, Vec::with_capacity(8));
        let mut b = read(ring.clone(), 2, Vec::with_capacity(8));
        let (waker, _) = counting_waker();
        assert!(poll(&mut a, &waker).is_pending());
        assert!(poll(&mut b, &waker).is_pending());
        // The kernel finishes them in the other order.
        let tag_b = kernel_writes(&ring, 1, b"bb");
        ring.borrow_mut().complete(tag_b, 2);
        assert!(poll(&mut a, &waker).is_pending());
        let Poll::Ready((result, buf)) = poll(&mut b, &waker) else {
            panic!("b is done");
        };
        assert_eq!((result.unwrap(), buf), (2, b"bb".to_vec()));
        let tag_a = kernel_writes(&ring, 0, b"a");
        ring.borrow_mut().complete(tag_a, 1);
        let Poll::Ready((result, buf)) = poll(&mut a, &waker) else {
            panic!("a is done");
        };
        assert_eq!((result.unwrap(), buf), (1, b"a".to_vec()));
    }

    #[test]
    fn polling_after_ready_panics() {
        let ring = Rc::new(RefCell::new(Ring::default()));
        let mut read = read(ring.clone(), 3, Vec::with_capacity(8));
        let (waker, _) = counting_waker();
        assert!(poll(&mut read, &waker).is_pending());
        ring.borrow_mut().complete(0, 0);
        assert!(poll(&mut read, &waker).is_ready());
        let again = catch_unwind(AssertUnwindSafe(|| poll(&mut read, &waker).is_ready()));
        assert!(again.is_err(), "polled after Ready without a panic");
        assert_eq!(ring.borrow().submitted.len(), 1);
    }
}
