//! Model-based property tests of Chapter 5's slab and timer heap.
//!
//! The slab is checked against a map from key to value plus the list of
//! every key it ever handed out: a live key finds its value, a dead key
//! (removed, or whose slot was reused) finds nothing, and no insert returns
//! a key that was handed out before. The timer heap is checked against a
//! list of live timers: timers fire exactly when due, in deadline order and
//! then insertion order, a cancel returns the payload only of a timer that
//! has not fired, and the next deadline is the earliest live one. Proptest
//! shrinks a failing sequence of operations to a short one.

use chapter_05::slab::{Key, Slab};
use chapter_05::timers::{TimerHeap, TimerId};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

// --------------------------------------------------------------------- slab

#[derive(Debug, Clone)]
enum SlabOp {
    Insert,
    /// Remove the k-th key ever handed out (live or dead).
    Remove(usize),
    /// Look up the k-th key ever handed out, and change its value.
    GetMut(usize),
}

fn slab_op() -> impl Strategy<Value = SlabOp> {
    prop_oneof![
        3 => Just(SlabOp::Insert),
        2 => any::<usize>().prop_map(SlabOp::Remove),
        1 => any::<usize>().prop_map(SlabOp::GetMut),
    ]
}

fn run_slab(ops: Vec<SlabOp>) -> Result<(), TestCaseError> {
    let mut slab = Slab::new();
    let mut model: BTreeMap<Key, u32> = BTreeMap::new();
    let mut issued: Vec<Key> = Vec::new();
    let mut seen: HashSet<Key> = HashSet::new();
    let mut next = 0u32;
    for op in ops {
        match op {
            SlabOp::Insert => {
                let predicted = slab.next_key();
                let key = slab.insert(next);
                prop_assert_eq!(key, predicted, "next_key did not predict insert");
                // A key is never handed out twice: a copy of an old one
                // must not find the new value.
                prop_assert!(seen.insert(key), "key {:?} handed out again", key);
                prop_assert_eq!(Key::from_usize(key.to_usize()), key);
                issued.push(key);
                model.insert(key, next);
                next += 1;
            }
            SlabOp::Remove(_) | SlabOp::GetMut(_) if issued.is_empty() => {}
            SlabOp::Remove(k) => {
                let key = issued[k % issued.len()];
                prop_assert_eq!(slab.remove(key), model.remove(&key));
            }
            SlabOp::GetMut(k) => {
                let key = issued[k % issued.len()];
                match (slab.get_mut(key), model.get_mut(&key)) {
                    (Some(value), Some(expected)) => {
                        prop_assert_eq!(*value, *expected);
                        *value += 1_000_000;
                        *expected += 1_000_000;
                    }
                    (None, None) => {}
                    (got, expected) => {
                        prop_assert!(false, "get_mut({:?}): {:?}, model {:?}", key, got, expected)
                    }
                }
            }
        }
        prop_assert_eq!(slab.len(), model.len());
        prop_assert_eq!(slab.is_empty(), model.is_empty());
        let mut keys = slab.keys();
        keys.sort_unstable();
        prop_assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
        for key in &issued {
            prop_assert_eq!(slab.get(*key), model.get(key));
            prop_assert_eq!(slab.contains(*key), model.contains_key(key));
        }
    }
    Ok(())
}

// --------------------------------------------------------------- timer heap

#[derive(Debug, Clone)]
enum HeapOp {
    /// A timer due `ms` after the current time (0: due now).
    Insert(u64),
    /// Cancel the k-th timer ever inserted (pending, fired or cancelled).
    Cancel(usize),
    /// Move time forward by `ms` and pop every expired timer.
    Advance(u64),
}

fn heap_op() -> impl Strategy<Value = HeapOp> {
    prop_oneof![
        // A narrow range of deadlines, so that many timers share one.
        4 => (0u64..40).prop_map(HeapOp::Insert),
        3 => any::<usize>().prop_map(HeapOp::Cancel),
        2 => (0u64..30).prop_map(HeapOp::Advance),
    ]
}

fn run_heap(ops: Vec<HeapOp>) -> Result<(), TestCaseError> {
    let start = Instant::now();
    let at = |ms: u64| start + Duration::from_millis(ms);
    let mut heap = TimerHeap::new();
    // Live timers: (deadline ms, insertion number) -> payload.
    let mut model: BTreeMap<(u64, usize), usize> = BTreeMap::new();
    let mut ids: Vec<(TimerId, u64)> = Vec::new();
    let mut now = 0u64;
    for op in ops {
        match op {
            HeapOp::Insert(ms) => {
                let n = ids.len();
                let id = heap.insert(at(now + ms), n);
                ids.push((id, now + ms));
                model.insert((now + ms, n), n);
            }
            HeapOp::Cancel(_) if ids.is_empty() => {}
            HeapOp::Cancel(k) => {
                let n = k % ids.len();
                let (id, deadline) = ids[n];
                prop_assert_eq!(heap.cancel(id), model.remove(&(deadline, n)));
            }
            HeapOp::Advance(ms) => {
                now += ms;
                let fired: Vec<usize> = std::iter::from_fn(|| heap.pop_expired(at(now))).collect();
                let due: Vec<(u64, usize)> = model.range(..(now + 1, 0)).map(|(k, _)| *k).collect();
                let expected: Vec<usize> = due.iter().map(|k| model.remove(k).unwrap()).collect();
                // Due ones only, each once, by deadline then insertion.
                prop_assert_eq!(fired, expected, "at {} ms", now);
            }
        }
        prop_assert_eq!(heap.len(), model.len());
        prop_assert!(heap.heap_len() >= heap.len());
        let next = model.keys().next().map(|&(ms, _)| at(ms));
        prop_assert_eq!(heap.next_deadline(), next);
    }
    Ok(())
}

proptest! {
    // CI: 256 cases of up to 100 operations, about 0.6 s in a debug build.
    // No regression files in the source tree: a failure prints its
    // shrunk case, which becomes a plain unit test.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(256)
    })]

    #[test]
    #[cfg_attr(miri, ignore = "safe code; thousands of cases are minutes under Miri")]
    fn the_slab_never_confuses_keys(ops in proptest::collection::vec(slab_op(), 1..100)) {
        run_slab(ops)?;
    }
}

proptest! {
    // CI: 256 cases of up to 250 operations (enough inserts and cancels
    // to trigger the compaction, which starts above 64 entries), about
    // 1.2 s in a debug build.
    // No regression files in the source tree: a failure prints its
    // shrunk case, which becomes a plain unit test.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(256)
    })]

    #[test]
    #[cfg_attr(miri, ignore = "safe code; thousands of cases are minutes under Miri")]
    fn the_heap_fires_what_the_model_says(ops in proptest::collection::vec(heap_op(), 1..250)) {
        run_heap(ops)?;
    }
}
