//! The hierarchical timing wheel: every pending timer of a runtime, with O(1)
//! insert and cancel, and the next deadline found in a few instructions.
//!
//! Chapter 5 kept timers in a binary heap: insert and pop cost O(log n), and
//! cancelling was lazy (the dead entry stays until it reaches the top). A
//! server with a timeout per connection has as many timers as connections,
//! and nearly all of them are cancelled (the request arrived in time), so
//! both costs grow with the load.
//!
//! The wheel is six levels of 64 slots at 1 ms resolution (see `level.rs`).
//! A timer goes to the level whose slot width matches how far away it is:
//! the level is the position of the highest bit in which the deadline and
//! the current time differ, divided by six, and the slot is the deadline's
//! six bits at that level. Each slot is a doubly linked list threaded
//! through the wheel's entry table by index, so a timer is unlinked in O(1)
//! when it is cancelled.
//!
//! Time moves forward in `advance`: the next occupied slot of the lowest
//! non-empty level comes due; at level 0 its timers fire; at a higher level
//! they are *cascaded*, re-inserted relative to the new time, which puts
//! them on a lower level. A timer is cascaded at most five times in its
//! life, so the work per timer is bounded whatever the number of timers.
//!
//! Deadlines are in whole milliseconds since the runtime started, rounded
//! up, so a timer never fires early. A deadline beyond the top level's
//! current turn (up to 2.2 years away) waits in an overflow list, which is
//! re-inserted when the next turn begins.
//!
//! The entries are laid out for the cache. What a cancel and the slot lists
//! touch (the links, the generation, the state, where the entry is linked)
//! is a 16-byte `Link`, four to a cache line, in one table; the deadline
//! and the waker, which only insert, firing and the cancel's drop of the
//! waker need, are in two tables beside it, at the same index. Unlinking a
//! timer writes its neighbours in the slot list, which sit wherever they
//! were allocated: with a million timers that is a cache miss, and the
//! smaller the link the nearer a neighbour that was allocated soon after is
//! likely to be. A cancel also prefetches the next entry along the list, on
//! the bet that timers set in order are cancelled in order (a server's
//! timeouts are), so the next cancel in that slot finds its neighbour in
//! the cache.
//!
//! Book: Chapter 7, "The timing wheel".

use super::level::{Expiration, Level, NIL, SLOT_BITS, slot_for};
use std::num::NonZeroU32;
use std::task::Waker;

/// Levels (6 x 6 bits of milliseconds: about 2.2 years).
pub(crate) const LEVELS: usize = 6;

/// The last millisecond of a top-level turn, relative to its start.
const TURN_MASK: u64 = (1 << (SLOT_BITS as usize * LEVELS)) - 1;

/// The pseudo-level of the overflow list.
const OVERFLOW: u8 = LEVELS as u8;

/// A handle to one timer in the wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimerKey {
    index: u32,
    /// Never zero, so that an `Option<TimerKey>` is 8 bytes, which
    /// `insert` returns in a register.
    generation: NonZeroU32,
}

/// Where a timer is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimerState {
    /// Linked in a slot, waiting.
    Pending,
    /// Its deadline passed; its waker was taken and woken.
    Fired,
}

/// The hot part of an entry: everything a cancel and the slot lists read
/// and write, in 16 bytes (the test `a_link_is_16_bytes` pins it). The
/// deadline and the waker are in tables of their own, at the same index.
// ANCHOR: link_entry
#[derive(Clone, Copy)]
struct Link {
    /// The slot list links (Pending), or the free list link (`next`, free).
    prev: u32,
    next: u32,
    /// Bumped on every reuse, so a stale key finds nothing.
    generation: NonZeroU32,
    /// Where the entry is linked (Pending).
    level: u8,
    slot: u8,
    /// `None` when the entry is free.
    state: Option<TimerState>,
}
// ANCHOR_END: link_entry

/// The wheel.
pub(crate) struct Wheel {
    /// The current time, in ms since start: every timer at or before it has
    /// fired.
    elapsed: u64,
    levels: [Level; LEVELS],
    /// Timers beyond the current top-level turn.
    overflow: u32,
    /// The entries, split in three tables by index: the links (hot), the
    /// deadlines and the wakers.
    links: Vec<Link>,
    deadlines: Vec<u64>,
    wakers: Vec<Option<Waker>>,
    /// The first free entry; the free list is LIFO, so the next insert
    /// reuses the entry freed last, whose lines are still in the cache.
    free: u32,
    pending: usize,
}

impl Default for Wheel {
    fn default() -> Wheel {
        Wheel::new()
    }
}

impl Wheel {
    pub(crate) fn new() -> Wheel {
        Wheel {
            elapsed: 0,
            levels: std::array::from_fn(|level| Level::new(level as u32)),
            overflow: NIL,
            links: Vec::new(),
            deadlines: Vec::new(),
            wakers: Vec::new(),
            free: NIL,
            pending: 0,
        }
    }

    /// Timers waiting to fire.
    pub(crate) fn pending(&self) -> usize {
        self.pending
    }

    /// Adds a timer for `deadline` (ms since start). Returns `None` if the
    /// deadline has already passed: the caller treats the timer as fired.
    pub(crate) fn insert(&mut self, deadline: u64, waker: Waker) -> Option<TimerKey> {
        if deadline <= self.elapsed {
            return None;
        }
        let key = self.allocate(deadline, waker);
        self.link(key.index, deadline);
        self.pending += 1;
        Some(key)
    }

    /// The timer's state, or `None` if the key is stale.
    pub(crate) fn state(&self, key: TimerKey) -> Option<TimerState> {
        self.index_of(key).and_then(|index| self.links[index].state)
    }

    /// Replaces a pending timer's waker (the future moved to another task).
    pub(crate) fn set_waker(&mut self, key: TimerKey, waker: &Waker) {
        if let Some(index) = self.index_of(key)
            && self.links[index].state == Some(TimerState::Pending)
            && !self.wakers[index]
                .as_ref()
                .is_some_and(|w| w.will_wake(waker))
        {
            self.wakers[index] = Some(waker.clone());
        }
    }

    /// Takes a pending timer's waker out, leaving the timer in place (to be
    /// removed next): `Sleep::reset` moves the waiting task's waker to the
    /// new deadline. `None` if the timer fired (its waker was woken) or the
    /// key is stale.
    pub(crate) fn take_waker(&mut self, key: TimerKey) -> Option<Waker> {
        let index = self.index_of(key)?;
        if self.links[index].state == Some(TimerState::Pending) {
            self.wakers[index].take()
        } else {
            None
        }
    }

    /// Removes a timer, pending or fired. O(1).
    pub(crate) fn remove(&mut self, key: TimerKey) {
        let Some(index) = self.index_of(key) else {
            return;
        };
        if self.links[index].state == Some(TimerState::Pending) {
            self.unlink(index as u32);
            self.pending -= 1;
        }
        self.release(index as u32);
    }

    /// When the next timer might fire: the start of the next occupied slot.
    /// (For a slot above level 0 it is when that slot cascades, which is no
    /// later than its first timer.)
    pub(crate) fn next_expiration(&self) -> Option<u64> {
        self.next_slot().map(|expiration| expiration.deadline)
    }

    fn next_slot(&self) -> Option<Expiration> {
        // Lower levels hold earlier deadlines: the first non-empty one wins.
        let found = self
            .levels
            .iter()
            .find_map(|level| level.next_expiration(self.elapsed));
        if found.is_some() || self.overflow == NIL {
            return found;
        }
        // Only far timers: look again when the next top-level turn begins.
        Some(Expiration {
            level: u32::from(OVERFLOW),
            slot: 0,
            deadline: (self.elapsed | TURN_MASK) + 1,
        })
    }

    /// Moves time forward to `now` (ms since start), firing every timer due:
    /// their wakers are appended to `fired` (to be woken outside any lock).
    // ANCHOR: advance
    pub(crate) fn advance(&mut self, now: u64, fired: &mut Vec<Waker>) {
        while let Some(expiration) = self.next_slot() {
            if expiration.deadline > now {
                break;
            }
            self.elapsed = self.elapsed.max(expiration.deadline);
            let mut index = if expiration.level == u32::from(OVERFLOW) {
                std::mem::replace(&mut self.overflow, NIL)
            } else {
                let level = &mut self.levels[expiration.level as usize];
                level.occupied &= !(1 << expiration.slot);
                std::mem::replace(&mut level.heads[expiration.slot], NIL)
            };
            while index != NIL {
                let i = index as usize;
                let next = self.links[i].next;
                let deadline = self.deadlines[i];
                if deadline <= self.elapsed {
                    self.links[i].state = Some(TimerState::Fired);
                    self.pending -= 1;
                    if let Some(waker) = self.wakers[i].take() {
                        fired.push(waker);
                    }
                } else {
                    // Cascade: a lower level now that the time is closer.
                    self.link(index, deadline);
                }
                index = next;
            }
        }
        self.elapsed = self.elapsed.max(now);
    }
    // ANCHOR_END: advance

    /// At shutdown: the waker of every pending timer, so that each waiting
    /// task is woken and finds the runtime gone. The timers stay pending.
    pub(crate) fn take_all_wakers(&mut self, fired: &mut Vec<Waker>) {
        for (link, waker) in self.links.iter().zip(&mut self.wakers) {
            if link.state == Some(TimerState::Pending)
                && let Some(waker) = waker.take()
            {
                fired.push(waker);
            }
        }
    }

    fn index_of(&self, key: TimerKey) -> Option<usize> {
        let link = self.links.get(key.index as usize)?;
        (link.generation == key.generation && link.state.is_some()).then_some(key.index as usize)
    }

    fn allocate(&mut self, deadline: u64, waker: Waker) -> TimerKey {
        let index = self.free;
        let generation = if index != NIL {
            let i = index as usize;
            let link = &mut self.links[i];
            self.free = link.next;
            link.state = Some(TimerState::Pending);
            self.deadlines[i] = deadline;
            self.wakers[i] = Some(waker);
            link.generation
        } else {
            let index = u32::try_from(self.links.len()).expect("fewer than 4 billion timers");
            assert!(index != NIL, "fewer than 4 billion timers");
            self.links.push(Link {
                prev: NIL,
                next: NIL,
                generation: NonZeroU32::MIN,
                level: 0,
                slot: 0,
                state: Some(TimerState::Pending),
            });
            self.deadlines.push(deadline);
            self.wakers.push(Some(waker));
            return TimerKey {
                index,
                generation: NonZeroU32::MIN,
            };
        };
        TimerKey { index, generation }
    }

    fn release(&mut self, index: u32) {
        self.wakers[index as usize] = None;
        let link = &mut self.links[index as usize];
        link.state = None;
        // 1, 2, ... u32::MAX, 1, ...: zero is not a generation.
        link.generation = link.generation.checked_add(1).unwrap_or(NonZeroU32::MIN);
        link.prev = NIL;
        link.next = self.free;
        self.free = index;
    }

    /// Links a pending entry into the slot its deadline belongs in now.
    // ANCHOR: link
    fn link(&mut self, index: u32, deadline: u64) {
        // At the head of the slot's list: the old head comes next.
        let (level, slot, next) = if deadline > self.elapsed | TURN_MASK {
            // Beyond this turn of the top level.
            (OVERFLOW, 0, std::mem::replace(&mut self.overflow, index))
        } else {
            let level = level_for(self.elapsed, deadline);
            let slot = slot_for(level as u32, deadline);
            let at = &mut self.levels[level];
            at.occupied |= 1 << slot;
            let next = std::mem::replace(&mut at.heads[slot], index);
            (level as u8, slot, next)
        };
        let link = &mut self.links[index as usize];
        link.level = level;
        link.slot = slot as u8;
        link.prev = NIL;
        link.next = next;
        if next != NIL {
            self.links[next as usize].prev = index;
        }
    }
    // ANCHOR_END: link

    fn head_mut(&mut self, level: u8, slot: usize) -> &mut u32 {
        if level == OVERFLOW {
            &mut self.overflow
        } else {
            &mut self.levels[level as usize].heads[slot]
        }
    }

    /// Takes a pending entry out of its slot list.
    // ANCHOR: unlink
    fn unlink(&mut self, index: u32) {
        let Link {
            prev,
            next,
            level,
            slot,
            ..
        } = self.links[index as usize];
        if prev == NIL {
            // The head of its slot's list: the slot now starts at `next`,
            // and is empty if that is NIL.
            let slot = slot as usize;
            *self.head_mut(level, slot) = next;
            if next == NIL && level != OVERFLOW {
                self.levels[level as usize].occupied &= !(1 << slot);
            }
        } else {
            self.links[prev as usize].next = next;
            // `prev` was linked after this entry, into the same slot. Timers
            // set in order tend to be cancelled in order, so it is likely
            // the next one of this slot to go, and its own `prev` with it:
            // start fetching that one's link now, so that the next cancel
            // here finds its neighbour in the cache, not in memory.
            let further = self.links[prev as usize].prev;
            if further != NIL {
                prefetch(&self.links[further as usize]);
            }
        }
        if next != NIL {
            self.links[next as usize].prev = prev;
        }
    }
    // ANCHOR_END: unlink
}

/// Asks the CPU to bring `link`'s cache line in, without waiting for it. A
/// hint: it changes no value, and does nothing where there is no such
/// instruction (or under Miri).
#[inline(always)]
fn prefetch(link: &Link) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `prefetcht0` only loads a cache line into the cache: it reads
    // nothing into a register, writes nothing, and cannot fault, whatever
    // the address. Here the address is that of a live `&Link` anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(link).cast());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = link;
}

/// The level for a deadline within the current top-level turn: the highest
/// bit in which it differs from the current time, divided by six (at least
/// bit 5, so anything in the current 64 ms block is level 0).
// ANCHOR: level_for
pub(crate) fn level_for(elapsed: u64, deadline: u64) -> usize {
    let differing = (elapsed ^ deadline) | ((1 << SLOT_BITS) - 1);
    (((63 - differing.leading_zeros()) / SLOT_BITS) as usize).min(LEVELS - 1)
}
// ANCHOR_END: level_for

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct FiredFlag(AtomicUsize);
    impl Wake for FiredFlag {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn waker() -> (Waker, Arc<FiredFlag>) {
        let flag = Arc::new(FiredFlag(AtomicUsize::new(0)));
        (Waker::from(flag.clone()), flag)
    }

    fn fire(wheel: &mut Wheel, now: u64) -> usize {
        let mut fired = Vec::new();
        wheel.advance(now, &mut fired);
        let n = fired.len();
        fired.into_iter().for_each(Waker::wake);
        n
    }

    #[test]
    fn a_link_is_16_bytes() {
        // Four to a cache line: what a cancel touches in its neighbours.
        assert_eq!(std::mem::size_of::<Link>(), 16);
    }

    #[test]
    fn levels_follow_the_distance() {
        assert_eq!(level_for(0, 1), 0);
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(level_for(0, 4095), 1);
        assert_eq!(level_for(0, 4096), 2);
        assert_eq!(level_for(0, 1 << 30), 5);
        // Near a boundary a short distance can need a high level: 63 -> 64
        // differs in bit 6.
        assert_eq!(level_for(63, 64), 1);
    }

    #[test]
    fn a_timer_fires_at_its_millisecond_not_before() {
        let mut wheel = Wheel::new();
        let (w, flag) = waker();
        let key = wheel.insert(1000, w).unwrap();
        assert_eq!(fire(&mut wheel, 999), 0);
        assert_eq!(wheel.state(key), Some(TimerState::Pending));
        assert_eq!(fire(&mut wheel, 1000), 1);
        assert_eq!(wheel.state(key), Some(TimerState::Fired));
        assert_eq!(flag.0.load(Ordering::SeqCst), 1);
        wheel.remove(key);
        assert_eq!(wheel.state(key), None);
    }

    #[test]
    fn a_deadline_already_passed_is_not_inserted() {
        let mut wheel = Wheel::new();
        fire(&mut wheel, 50);
        assert!(wheel.insert(50, waker().0).is_none());
        assert!(wheel.insert(51, waker().0).is_some());
    }

    #[test]
    fn cancelled_timers_never_fire_and_slots_are_reused() {
        let mut wheel = Wheel::new();
        let keys: Vec<_> = (1..=100)
            .map(|ms| wheel.insert(ms * 37, waker().0).unwrap())
            .collect();
        for key in &keys[..50] {
            wheel.remove(*key);
        }
        assert_eq!(wheel.pending(), 50);
        assert_eq!(fire(&mut wheel, 100 * 37), 50);
        assert_eq!(wheel.pending(), 0);
        // A stale key does nothing.
        wheel.remove(keys[0]);
        let again = wheel.insert(10_000, waker().0).unwrap();
        assert_ne!(again, keys[0]);
    }

    #[test]
    fn cancelling_in_any_order_keeps_each_slot_list_whole() {
        // Many timers per slot (deadlines 100 to 163 share level 1's slot
        // 1 and 2), cancelled oldest first, newest first and from the
        // middle: what is left fires, exactly once, and nothing else.
        for order in ["oldest first", "newest first", "middle"] {
            let mut wheel = Wheel::new();
            let flags: Vec<_> = (0..64).map(|_| waker()).collect();
            let keys: Vec<_> = flags
                .iter()
                .enumerate()
                .map(|(i, (w, _))| wheel.insert(100 + i as u64, w.clone()).unwrap())
                .collect();
            let cancelled: Vec<usize> = match order {
                "oldest first" => (0..32).collect(),
                "newest first" => (32..64).rev().collect(),
                _ => (16..48).step_by(2).chain((17..48).step_by(2)).collect(),
            };
            for &i in &cancelled {
                wheel.remove(keys[i]);
            }
            assert_eq!(wheel.pending(), 32, "{order}");
            assert_eq!(fire(&mut wheel, 1_000), 32, "{order}");
            for (i, (_, flag)) in flags.iter().enumerate() {
                let woken = flag.0.load(Ordering::SeqCst);
                assert_eq!(
                    woken,
                    usize::from(!cancelled.contains(&i)),
                    "{order}: timer {i}"
                );
            }
        }
    }

    #[test]
    fn the_next_expiration_is_the_earliest_slot() {
        let mut wheel = Wheel::new();
        assert_eq!(wheel.next_expiration(), None);
        wheel.insert(5_000, waker().0);
        wheel.insert(70, waker().0);
        // 70 is on level 1 (slot 1, which starts at 64): it cascades at 64.
        assert_eq!(wheel.next_expiration(), Some(64));
        fire(&mut wheel, 64);
        assert_eq!(wheel.next_expiration(), Some(70));
        assert_eq!(fire(&mut wheel, 70), 1);
        assert_eq!(wheel.next_expiration(), Some(4096));
    }

    #[test]
    #[cfg_attr(miri, ignore = "safe code only, and minutes under Miri")]
    fn every_timer_fires_exactly_once_in_deadline_order() {
        // Deadlines spread over every level, fired by advancing in uneven
        // steps: each fires once, never before its deadline.
        let mut wheel = Wheel::new();
        let mut deadlines: Vec<u64> = (0..2000u64)
            .map(|i| 1 + (i * i * 7919) % 5_000_000)
            .collect();
        let mut keys = Vec::new();
        for &d in &deadlines {
            keys.push((d, wheel.insert(d, waker().0).unwrap()));
        }
        let mut now = 0;
        let mut fired_total = 0;
        while wheel.pending() > 0 {
            now += 1 + now / 3;
            let before: Vec<_> = keys
                .iter()
                .filter(|(_, k)| wheel.state(*k) == Some(TimerState::Pending))
                .map(|(d, _)| *d)
                .collect();
            let fired = fire(&mut wheel, now);
            let due = before.iter().filter(|&&d| d <= now).count();
            assert_eq!(fired, due, "at {now}");
            fired_total += fired;
        }
        deadlines.sort_unstable();
        assert_eq!(fired_total, deadlines.len());
    }

    #[test]
    fn very_long_deadlines_wait_at_the_top_and_still_fire() {
        let mut wheel = Wheel::new();
        let far = (1u64 << 36) * 3 + 12_345; // about 6.5 years
        let key = wheel.insert(far, waker().0).unwrap();
        let mut now = 0;
        while wheel.state(key) == Some(TimerState::Pending) {
            let next = wheel.next_expiration().unwrap();
            assert!(next > now, "time must move forward");
            now = next;
            fire(&mut wheel, now);
        }
        assert_eq!(now, far);
    }
}

/// The wheel against a plain model: a map from each pending timer to its
/// deadline. Random inserts, cancels, resets (a cancel and an insert, as
/// `Sleep::reset` does) and advances, with deadlines and advances aimed at
/// the slot and level boundaries where cascading happens; after every step
/// the fired timers, the pending count and the next expiration must agree
/// with the model.
#[cfg(all(test, not(loom)))]
mod proptests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};
    use std::task::Wake;

    /// A waker that writes its timer's id into a shared log when woken.
    struct Logger {
        id: usize,
        log: Arc<Mutex<Vec<usize>>>,
    }
    impl Wake for Logger {
        fn wake(self: Arc<Self>) {
            self.log.lock().unwrap().push(self.id);
        }
    }

    /// Where a generated deadline or advance lands, relative to the
    /// wheel's current time.
    #[derive(Debug, Clone)]
    enum When {
        /// `elapsed + n`, n in 0..200 (0: already due).
        Near(u64),
        /// The next multiple of 64^level ms (1..=6: a cascade boundary),
        /// plus -1, 0 or +1.
        Boundary {
            level: u32,
            off: i8,
        },
        /// Anywhere up to ~2^40 ms ahead (several top-level turns).
        Far(u64),
        /// The next deadline the model holds (exactly due), or `Near(1)`.
        NextDeadline,
        /// Fixed points: 0 ms, the far future of `Duration::MAX` (30
        /// years, in ms) and `u64::MAX`.
        Zero,
        FarFuture,
        Max,
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(When),
        /// Cancel the n-th live timer (modulo the number live).
        Cancel(usize),
        /// Cancel the n-th live timer and insert it again at `When`.
        Reset(usize, When),
        /// Advance time to `When` (never backwards, never past 2^44 ms).
        Advance(When),
    }

    fn when() -> impl Strategy<Value = When> {
        prop_oneof![
            4 => (0u64..200).prop_map(When::Near),
            4 => (1u32..=6, -1i8..=1).prop_map(|(level, off)| When::Boundary { level, off }),
            1 => (0u64..(1 << 40)).prop_map(When::Far),
            3 => Just(When::NextDeadline),
            1 => Just(When::Zero),
            1 => Just(When::FarFuture),
            1 => Just(When::Max),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => when().prop_map(Op::Insert),
            2 => any::<usize>().prop_map(Op::Cancel),
            1 => (any::<usize>(), when()).prop_map(|(n, w)| Op::Reset(n, w)),
            3 => when().prop_map(Op::Advance),
        ]
    }

    /// 30 years in ms: what `sleep(Duration::MAX)` becomes (see sleep.rs).
    const FAR_FUTURE_MS: u64 = 86_400 * 365 * 30 * 1000;
    /// Advances stop here, so that a test never walks the overflow list
    /// through millions of top-level turns.
    const TIME_LIMIT: u64 = 1 << 44;

    fn resolve(when: &When, now: u64, model: &BTreeMap<usize, (u64, TimerKey)>) -> u64 {
        match *when {
            When::Near(n) => now + n,
            When::Boundary { level, off } => {
                // A multiple of 64^level ms: where a level-`level` slot
                // starts, and (level 6) where a top-level turn starts.
                let width = 1u64 << (SLOT_BITS * level);
                ((now / width + 1) * width).saturating_add_signed(i64::from(off))
            }
            When::Far(n) => now + n,
            When::NextDeadline => model.values().map(|&(d, _)| d).min().unwrap_or(now + 1),
            When::Zero => 0,
            When::FarFuture => FAR_FUTURE_MS,
            When::Max => u64::MAX,
        }
    }

    fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
        let mut wheel = Wheel::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        // id -> (deadline, key), for every timer pending in the model.
        let mut model: BTreeMap<usize, (u64, TimerKey)> = BTreeMap::new();
        let mut deadlines: Vec<u64> = Vec::new();
        let mut now = 0u64;
        for op in ops {
            let mut insert = |wheel: &mut Wheel, model: &mut BTreeMap<_, _>, deadline: u64| {
                let id = deadlines.len();
                deadlines.push(deadline);
                let waker = Waker::from(Arc::new(Logger {
                    id,
                    log: log.clone(),
                }));
                match wheel.insert(deadline, waker) {
                    Some(key) => {
                        prop_assert!(deadline > now, "inserted a deadline already due");
                        model.insert(id, (deadline, key));
                    }
                    None => prop_assert!(deadline <= now, "refused a future deadline"),
                }
                Ok(())
            };
            match op {
                Op::Insert(w) => {
                    let deadline = resolve(&w, now, &model);
                    insert(&mut wheel, &mut model, deadline)?;
                }
                Op::Cancel(n) | Op::Reset(n, _) if model.is_empty() => {
                    let _ = n;
                }
                Op::Cancel(n) => {
                    let id = *model.keys().nth(n % model.len()).unwrap();
                    let (_, key) = model.remove(&id).unwrap();
                    wheel.remove(key);
                    prop_assert_eq!(wheel.state(key), None);
                }
                Op::Reset(n, w) => {
                    let id = *model.keys().nth(n % model.len()).unwrap();
                    let (_, key) = model.remove(&id).unwrap();
                    wheel.remove(key);
                    let deadline = resolve(&w, now, &model);
                    insert(&mut wheel, &mut model, deadline)?;
                }
                Op::Advance(w) => {
                    let to = resolve(&w, now, &model).clamp(now, TIME_LIMIT.max(now));
                    let mut fired = Vec::new();
                    wheel.advance(to, &mut fired);
                    fired.into_iter().for_each(Waker::wake);
                    let woken = std::mem::take(&mut *log.lock().unwrap());
                    // Exactly the timers due, each once, in deadline order.
                    let due: Vec<usize> = model
                        .iter()
                        .filter(|(_, (d, _))| *d <= to)
                        .map(|(&id, _)| id)
                        .collect();
                    let mut sorted = woken.clone();
                    sorted.sort_unstable();
                    prop_assert_eq!(&sorted, &due, "fired at {} (from {})", to, now);
                    for pair in woken.windows(2) {
                        prop_assert!(
                            deadlines[pair[0]] <= deadlines[pair[1]],
                            "out of order: {:?}",
                            woken.iter().map(|&i| deadlines[i]).collect::<Vec<_>>()
                        );
                    }
                    for id in due {
                        let (_, key) = model.remove(&id).unwrap();
                        prop_assert_eq!(wheel.state(key), Some(TimerState::Fired));
                        wheel.remove(key);
                    }
                    now = to;
                }
            }
            prop_assert_eq!(wheel.pending(), model.len());
            for (_, key) in model.values() {
                prop_assert_eq!(wheel.state(*key), Some(TimerState::Pending));
            }
            // The next expiration is after now and no later than the
            // earliest deadline (a higher slot cascades before it).
            match (
                wheel.next_expiration(),
                model.values().map(|&(d, _)| d).min(),
            ) {
                (None, None) => {}
                (Some(next), Some(earliest)) => {
                    prop_assert!(next > now, "next {} not after now {}", next, now);
                    prop_assert!(next <= earliest, "next {} after {}", next, earliest);
                }
                (next, earliest) => {
                    prop_assert!(false, "next {:?}, earliest deadline {:?}", next, earliest)
                }
            }
        }
        Ok(())
    }

    proptest! {
        // CI: 256 cases of up to 64 steps, about 1 s in a debug build.
        // No regression files in the source tree: a failure prints its
        // shrunk case, which becomes a plain unit test.
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::with_cases(256)
        })]
        #[test]
        #[cfg_attr(miri, ignore = "safe code, and minutes under Miri")]
        fn the_wheel_fires_what_the_model_says(ops in proptest::collection::vec(op(), 1..64)) {
            run(ops)?;
        }
    }
}
