//! Tests for exercise ch03_source_plan (`exercises/ch03/source_plan.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch03/source_plan.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch03/source_plan.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod source_plan;

mod ch03_source_plan {
    use super::source_plan::{PlanError, plan, source_for};
    use std::collections::HashMap;
    use std::net::Ipv4Addr;

    #[test]
    fn enough_addresses_for_every_connection() {
        let first = Ipv4Addr::new(127, 0, 0, 1);
        assert_eq!(plan(10_000, 2_000, first).unwrap().len(), 5);
        assert_eq!(plan(10_001, 2_000, first).unwrap().len(), 6);
        assert_eq!(plan(1, 2_000, first).unwrap().len(), 1);
        assert_eq!(plan(0, 2_000, first).unwrap().len(), 1);
        assert_eq!(plan(3, 2_000, first).unwrap(), vec![first]);
    }

    #[test]
    fn addresses_count_up_skipping_0_and_255() {
        let addresses = plan(5, 1, Ipv4Addr::new(127, 0, 0, 253)).unwrap();
        assert_eq!(
            addresses,
            vec![
                Ipv4Addr::new(127, 0, 0, 253),
                Ipv4Addr::new(127, 0, 0, 254),
                Ipv4Addr::new(127, 0, 1, 1),
                Ipv4Addr::new(127, 0, 1, 2),
                Ipv4Addr::new(127, 0, 1, 3),
            ]
        );
        let from_zero = plan(1, 1, Ipv4Addr::new(127, 0, 5, 0)).unwrap();
        assert_eq!(from_zero, vec![Ipv4Addr::new(127, 0, 5, 1)]);
    }

    #[test]
    fn round_robin_keeps_every_share() {
        let addresses = plan(19_000, 2_000, Ipv4Addr::new(127, 1, 1, 1)).unwrap();
        let mut per_address: HashMap<Ipv4Addr, usize> = HashMap::new();
        for i in 0..19_000 {
            *per_address.entry(source_for(&addresses, i)).or_default() += 1;
        }
        assert_eq!(per_address.len(), addresses.len());
        assert!(per_address.values().all(|&n| n <= 2_000));
    }

    #[test]
    fn the_plan_stays_in_loopback() {
        assert_eq!(
            plan(10, 1, Ipv4Addr::new(127, 255, 255, 250)),
            Err(PlanError::OutOfLoopback)
        );
        assert_eq!(
            plan(10, 1, Ipv4Addr::new(10, 0, 0, 1)),
            Err(PlanError::OutOfLoopback)
        );
        assert_eq!(
            plan(4, 1, Ipv4Addr::new(127, 255, 255, 250))
                .unwrap()
                .last(),
            Some(&Ipv4Addr::new(127, 255, 255, 253))
        );
    }

    #[test]
    fn a_zero_share_is_an_error() {
        assert_eq!(
            plan(10, 0, Ipv4Addr::new(127, 0, 0, 1)),
            Err(PlanError::ZeroShare)
        );
    }
}
