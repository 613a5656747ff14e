//! Each worker's local run queue: a fixed ring of 256 slots that its owner
//! pushes to and pops from without locks, and that other workers steal half
//! of when they run dry.
//!
//! Only the owner writes `tail` (it pushes at the tail). Both the owner (pop)
//! and thieves (steal) take from the head, so the head moves by
//! compare-and-swap. A steal copies up to 128 tasks, which takes a while, and
//! during that time the owner must neither pop those slots twice nor push
//! over them. So the head is two numbers packed into one `AtomicU64`:
//!
//! ```text
//!           head: AtomicU64                            tail: AtomicU32
//!   +----------------+----------------+
//!   |  steal (u32)   |   real (u32)   |
//!   +----------------+----------------+
//!
//!   buffer  [ . . . | s s s s | o o o o o o o | . . . ]
//!                   ^         ^               ^
//!                 steal      real            tail
//!
//!   s: slots a thief has claimed and is copying out
//!   o: tasks the owner may still pop (and thieves may claim)
//! ```
//!
//! * With no steal in progress, `steal == real`.
//! * A thief claims by moving `real` forward by half the queue (one CAS,
//!   `steal` stays), copies the claimed tasks into its own queue, then sets
//!   `steal = real` (a second CAS) to release the slots.
//! * The owner pops by moving `real` forward (and `steal` with it, when no
//!   steal is in progress), and pushes only while `tail - steal < 256`, so it
//!   never overwrites a slot a thief is still copying.
//! * Only one thief at a time: a thief that sees `steal != real` gives up.
//!
//! When the ring is full the owner moves half of it, plus the new task, to
//! the shared inject queue in one batch (one lock instead of 129).
//!
//! Indices are `u32` that wrap; a slot is `index % 256`. All of this is the
//! design of Tokio's queue (itself after Go's scheduler), written anew here.
//!
//! Book: Chapter 7, "The run queue: a ring with two heads".

use crate::loom::{Arc, AtomicU32, AtomicU64, Ordering, UnsafeCell};
use std::mem::MaybeUninit;

/// Slots per worker. A power of two (so `index % CAPACITY` is a mask), small
/// enough that the ring (2 KiB of pointers) stays in L1, large enough that a
/// burst of spawns rarely overflows to the shared queue. Loom explores every
/// interleaving, so under loom it is 4.
#[cfg(not(loom))]
pub(crate) const CAPACITY: usize = 256;
#[cfg(loom)]
pub(crate) const CAPACITY: usize = 4;

const MASK: usize = CAPACITY - 1;

/// How many tasks overflow moves out (plus the new one).
const HALF: u32 = (CAPACITY / 2) as u32;

/// What receives the overflow of a full ring (the inject queue).
pub(crate) trait Overflow<T> {
    /// Pushes one task.
    fn push(&self, task: T);
    /// Pushes a batch of tasks under one lock.
    fn push_batch(&self, tasks: impl Iterator<Item = T>);
}

struct RingBuffer<T> {
    /// `steal` in the high 32 bits, `real` in the low 32 bits.
    head: AtomicU64,
    /// Written only by the owner.
    tail: AtomicU32,
    buffer: Box<[UnsafeCell<MaybeUninit<T>>]>,
}

/// The owner's end: push and pop. Not `Clone`: one owner.
pub(crate) struct Local<T> {
    inner: Arc<RingBuffer<T>>,
}

/// A thief's end: steal half.
pub(crate) struct Steal<T>(Arc<RingBuffer<T>>);

// SAFETY: the tasks move between threads (T: Send), and every slot is
// accessed by one thread at a time, as the packed head arbitrates.
unsafe impl<T: Send> Send for RingBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for RingBuffer<T> {}

/// Creates a queue's two ends.
pub(crate) fn local<T>() -> (Steal<T>, Local<T>) {
    let buffer = (0..CAPACITY)
        .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
        .collect::<Vec<_>>()
        .into_boxed_slice();
    let inner = Arc::new(RingBuffer {
        head: AtomicU64::new(0),
        tail: AtomicU32::new(0),
        buffer,
    });
    (Steal(inner.clone()), Local { inner })
}

fn pack(steal: u32, real: u32) -> u64 {
    (u64::from(steal) << 32) | u64::from(real)
}

fn unpack(head: u64) -> (u32, u32) {
    ((head >> 32) as u32, head as u32)
}

impl<T> RingBuffer<T> {
    fn len(&self) -> usize {
        let (_, real) = unpack(self.head.load(Ordering::Acquire));
        let tail = self.tail.load(Ordering::Acquire);
        tail.wrapping_sub(real) as usize
    }

    /// Moves the value out of a slot.
    ///
    /// # Safety
    ///
    /// The caller has claimed `index` (by moving `real` past it) and the slot
    /// was written.
    unsafe fn take(&self, index: u32) -> T {
        // SAFETY: per the caller's contract the slot holds a value that no
        // other thread reads or writes.
        self.buffer[index as usize & MASK].with(|ptr| unsafe { (*ptr).assume_init_read() })
    }

    /// Writes a value into a slot.
    ///
    /// # Safety
    ///
    /// The slot is free: outside `[steal, tail)`, and only the owner writes.
    unsafe fn put(&self, index: u32, task: T) {
        // SAFETY: per the caller's contract nobody else touches the slot.
        self.buffer[index as usize & MASK].with_mut(|ptr| unsafe { (*ptr).write(task) });
    }
}

impl<T> Local<T> {
    /// Tasks in the queue (a snapshot).
    pub(crate) fn len(&self) -> usize {
        self.inner.len()
    }

    /// True if the queue holds no task.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Free slots, counting those a thief is still copying out as taken.
    pub(crate) fn remaining_slots(&self) -> usize {
        let (steal, _) = unpack(self.inner.head.load(Ordering::Acquire));
        let tail = self.inner.tail.load(Ordering::Relaxed);
        CAPACITY - tail.wrapping_sub(steal) as usize
    }

    /// Pushes a task at the tail if there is room; gives it back otherwise.
    pub(crate) fn push_back_if_room(&mut self, task: T) -> Result<(), T> {
        let (steal, _) = unpack(self.inner.head.load(Ordering::Acquire));
        let tail = self.inner.tail.load(Ordering::Relaxed);
        if tail.wrapping_sub(steal) >= CAPACITY as u32 {
            return Err(task);
        }
        // SAFETY: the slot at `tail` is outside [steal, tail).
        unsafe { self.inner.put(tail, task) };
        self.inner
            .tail
            .store(tail.wrapping_add(1), Ordering::Release);
        Ok(())
    }

    /// Pushes a task at the tail; if the ring is full, moves half of it and
    /// the task to `overflow`. Returns true if it overflowed.
    // ANCHOR: push
    pub(crate) fn push_back_or_overflow(
        &mut self,
        mut task: T,
        overflow: &impl Overflow<T>,
    ) -> bool {
        loop {
            let (steal, real) = unpack(self.inner.head.load(Ordering::Acquire));
            // Only this thread writes tail.
            let tail = self.inner.tail.load(Ordering::Relaxed);
            if tail.wrapping_sub(steal) < CAPACITY as u32 {
                // SAFETY: the slot at `tail` is outside [steal, tail): no
                // thief is copying it and no task lives there.
                unsafe { self.inner.put(tail, task) };
                // Release: a thief that reads this tail sees the task.
                self.inner
                    .tail
                    .store(tail.wrapping_add(1), Ordering::Release);
                return false;
            }
            if steal != real {
                // Full only because a thief is mid-copy; it will free half
                // the ring in a moment. Don't wait: send this one task out.
                overflow.push(task);
                return true;
            }
            match self.push_overflow(task, real, tail, overflow) {
                Ok(()) => return true,
                // A thief took some tasks meanwhile: there is room now.
                Err(returned) => task = returned,
            }
        }
    }
    // ANCHOR_END: push

    /// Moves the newer half of a full ring and `task` to `overflow`.
    ///
    /// The older half stays: those tasks have waited longest, and tasks the
    /// worker just took from the inject queue are among them, so a task is
    /// never bounced back to the inject queue before it was polled.
    fn push_overflow(
        &mut self,
        task: T,
        head: u32,
        tail: u32,
        overflow: &impl Overflow<T>,
    ) -> Result<(), T> {
        debug_assert_eq!(tail.wrapping_sub(head) as usize, CAPACITY);
        // ANCHOR: overflow
        // Claim every task at once, so no thief can take any of them while
        // we split. Fails if a thief moved the head since we read it.
        if self
            .inner
            .head
            .compare_exchange(
                pack(head, head),
                pack(tail, tail),
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_err()
        {
            return Err(task);
        }
        // Give the older half back: positions [tail, tail + HALF) are the
        // same slots as [head, head + HALF), which still hold those tasks.
        self.inner
            .tail
            .store(tail.wrapping_add(HALF), Ordering::Release);
        // The newer half, [head + HALF, tail), is ours alone now.
        let inner = &self.inner;
        let newer = (0..HALF).map(move |i| {
            // SAFETY: claimed by the CAS above and not given back.
            unsafe { inner.take(head.wrapping_add(HALF).wrapping_add(i)) }
        });
        overflow.push_batch(newer.chain(std::iter::once(task)));
        // ANCHOR_END: overflow
        Ok(())
    }

    /// Pops the task at the head (the oldest).
    pub(crate) fn pop(&mut self) -> Option<T> {
        let mut head = self.inner.head.load(Ordering::Acquire);
        let index = loop {
            let (steal, real) = unpack(head);
            let tail = self.inner.tail.load(Ordering::Relaxed);
            if real == tail {
                return None;
            }
            let next_real = real.wrapping_add(1);
            // With a steal in progress, `steal` must stay where the thief put it.
            let next = if steal == real {
                pack(next_real, next_real)
            } else {
                pack(steal, next_real)
            };
            match self.inner.head.compare_exchange_weak(
                head,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break real,
                Err(actual) => head = actual,
            }
        };
        // SAFETY: the CAS moved `real` past `index`: the slot is ours.
        Some(unsafe { self.inner.take(index) })
    }
}

impl<T> Steal<T> {
    /// True if the queue looks empty (a snapshot).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// Steals half of this queue's tasks into `dst` (the thief's own queue),
    /// and returns one of them to run at once.
    pub(crate) fn steal_into(&self, dst: &mut Local<T>) -> Option<T> {
        let dst_tail = dst.inner.tail.load(Ordering::Relaxed);
        // Don't steal into a queue that is more than half full: the thief has
        // work, and the stolen half might not fit.
        let (dst_steal, _) = unpack(dst.inner.head.load(Ordering::Acquire));
        if dst_tail.wrapping_sub(dst_steal) > HALF {
            return None;
        }

        let mut n = self.steal_into_inner(dst, dst_tail);
        if n == 0 {
            return None;
        }
        // Run the last stolen task now; publish the others.
        n -= 1;
        let ret_pos = dst_tail.wrapping_add(n);
        // SAFETY: we just wrote this slot of our own queue and have not
        // published it (tail is unchanged), so nobody else can see it.
        let ret = unsafe { dst.inner.take(ret_pos) };
        if n > 0 {
            dst.inner
                .tail
                .store(dst_tail.wrapping_add(n), Ordering::Release);
        }
        Some(ret)
    }

    /// Claims half of the tasks, copies them to `dst` from `dst_tail`, and
    /// releases the claim. Returns how many were copied.
    fn steal_into_inner(&self, dst: &mut Local<T>, dst_tail: u32) -> u32 {
        // ANCHOR: steal_claim
        let mut prev = self.0.head.load(Ordering::Acquire);
        let (first, n, claimed) = loop {
            let (steal, real) = unpack(prev);
            if steal != real {
                // Another thief is copying.
                return 0;
            }
            let tail = self.0.tail.load(Ordering::Acquire);
            let available = tail.wrapping_sub(real);
            let n = available - available / 2;
            if n == 0 {
                return 0;
            }
            // Move `real` past the claimed tasks; `steal` stays at their start.
            let next = pack(steal, real.wrapping_add(n));
            match self
                .0
                .head
                .compare_exchange_weak(prev, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break (real, n, next),
                Err(actual) => prev = actual,
            }
        };
        debug_assert!(n <= HALF, "stole {n}, more than half");
        // ANCHOR_END: steal_claim

        for i in 0..n {
            // SAFETY: [first, first + n) was claimed by the CAS above; the
            // owner cannot pop it (real moved) or overwrite it (steal holds).
            let task = unsafe { self.0.take(first.wrapping_add(i)) };
            // SAFETY: the destination is our own queue, which had at least
            // HALF free slots (checked by the caller); the slots are beyond
            // its tail, so no thief can see them yet.
            unsafe { dst.inner.put(dst_tail.wrapping_add(i), task) };
        }

        // ANCHOR: steal_release
        // Release the claim: steal catches up with real. The owner may have
        // popped meanwhile (moving real), so retry with what we see.
        let mut prev = claimed;
        loop {
            let (_, real) = unpack(prev);
            match self.0.head.compare_exchange_weak(
                prev,
                pack(real, real),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return n,
                Err(actual) => {
                    let (steal, real) = unpack(actual);
                    debug_assert_ne!(steal, real, "the claim vanished");
                    prev = actual;
                }
            }
        }
        // ANCHOR_END: steal_release
    }
}

impl<T> Clone for Steal<T> {
    fn clone(&self) -> Steal<T> {
        Steal(self.0.clone())
    }
}

impl<T> Drop for Local<T> {
    fn drop(&mut self) {
        // The runtime drains its queues at shutdown; a leftover here is a
        // bug, but dropping the tasks beats leaking them.
        while self.pop().is_some() {}
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// An overflow that records what it received.
    #[derive(Default)]
    struct Recorder(RefCell<Vec<Vec<u32>>>);

    impl Overflow<Box<u32>> for Recorder {
        fn push(&self, task: Box<u32>) {
            self.0.borrow_mut().push(vec![*task]);
        }
        fn push_batch(&self, tasks: impl Iterator<Item = Box<u32>>) {
            self.0.borrow_mut().push(tasks.map(|t| *t).collect());
        }
    }

    #[test]
    fn pops_in_push_order() {
        let (_, mut local) = local();
        let overflow = Recorder::default();
        for i in 0..10 {
            assert!(!local.push_back_or_overflow(Box::new(i), &overflow));
        }
        assert_eq!(local.len(), 10);
        let popped: Vec<u32> = std::iter::from_fn(|| local.pop()).map(|b| *b).collect();
        assert_eq!(popped, (0..10).collect::<Vec<_>>());
        assert!(local.is_empty());
    }

    #[test]
    fn a_full_ring_sends_its_newer_half_and_the_new_task_out_in_one_batch() {
        let (_, mut local) = local();
        let overflow = Recorder::default();
        for i in 0..CAPACITY as u32 {
            assert!(!local.push_back_or_overflow(Box::new(i), &overflow));
        }
        assert!(local.push_back_or_overflow(Box::new(999), &overflow));
        let batches = overflow.0.borrow();
        assert_eq!(batches.len(), 1, "one batch, one lock");
        let expected: Vec<u32> = (HALF..CAPACITY as u32).chain([999]).collect();
        assert_eq!(batches[0], expected);
        // The older half stayed, in order.
        let kept: Vec<u32> = std::iter::from_fn(|| local.pop()).map(|b| *b).collect();
        assert_eq!(kept, (0..HALF).collect::<Vec<_>>());
    }

    #[test]
    fn steal_takes_half_rounded_up_and_returns_one_to_run() {
        let (steal, mut victim) = local();
        let (_, mut thief) = local::<Box<u32>>();
        let overflow = Recorder::default();
        for i in 0..7 {
            victim.push_back_or_overflow(Box::new(i), &overflow);
        }
        let first = steal.steal_into(&mut thief).expect("stole");
        // 4 stolen: 0..4; the last of them is returned, 3 are queued.
        assert_eq!(*first, 3);
        assert_eq!(thief.len(), 3);
        assert_eq!(victim.len(), 3);
        let thief_tasks: Vec<u32> = std::iter::from_fn(|| thief.pop()).map(|b| *b).collect();
        assert_eq!(thief_tasks, vec![0, 1, 2]);
        let victim_tasks: Vec<u32> = std::iter::from_fn(|| victim.pop()).map(|b| *b).collect();
        assert_eq!(victim_tasks, vec![4, 5, 6]);
        assert!(
            steal.steal_into(&mut thief).is_none(),
            "nothing left to steal"
        );
    }

    #[test]
    fn a_thief_with_a_half_full_queue_does_not_steal() {
        let (steal, mut victim) = local();
        let (_, mut thief) = local::<Box<u32>>();
        let overflow = Recorder::default();
        for i in 0..10 {
            victim.push_back_or_overflow(Box::new(i), &overflow);
        }
        for i in 0..=HALF {
            thief.push_back_or_overflow(Box::new(i), &overflow);
        }
        assert!(steal.steal_into(&mut thief).is_none());
        assert_eq!(victim.len(), 10);
    }

    #[test]
    fn indices_wrap_around_u32() {
        let (_, mut thief) = local::<Box<u32>>();
        let (steal, mut local) = local();
        // Start near the end of the u32 range.
        let start = u32::MAX - 5;
        local
            .inner
            .head
            .store(pack(start, start), Ordering::Relaxed);
        local.inner.tail.store(start, Ordering::Relaxed);
        let overflow = Recorder::default();
        for i in 0..12 {
            local.push_back_or_overflow(Box::new(i), &overflow);
        }
        assert_eq!(local.len(), 12);
        assert!(steal.steal_into(&mut thief).is_some());
        let mut all: Vec<u32> = std::iter::from_fn(|| local.pop()).map(|b| *b).collect();
        all.extend(std::iter::from_fn(|| thief.pop()).map(|b| *b));
        assert_eq!(all.len(), 11);
    }

    #[test]
    fn remaining_slots_counts_down_to_zero() {
        let (_, mut local) = local::<Box<u32>>();
        let overflow = Recorder::default();
        for i in 0..CAPACITY as u32 {
            assert_eq!(local.remaining_slots(), CAPACITY - i as usize);
            local.push_back_or_overflow(Box::new(i), &overflow);
        }
        assert_eq!(local.remaining_slots(), 0);
        assert_eq!(local.len(), CAPACITY);
    }

    #[test]
    fn dropping_a_queue_drops_its_tasks() {
        let counter = std::sync::Arc::new(());
        let (_, mut local) = local();
        let overflow = Vec::<std::sync::Arc<()>>::new();
        struct DropOverflow;
        impl Overflow<std::sync::Arc<()>> for DropOverflow {
            fn push(&self, _: std::sync::Arc<()>) {}
            fn push_batch(&self, _: impl Iterator<Item = std::sync::Arc<()>>) {}
        }
        for _ in 0..5 {
            local.push_back_or_overflow(counter.clone(), &DropOverflow);
        }
        drop(overflow);
        assert_eq!(std::sync::Arc::strong_count(&counter), 6);
        drop(local);
        assert_eq!(std::sync::Arc::strong_count(&counter), 1);
    }

    /// Two threads: the owner pushes and pops, a thief steals; every task
    /// comes out exactly once.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "a million operations is too slow under Miri; the loom models cover the races"
    )]
    fn concurrent_push_pop_steal_loses_and_duplicates_nothing() {
        use std::sync::Mutex;
        const N: u32 = 200_000;
        let (steal, mut owner) = local::<u32>();
        struct OverflowLog(Mutex<Vec<u32>>);
        impl Overflow<u32> for OverflowLog {
            fn push(&self, task: u32) {
                self.0.lock().unwrap().push(task);
            }
            fn push_batch(&self, tasks: impl Iterator<Item = u32>) {
                self.0.lock().unwrap().extend(tasks);
            }
        }
        let overflow = std::sync::Arc::new(OverflowLog(Mutex::new(Vec::new())));
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thief = {
            let done = done.clone();
            std::thread::spawn(move || {
                let (_, mut mine) = local::<u32>();
                let mut got = Vec::new();
                loop {
                    let finished = done.load(Ordering::Acquire);
                    if let Some(task) = steal.steal_into(&mut mine) {
                        got.push(task);
                    }
                    got.extend(std::iter::from_fn(|| mine.pop()));
                    if finished && steal.is_empty() {
                        return got;
                    }
                }
            })
        };
        let mut got = Vec::new();
        for i in 0..N {
            owner.push_back_or_overflow(i, &*overflow);
            if i % 3 == 0 {
                got.extend(owner.pop());
            }
        }
        got.extend(std::iter::from_fn(|| owner.pop()));
        done.store(true, Ordering::Release);
        got.extend(thief.join().unwrap());
        got.extend(overflow.0.lock().unwrap().drain(..));
        got.sort_unstable();
        assert_eq!(got, (0..N).collect::<Vec<_>>());
    }
}

#[cfg(all(test, loom))]
mod loom_queue {
    use super::*;
    use crate::loom::{Mutex, thread};

    /// The inject queue stand-in: a locked vector.
    #[derive(Default)]
    struct OverflowSink(Mutex<Vec<usize>>);

    impl Overflow<usize> for OverflowSink {
        fn push(&self, task: usize) {
            self.0.lock().push(task);
        }
        fn push_batch(&self, tasks: impl Iterator<Item = usize>) {
            self.0.lock().extend(tasks);
        }
    }

    fn drain(local: &mut Local<usize>) -> Vec<usize> {
        std::iter::from_fn(|| local.pop()).collect()
    }

    /// A thief on another thread: one steal into its own ring, and all it
    /// got (the task handed back and the ones moved into its ring).
    fn spawn_thief(steal: &Steal<usize>) -> thread::JoinHandle<Vec<usize>> {
        let steal = steal.clone();
        thread::spawn(move || {
            let (_, mut mine) = local::<usize>();
            let mut got: Vec<usize> = steal.steal_into(&mut mine).into_iter().collect();
            got.extend(drain(&mut mine));
            got
        })
    }

    /// The owner pushes and pops while a thief steals: every task comes out
    /// exactly once.
    #[test]
    fn loom_push_pop_steal() {
        loom::model(|| {
            let (steal, mut owner) = local::<usize>();
            let sink = Arc::new(OverflowSink::default());
            let thief = spawn_thief(&steal);
            let mut got = Vec::new();
            for i in 0..3 {
                owner.push_back_or_overflow(i, &*sink);
            }
            got.extend(owner.pop());
            got.extend(drain(&mut owner));
            got.extend(thief.join().unwrap());
            got.extend(sink.0.lock().drain(..));
            got.sort_unstable();
            assert_eq!(got, vec![0, 1, 2]);
        });
    }

    /// The owner fills the ring past capacity while a thief steals: overflow
    /// and steal race for the same head.
    #[test]
    fn loom_overflow_during_steal() {
        loom::model(|| {
            let (steal, mut owner) = local::<usize>();
            let sink = Arc::new(OverflowSink::default());
            for i in 0..CAPACITY {
                owner.push_back_or_overflow(i, &*sink);
            }
            let thief = spawn_thief(&steal);
            owner.push_back_or_overflow(CAPACITY, &*sink);
            owner.push_back_or_overflow(CAPACITY + 1, &*sink);
            let mut got = drain(&mut owner);
            got.extend(thief.join().unwrap());
            got.extend(sink.0.lock().drain(..));
            got.sort_unstable();
            assert_eq!(got, (0..CAPACITY + 2).collect::<Vec<_>>());
        });
    }

    /// Two thieves on a full victim that keeps pushing: the owner must never
    /// write over a slot a thief is still copying.
    #[test]
    fn loom_two_thieves_and_a_pushing_owner() {
        loom::model(|| {
            let (steal, mut owner) = local::<usize>();
            let sink = Arc::new(OverflowSink::default());
            for i in 0..CAPACITY {
                owner.push_back_or_overflow(i, &*sink);
            }
            let thieves: Vec<_> = (0..2).map(|_| spawn_thief(&steal)).collect();
            owner.push_back_or_overflow(CAPACITY, &*sink);
            let mut got = drain(&mut owner);
            for thief in thieves {
                got.extend(thief.join().unwrap());
            }
            got.extend(sink.0.lock().drain(..));
            got.sort_unstable();
            assert_eq!(got, (0..=CAPACITY).collect::<Vec<_>>());
        });
    }

    /// Two thieves on one victim: at most one copies at a time, nothing is
    /// duplicated.
    #[test]
    fn loom_two_thieves() {
        loom::model(|| {
            let (steal, mut owner) = local::<usize>();
            let sink = OverflowSink::default();
            for i in 0..4 {
                owner.push_back_or_overflow(i, &sink);
            }
            let thieves: Vec<_> = (0..2).map(|_| spawn_thief(&steal)).collect();
            let mut got = drain(&mut owner);
            for thief in thieves {
                got.extend(thief.join().unwrap());
            }
            got.sort_unstable();
            assert_eq!(got, vec![0, 1, 2, 3]);
        });
    }
}

/// The ring against a plain model: a `VecDeque` per queue and one for the
/// inject queue. Two workers' rings, driven one operation at a time
/// (concurrent interleavings are loom's job, above): push with overflow,
/// push if room, pop, steal half either way, and the inject queue popped.
/// The rings may start at any index, so the `u32` positions wrap.
#[cfg(all(test, not(loom)))]
mod proptests {
    use super::super::super::inject::Inject;
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    /// Both ends of a ring whose head and tail start at `start`.
    fn local_at(start: u32) -> (Steal<u32>, Local<u32>) {
        let buffer = (0..CAPACITY)
            .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
            .collect::<Vec<_>>()
            .into_boxed_slice();
        let inner = Arc::new(RingBuffer {
            head: AtomicU64::new(pack(start, start)),
            tail: AtomicU32::new(start),
            buffer,
        });
        (Steal(inner.clone()), Local { inner })
    }

    #[derive(Debug, Clone)]
    enum Op {
        /// Push `n` tasks (1..=300: enough to fill a ring) with overflow.
        Push(usize, u16),
        PushIfRoom(usize),
        Pop(usize),
        /// The other worker steals from worker `n`.
        Steal(usize),
        /// A worker takes from the inject queue.
        PopInject,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0usize..2, 1u16..=300).prop_map(|(q, n)| Op::Push(q, n)),
            1 => (0usize..2).prop_map(Op::PushIfRoom),
            3 => (0usize..2).prop_map(Op::Pop),
            2 => (0usize..2).prop_map(Op::Steal),
            1 => Just(Op::PopInject),
        ]
    }

    fn run(starts: [u32; 2], ops: Vec<Op>) -> Result<(), TestCaseError> {
        let (s0, l0) = local_at(starts[0]);
        let (s1, l1) = local_at(starts[1]);
        let steals = [s0, s1];
        let mut locals = [l0, l1];
        let inject = Inject::new();
        let mut model: [VecDeque<u32>; 2] = [VecDeque::new(), VecDeque::new()];
        let mut model_inject: VecDeque<u32> = VecDeque::new();
        let mut next = 0u32;
        for op in ops {
            match op {
                Op::Push(q, n) => {
                    for _ in 0..n {
                        let task = next;
                        next += 1;
                        let overflowed = locals[q].push_back_or_overflow(task, &inject);
                        if model[q].len() < CAPACITY {
                            prop_assert!(!overflowed);
                            model[q].push_back(task);
                        } else {
                            // The newer half and the new task, in order.
                            prop_assert!(overflowed);
                            let newer = model[q].split_off(CAPACITY - HALF as usize);
                            model_inject.extend(newer);
                            model_inject.push_back(task);
                        }
                    }
                }
                Op::PushIfRoom(q) => {
                    let task = next;
                    next += 1;
                    let result = locals[q].push_back_if_room(task);
                    if model[q].len() < CAPACITY {
                        prop_assert_eq!(result, Ok(()));
                        model[q].push_back(task);
                    } else {
                        prop_assert_eq!(result, Err(task));
                    }
                }
                Op::Pop(q) => prop_assert_eq!(locals[q].pop(), model[q].pop_front()),
                Op::Steal(victim) => {
                    let thief = 1 - victim;
                    let [a, b] = &mut locals;
                    let dst = if thief == 0 { a } else { b };
                    let got = steals[victim].steal_into(dst);
                    // Refused into a queue more than half full; otherwise
                    // the older half, rounded up, the last of it returned.
                    let n = model[victim].len();
                    let expected = if model[thief].len() > HALF as usize || n == 0 {
                        None
                    } else {
                        let take = n - n / 2;
                        let mut stolen: VecDeque<u32> = model[victim].drain(..take).collect();
                        let last = stolen.pop_back();
                        model[thief].extend(stolen);
                        last
                    };
                    prop_assert_eq!(got, expected);
                }
                Op::PopInject => prop_assert_eq!(inject.pop(), model_inject.pop_front()),
            }
            for q in 0..2 {
                prop_assert_eq!(locals[q].len(), model[q].len());
                prop_assert_eq!(locals[q].remaining_slots(), CAPACITY - model[q].len());
                prop_assert_eq!(steals[q].is_empty(), model[q].is_empty());
            }
            prop_assert_eq!(inject.len(), model_inject.len());
        }
        // What is left comes out in the model's order: nothing lost or
        // duplicated.
        for q in 0..2 {
            let rest: Vec<u32> = std::iter::from_fn(|| locals[q].pop()).collect();
            prop_assert_eq!(rest, Vec::from(std::mem::take(&mut model[q])));
        }
        prop_assert_eq!(inject.drain(), Vec::from(model_inject));
        Ok(())
    }

    proptest! {
        // CI: 256 cases of up to 48 operations (a push is up to 300
        // tasks), about 0.7 s in a debug build.
        // No regression files in the source tree: a failure prints its
        // shrunk case, which becomes a plain unit test.
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::with_cases(256)
        })]
        #[test]
        #[cfg_attr(miri, ignore = "thousands of pushes per case: minutes under Miri")]
        fn the_ring_moves_tasks_as_a_vecdeque_does(
            starts in [prop_oneof![Just(0u32), Just(u32::MAX - 100), any::<u32>()],
                       prop_oneof![Just(0u32), Just(u32::MAX - 100), any::<u32>()]],
            ops in proptest::collection::vec(op(), 1..48),
        ) {
            run(starts, ops)?;
        }
    }
}
