//! A barrier: tasks wait until `n` of them have called
//! [`wait`](Barrier::wait), then all go on together, and the barrier is
//! ready for the next round.
//!
//! Built on two things already here: a short critical section under a
//! plain mutex counts the arrivals, and a [`watch`] channel carries the
//! round's number. A task that is not the `n`th notes the round it joined
//! and waits for the channel to move past it; the `n`th resets the count,
//! sends the next round number, and so wakes all the others at once. The
//! mutex is never held across an `.await`. Tokio's barrier is made the same
//! way.
//!
//! Book: Chapter 8, "Locks and notification".

use super::watch;
use crate::loom::Mutex;
use std::fmt;

/// Lets `n` tasks wait for each other.
pub struct Barrier {
    state: Mutex<State>,
    /// Subscribed to the current round; each waiter clones it.
    round: watch::Receiver<u64>,
    n: usize,
}

struct State {
    /// Sends the next round's number when a round completes.
    next_round: watch::Sender<u64>,
    /// Tasks that arrived in this round.
    arrived: usize,
    /// This round's number.
    round: u64,
}

/// What [`Barrier::wait`] returns: whether this task was the leader.
#[derive(Debug, Clone)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// True for exactly one task of each round: the one whose arrival
    /// completed it.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl Barrier {
    /// A barrier for `n` tasks; `0` counts as `1` (every `wait` returns at
    /// once), as in `std` and Tokio.
    pub fn new(n: usize) -> Barrier {
        let (next_round, round) = watch::channel(0);
        Barrier {
            state: Mutex::new(State {
                next_round,
                arrived: 0,
                round: 0,
            }),
            round,
            n: n.max(1),
        }
    }

    /// Waits until `n` tasks have called `wait` in this round. The task
    /// whose call completes the round returns at once, as the leader.
    ///
    /// # Cancel safety
    ///
    /// Not cancel-safe: a cancelled `wait` still counts as arrived (as in
    /// Tokio), so the round completes one task early for the others.
    // ANCHOR: wait
    pub async fn wait(&self) -> BarrierWaitResult {
        let mut round = {
            let mut state = self.state.lock();
            state.arrived += 1;
            if state.arrived == self.n {
                // The last to arrive: start the next round, and wake the
                // others by moving the channel on.
                state.arrived = 0;
                state.round += 1;
                let next = state.round;
                state.next_round.send_replace(next);
                return BarrierWaitResult(true);
            }
            // Our round's number: wait until the channel moves past it.
            let mut round = self.round.clone();
            round.mark_unchanged();
            round
        };
        // The sender lives in `self`, so the channel cannot close under us.
        let _ = round.changed().await;
        BarrierWaitResult(false)
    }
    // ANCHOR_END: wait
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.lock();
        f.debug_struct("Barrier")
            .field("n", &self.n)
            .field("arrived", &state.arrived)
            .field("round", &state.round)
            .finish()
    }
}
