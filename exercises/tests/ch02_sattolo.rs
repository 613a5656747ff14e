//! Tests for exercise ch02_sattolo (`exercises/ch02/sattolo.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch02/sattolo.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch02/sattolo.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod sattolo;

mod ch02_sattolo {
    use super::sattolo::{lap_length, sattolo};
    use std::collections::HashSet;

    /// A seeded source of `random_below`: SplitMix64, reduced modulo the
    /// bound. It checks every bound it is asked for.
    struct Rng {
        state: u64,
        bounds: Vec<usize>,
    }

    impl Rng {
        fn new(seed: u64) -> Rng {
            Rng {
                state: seed,
                bounds: Vec::new(),
            }
        }

        fn below(&mut self, bound: usize) -> usize {
            assert!(bound > 0, "random_below(0): there is no number below 0");
            self.bounds.push(bound);
            self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            (z % bound as u64) as usize
        }
    }

    fn chain(n: usize, seed: u64) -> Vec<usize> {
        let mut rng = Rng::new(seed);
        sattolo(n, &mut |bound| rng.below(bound))
    }

    #[test]
    fn the_chain_is_one_cycle_through_every_line() {
        for n in 1..=64 {
            for seed in 0..20 {
                let next = chain(n, seed);
                assert_eq!(next.len(), n);
                let distinct: HashSet<_> = next.iter().copied().collect();
                assert_eq!(distinct.len(), n, "n = {n}: {next:?} is not a permutation");
                for start in 0..n {
                    assert_eq!(
                        lap_length(&next, start),
                        Some(n),
                        "n = {n}, seed {seed}: {next:?} from line {start}"
                    );
                }
            }
        }
    }

    #[test]
    fn random_below_is_asked_n_minus_1_then_down_to_1() {
        for n in [0, 1, 2, 3, 10] {
            let mut rng = Rng::new(7);
            sattolo(n, &mut |bound| rng.below(bound));
            let expected: Vec<usize> = (1..n).rev().collect();
            assert_eq!(rng.bounds, expected, "bounds asked for n = {n}");
        }
    }

    #[test]
    fn the_answers_are_used_as_the_swap_partners() {
        // Always 0: each step swaps line i with line 0.
        assert_eq!(sattolo(4, &mut |_| 0), vec![1, 2, 3, 0]);
        // Always the largest allowed, i - 1: each step swaps neighbours.
        assert_eq!(sattolo(4, &mut |bound| bound - 1), vec![3, 0, 1, 2]);
        // A script: i = 4 swaps with 1, 3 with 2, 2 with 0, 1 with 0.
        let mut script = vec![1, 2, 0, 0].into_iter();
        let next = sattolo(5, &mut |_| script.next().unwrap());
        assert_eq!(next, vec![4, 3, 0, 2, 1]);
    }

    #[test]
    fn small_chains() {
        assert_eq!(sattolo(0, &mut |_| unreachable!()), Vec::<usize>::new());
        assert_eq!(sattolo(1, &mut |_| unreachable!()), vec![0]);
        assert_eq!(lap_length(&[0], 0), Some(1));
    }

    #[test]
    fn every_single_cycle_through_four_lines_comes_out() {
        // There are 3! = 6 single cycles through 4 lines.
        let seen: HashSet<Vec<usize>> = (0..400).map(|seed| chain(4, seed)).collect();
        assert_eq!(seen.len(), 6, "{seen:?}");
    }

    #[test]
    fn a_walk_that_does_not_come_back_is_none() {
        // 0 -> 1 -> 2 -> 1 -> ...: line 0 is not on a cycle.
        assert_eq!(lap_length(&[1, 2, 1], 0), None);
        assert_eq!(lap_length(&[1, 2, 1], 1), Some(2));
        // Two cycles: (0 1) and (2 3 4).
        let two = [1, 0, 3, 4, 2];
        assert_eq!(lap_length(&two, 0), Some(2));
        assert_eq!(lap_length(&two, 3), Some(3));
        // A line that points outside the slice ends the walk.
        assert_eq!(lap_length(&[1, 7, 0], 0), None);
        assert_eq!(lap_length(&[1, 2, 3, 4, 0], 2), Some(5));
    }
}
