//! Tests for exercise ch10_cancel_park (`exercises/ch10/cancel_park.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch10/cancel_park.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch10/cancel_park.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod cancel_park;

mod ch10_cancel_park {
    use super::cancel_park::*;
    use std::cell::RefCell;
    use std::future::Future;
    use std::pin::Pin;
    use std::rc::Rc;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};

    const SLOT: usize = 32;
    const POISON: u8 = 0xDD;

    /// Fixed slots that stay allocated for the whole test: a freed slot is
    /// poisoned and handed out again first, as an allocator would, but a
    /// late write into it is visible to the test instead of undefined.
    struct Arena {
        memory: *mut u8,
        free: RefCell<Vec<usize>>,
    }

    impl Arena {
        fn new() -> Rc<Arena> {
            let memory = Box::leak(vec![POISON; 4 * SLOT].into_boxed_slice()).as_mut_ptr();
            Rc::new(Arena {
                memory,
                free: RefCell::new(vec![3, 2, 1, 0]),
            })
        }
        fn alloc(self: &Rc<Arena>) -> Slice {
            let slot = self.free.borrow_mut().pop().unwrap();
            Slice {
                arena: self.clone(),
                slot,
                filled: 0,
            }
        }
        fn ptr(&self, slot: usize) -> *mut u8 {
            self.memory.wrapping_add(slot * SLOT)
        }
        fn bytes(&self, slot: usize) -> Vec<u8> {
            let mut copy = vec![0; SLOT];
            // SAFETY: inside the leaked allocation; nothing writes now.
            unsafe { std::ptr::copy_nonoverlapping(self.ptr(slot), copy.as_mut_ptr(), SLOT) };
            copy
        }
        fn is_free(&self, slot: usize) -> bool {
            self.free.borrow().contains(&slot)
        }
    }

    struct Slice {
        arena: Rc<Arena>,
        slot: usize,
        filled: usize,
    }

    impl Drop for Slice {
        fn drop(&mut self) {
            // SAFETY: our slot, until pushed back below.
            unsafe { std::ptr::write_bytes(self.arena.ptr(self.slot), POISON, SLOT) };
            self.arena.free.borrow_mut().push(self.slot);
        }
    }

    // SAFETY: a slot's address is fixed; the arena is never freed.
    unsafe impl Buffer for Slice {
        fn as_mut_ptr(&mut self) -> *mut u8 {
            self.arena.ptr(self.slot)
        }
        fn room(&self) -> usize {
            SLOT
        }
        unsafe fn set_filled(&mut self, n: usize) {
            self.filled = n;
        }
    }

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Waker, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (Waker::from(count.clone()), count)
    }

    fn poll<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
        Pin::new(future).poll(&mut Context::from_waker(waker))
    }

    /// Plays the kernel: writes `bytes` where submission `index` points,
    /// then posts the completion.
    fn kernel_completes(ring: &Rc<RefCell<Ring>>, index: usize, bytes: &[u8]) {
        let submitted = ring.borrow().submitted[index];
        // SAFETY: the arena's memory outlives the test; whether the slot
        // is still the read's is what the test checks.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), submitted.ptr, bytes.len()) };
        ring.borrow_mut()
            .complete(submitted.user_data, bytes.len() as i32);
    }

    #[test]
    fn a_dropped_read_never_lets_the_kernel_write_into_someone_elses_buffer() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        let (waker, _) = waker();
        let mut read = read(ring.clone(), arena.alloc());
        assert!(poll(&mut read, &waker).is_pending());
        drop(read); // a select chose the other branch
        // The next allocation takes the first free slot.
        let victim = arena.alloc();
        // SAFETY: the victim's own slot.
        unsafe { std::ptr::write_bytes(arena.ptr(victim.slot), b'v', SLOT) };
        kernel_completes(&ring, 0, b"late kernel bytes");
        assert_eq!(
            arena.bytes(victim.slot),
            vec![b'v'; SLOT],
            "the kernel's late write landed in another buffer: the dropped read freed its slot"
        );
    }

    #[test]
    fn the_parked_buffer_is_freed_when_the_completion_arrives_not_before() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        let (waker, woken) = waker();
        let mut read = read(ring.clone(), arena.alloc());
        assert!(poll(&mut read, &waker).is_pending());
        drop(read);
        assert!(!arena.is_free(0), "freed while the kernel may still write");
        assert!(matches!(ring.borrow().slots.get(&0), Some(Slot::Parked(_))));
        kernel_completes(&ring, 0, b"late");
        assert!(arena.is_free(0), "still held after the completion");
        assert!(
            ring.borrow().slots.is_empty(),
            "the slot outlived its operation"
        );
        assert_eq!(woken.0.load(Ordering::SeqCst), 0, "woke a dropped task");
    }

    #[test]
    fn a_read_never_submitted_frees_its_buffer_at_once() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        drop(read(ring.clone(), arena.alloc()));
        assert!(arena.is_free(0));
        assert!(ring.borrow().slots.is_empty());
        // The slot is reused by a read that runs to its end.
        let (waker, _) = waker();
        let mut read = read(ring.clone(), arena.alloc());
        assert!(poll(&mut read, &waker).is_pending());
        kernel_completes(&ring, 0, b"ok");
        let Poll::Ready((result, buf)) = poll(&mut read, &waker) else {
            panic!("pending after its completion");
        };
        assert_eq!((result.unwrap(), buf.slot), (2, 0));
    }

    #[test]
    fn a_read_dropped_after_its_completion_frees_at_once() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        let (waker, woken) = waker();
        let mut read = read(ring.clone(), arena.alloc());
        assert!(poll(&mut read, &waker).is_pending());
        kernel_completes(&ring, 0, b"done");
        assert_eq!(
            woken.0.load(Ordering::SeqCst),
            1,
            "the completion must wake"
        );
        // The completion is in, but the task is dropped before it polls.
        drop(read);
        assert!(arena.is_free(0), "parked although the kernel was done");
        assert!(ring.borrow().slots.is_empty());
    }

    #[test]
    fn a_finished_read_gives_its_buffer_back_and_parks_nothing() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        let (waker, woken) = waker();
        let mut read = read(ring.clone(), arena.alloc());
        assert!(poll(&mut read, &waker).is_pending());
        kernel_completes(&ring, 0, b"hi");
        assert_eq!(woken.0.load(Ordering::SeqCst), 1);
        let Poll::Ready((result, buf)) = poll(&mut read, &waker) else {
            panic!("pending after its completion");
        };
        assert_eq!(result.unwrap(), 2);
        assert_eq!(&arena.bytes(buf.slot)[..2], b"hi");
        drop(read);
        assert!(!arena.is_free(buf.slot), "the caller's buffer was freed");
        drop(buf);
        assert!(arena.is_free(0));
        assert!(ring.borrow().slots.is_empty());
    }

    #[test]
    fn results_come_back_as_counts_or_errnos() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        let (waker, _) = waker();
        let mut eof = read(ring.clone(), arena.alloc());
        let mut failed = read(ring.clone(), arena.alloc());
        assert!(poll(&mut eof, &waker).is_pending());
        assert!(poll(&mut failed, &waker).is_pending());
        ring.borrow_mut().complete(0, 0);
        ring.borrow_mut().complete(1, -libc::ECANCELED);
        let Poll::Ready((result, buf)) = poll(&mut eof, &waker) else {
            panic!("pending after its completion");
        };
        assert_eq!((result.unwrap(), buf.filled), (0, 0));
        let Poll::Ready((result, _)) = poll(&mut failed, &waker) else {
            panic!("pending after its completion");
        };
        assert_eq!(result.unwrap_err().raw_os_error(), Some(libc::ECANCELED));
        assert!(ring.borrow().slots.is_empty());
    }

    #[test]
    fn errors_complete_parked_reads_too() {
        let arena = Arena::new();
        let ring = Rc::new(RefCell::new(Ring::default()));
        let (waker, _) = waker();
        let mut a = read(ring.clone(), arena.alloc());
        let mut b = read(ring.clone(), arena.alloc());
        assert!(poll(&mut a, &waker).is_pending());
        assert!(poll(&mut b, &waker).is_pending());
        drop(a);
        drop(b);
        // A cancelled read completes with -ECANCELED: the end, all the same.
        ring.borrow_mut().complete(1, -libc::ECANCELED);
        assert!(arena.is_free(1) && !arena.is_free(0));
        ring.borrow_mut().complete(0, -libc::ECANCELED);
        assert!(arena.is_free(0));
        assert!(ring.borrow().slots.is_empty());
    }
}
