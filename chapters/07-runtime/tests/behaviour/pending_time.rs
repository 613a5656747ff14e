//! Needs `time::MissedTickBehavior` (Tokio: `pub enum MissedTickBehavior
//! { Burst, Delay, Skip }`, `Burst` the default) and
//! `Interval::missed_tick_behavior(&self) -> MissedTickBehavior`.
//! Compiled against Tokio only until rt has them (see behaviour_rt.rs).

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
