//! Needs `time::MissedTickBehavior` (Tokio: `pub enum MissedTickBehavior
//! { Burst, Delay, Skip }`, `Burst` the default) and
//! `Interval::missed_tick_behavior(&self) -> MissedTickBehavior`.
//! Once compiled against Tokio only; rt has these APIs now, and every
//! entry file of the suite compiles this module.

use crate::behaviour::limit;
use crate::{rt, shim};
use std::time::Duration;

#[test]
fn interval_missed_tick_behaviour_defaults_to_burst() {
    limit("MissedTickBehavior default", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let interval = rt::time::interval(Duration::from_millis(10));
            assert_eq!(
                interval.missed_tick_behavior(),
                rt::time::MissedTickBehavior::Burst
            );
        });
    });
}
