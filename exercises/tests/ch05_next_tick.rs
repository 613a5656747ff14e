//! Tests for exercise ch05_next_tick (`exercises/ch05/next_tick.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch05/next_tick.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch05/next_tick.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod next_tick;

mod ch05_next_tick {
    use super::next_tick::Ticks;
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    use std::time::Duration;

    type Log = Rc<RefCell<Vec<String>>>;

    fn log() -> Log {
        Rc::new(RefCell::new(Vec::new()))
    }

    fn say(log: &Log, what: &str) -> impl FnOnce(&mut Ticks) + 'static + use<> {
        let (log, what) = (log.clone(), what.to_string());
        move |_| log.borrow_mut().push(what)
    }

    /// A wait that records its timeout in the log.
    fn waiter(log: &Log) -> impl FnOnce(&mut Ticks, Option<Duration>) + 'static + use<> {
        let log = log.clone();
        move |_, timeout| log.borrow_mut().push(format!("wait {timeout:?}"))
    }

    fn take(log: &Log) -> Vec<String> {
        std::mem::take(&mut *log.borrow_mut())
    }

    #[test]
    fn ticks_run_first_queued_first_then_the_loop_sleeps() {
        let log = log();
        let mut ticks = Ticks::new();
        assert_eq!(ticks.queued(), 0);
        for name in ["a", "b", "c"] {
            ticks.next_tick(say(&log, name));
        }
        assert_eq!(ticks.queued(), 3);
        assert_eq!(ticks.turn(waiter(&log)), 3);
        assert_eq!(take(&log), ["a", "b", "c", "wait None"]);
        assert_eq!(ticks.queued(), 0);
        assert_eq!(ticks.turn(waiter(&log)), 0);
        assert_eq!(take(&log), ["wait None"]);
    }

    #[test]
    fn a_tick_queued_by_a_tick_waits_for_the_next_turn_after_the_wait() {
        let log = log();
        let mut ticks = Ticks::default();
        let inner = say(&log, "queued by a tick");
        let first = say(&log, "first");
        ticks.next_tick(move |ticks: &mut Ticks| {
            first(ticks);
            ticks.next_tick(inner);
        });
        ticks.next_tick(say(&log, "second"));
        assert_eq!(ticks.turn(waiter(&log)), 2);
        assert_eq!(
            take(&log),
            ["first", "second", "wait Some(0ns)"],
            "a queued tick means the wait must not sleep"
        );
        assert_eq!(ticks.queued(), 1);
        assert_eq!(ticks.turn(waiter(&log)), 1);
        assert_eq!(take(&log), ["queued by a tick", "wait None"]);
    }

    #[test]
    fn a_tick_that_queues_itself_forever_cannot_starve_the_wait() {
        // It re-queues itself up to 1,000 times; a turn must run it once.
        fn again(runs: Rc<Cell<u32>>) -> impl FnOnce(&mut Ticks) + 'static {
            move |ticks: &mut Ticks| {
                runs.set(runs.get() + 1);
                if runs.get() < 1_000 {
                    ticks.next_tick(again(runs));
                }
            }
        }
        let runs = Rc::new(Cell::new(0));
        let waits = Rc::new(Cell::new(0));
        let mut ticks = Ticks::new();
        ticks.next_tick(again(runs.clone()));
        for turn in 1..=5 {
            let waits2 = waits.clone();
            let ran = ticks.turn(move |_, timeout| {
                assert_eq!(timeout, Some(Duration::ZERO));
                waits2.set(waits2.get() + 1);
            });
            assert_eq!(ran, 1);
            assert_eq!(runs.get(), turn, "runs of the tick after {turn} turn(s)");
            assert_eq!(waits.get(), turn, "waits after {turn} turn(s)");
        }
    }

    #[test]
    fn the_timeout_is_decided_after_the_ticks_have_run() {
        let log = log();
        let mut ticks = Ticks::new();
        ticks.next_tick(say(&log, "only"));
        // Queued when the turn began, none left when the wait comes.
        assert_eq!(ticks.turn(waiter(&log)), 1);
        assert_eq!(take(&log), ["only", "wait None"]);
    }

    #[test]
    fn a_tick_queued_during_the_wait_runs_at_the_start_of_the_next_turn() {
        let log = log();
        let mut ticks = Ticks::new();
        let from_event = say(&log, "queued by an event");
        let wait_log = log.clone();
        let ran = ticks.turn(move |ticks, timeout| {
            wait_log.borrow_mut().push(format!("wait {timeout:?}"));
            ticks.next_tick(from_event);
        });
        assert_eq!(ran, 0);
        assert_eq!(ticks.queued(), 1);
        assert_eq!(ticks.turn(waiter(&log)), 1);
        assert_eq!(take(&log), ["wait None", "queued by an event", "wait None"]);
    }

    #[test]
    fn many_ticks_queued_by_one_all_wait_for_the_next_turn() {
        let log = log();
        let mut ticks = Ticks::new();
        let children: Vec<_> = (0..4).map(|i| say(&log, &format!("child {i}"))).collect();
        ticks.next_tick(move |ticks: &mut Ticks| {
            for child in children {
                ticks.next_tick(child);
            }
        });
        assert_eq!(ticks.turn(waiter(&log)), 1);
        assert_eq!(ticks.queued(), 4);
        assert_eq!(take(&log), ["wait Some(0ns)"]);
        assert_eq!(ticks.turn(waiter(&log)), 4);
        assert_eq!(
            take(&log),
            ["child 0", "child 1", "child 2", "child 3", "wait None"]
        );
    }
}
