//! The hand-written green threads under load: many fibers, many switches,
//! and the ABI details that peers' versions got wrong.

use std::cell::RefCell;
use std::rc::Rc;

use chapter_02::green::context::stack_pointer_at_call;
use chapter_02::green::{Fibers, yield_now};

#[test]
fn many_fibers_interleave_round_robin() {
    // Fiber i takes i + 1 steps; the trace shows the rotation skipping the
    // fibers that have finished.
    let trace = Rc::new(RefCell::new(String::new()));
    let mut fibers = Fibers::default();
    for id in 0..4 {
        let trace = Rc::clone(&trace);
        fibers
            .spawn(move || {
                for step in 0..=id {
                    trace
                        .borrow_mut()
                        .push_str(&format!("fiber {id}: step {step}\n"));
                    yield_now();
                }
                trace.borrow_mut().push_str(&format!("fiber {id}: done\n"));
            })
            .unwrap();
    }
    fibers.run();
    insta::assert_snapshot!(trace.borrow().as_str());
}

#[test]
fn the_stack_is_aligned_at_every_call_inside_a_fiber() {
    #[inline(never)]
    fn nested(depth: u32, seen: &mut Vec<usize>) {
        seen.push(stack_pointer_at_call());
        if depth > 0 {
            nested(depth - 1, seen);
        }
    }
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut fibers = Fibers::default();
    for _ in 0..8 {
        let seen = Rc::clone(&seen);
        fibers
            .spawn(move || {
                // At entry, after yields, and several frames deep.
                seen.borrow_mut().push(stack_pointer_at_call());
                yield_now();
                nested(5, &mut seen.borrow_mut());
                yield_now();
                seen.borrow_mut().push(stack_pointer_at_call());
            })
            .unwrap();
    }
    fibers.run();
    let seen = seen.borrow();
    assert_eq!(seen.len(), 8 * 8);
    for &sp in seen.iter() {
        assert_eq!(
            sp % 16,
            0,
            "stack pointer {sp:#x} is not 16-byte aligned at a call"
        );
    }
}

#[test]
fn thousands_of_switches_keep_every_fibers_state() {
    // 100 fibers x 1,000 yields = 100,000 switches. Each fiber keeps integer
    // and floating-point state in locals across its yields (in callee-saved
    // registers or on its own stack) and checks it at the end.
    const FIBERS: u64 = 100;
    const YIELDS: u64 = 1_000;
    let results = Rc::new(RefCell::new(Vec::new()));
    let mut fibers = Fibers::new(32 * 1024);
    for id in 0..FIBERS {
        let results = Rc::clone(&results);
        fibers
            .spawn(move || {
                let mut sum = 0u64;
                let mut product = 1.0f64;
                let local = [id; 16]; // on this fiber's stack
                for i in 0..YIELDS {
                    sum = sum.wrapping_add(i * id + local[(i % 16) as usize]);
                    product *= 1.0 + 1e-6 * id as f64;
                    yield_now();
                }
                results.borrow_mut().push((id, sum, product));
            })
            .unwrap();
    }
    fibers.run();
    let mut results = results.borrow().clone();
    assert_eq!(results.len(), FIBERS as usize);
    results.sort_by_key(|r| r.0);
    for (id, sum, product) in results {
        let expected_sum = (0..YIELDS).fold(0u64, |s, i| s.wrapping_add(i * id + id));
        let expected_product = (1.0 + 1e-6 * id as f64).powi(YIELDS as i32);
        assert_eq!(sum, expected_sum, "fiber {id}");
        assert!(
            (product - expected_product).abs() < 1e-9,
            "fiber {id}: {product}"
        );
    }
}

#[test]
fn a_fiber_can_use_most_of_its_stack() {
    #[inline(never)]
    fn recurse(depth: u32) -> u64 {
        let frame = std::hint::black_box([depth as u64; 64]); // 512 bytes
        if depth == 0 {
            frame[0]
        } else {
            frame[1] + recurse(depth - 1)
        }
    }
    let result = Rc::new(RefCell::new(0));
    let mut fibers = Fibers::new(128 * 1024);
    {
        let result = Rc::clone(&result);
        // About 64 KiB of frames on a 128 KiB stack, with a yield at the bottom.
        fibers
            .spawn(move || {
                yield_now();
                *result.borrow_mut() = recurse(100);
            })
            .unwrap();
    }
    fibers.run();
    assert_eq!(*result.borrow(), (1..=100).sum::<u64>());
}
