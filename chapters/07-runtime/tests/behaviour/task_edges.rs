//! The edges of a task's life and of a waiter's, as Tokio documents and
//! does them: what a destructor sees of the task-local values
//! (`LocalKey::scope`, `sync_scope`) and of the task's id (`task::try_id`)
//! while the runtime drops a future or an output nobody took, and where a
//! `Notify` notification goes when the `Notified` it chose is dropped
//! before it looks.

use super::limit;
use crate::{rt, shim};
use futures::FutureExt;
use rt::sync::Notify;
use rt::task::Id;
use std::future::{Future, pending};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

rt::task_local! {
    static KEY: u32;
}

/// What a [`Probe`] saw when it was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    label: &'static str,
    /// `KEY.try_get()`.
    key: Option<u32>,
    /// `task::try_id()`.
    id: Option<Id>,
}

type Log = Arc<Mutex<Vec<Seen>>>;

/// Records, when dropped, the task-local `KEY` and the current task's id.
struct Probe {
    label: &'static str,
    log: Log,
}

impl Probe {
    fn new(label: &'static str, log: &Log) -> Probe {
        Probe {
            label,
            log: log.clone(),
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        let seen = Seen {
            label: self.label,
            key: KEY.try_get().ok(),
            id: rt::task::try_id(),
        };
        self.log.lock().unwrap().push(seen);
    }
}

/// A future that is ready at its first poll and carries a [`Probe`]: its
/// own drop, not an async block's locals, is what the probe sees.
struct ReadyWithProbe(#[allow(dead_code)] Probe);

impl Future for ReadyWithProbe {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
}

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn seen(log: &Log, label: &str) -> Option<Seen> {
    log.lock()
        .unwrap()
        .iter()
        .find(|s| s.label == label)
        .copied()
}

/// Waits (on the runtime's timer, within the test's hang limit) until the
/// probe `label` has been dropped.
async fn wait_for(log: &Log, label: &str) -> Seen {
    loop {
        if let Some(seen) = seen(log, label) {
            return seen;
        }
        rt::time::sleep(Duration::from_millis(1)).await;
    }
}

// ---- A: task-locals while the inner future is dropped -------------------

/// Tokio drops the future inside `scope` with the task-local still set:
/// when the inner future completes, it is dropped at once, in the scope
/// (before `scope`'s own poll returns), so its destructor reads the value.
#[test]
fn a_completed_scope_drops_its_future_with_the_value_set() {
    limit("scope: completed", || {
        let runtime = shim::runtime();
        let log = new_log();
        let log2 = log.clone();
        runtime.block_on(async move {
            let mut scope = pin!(KEY.scope(1, ReadyWithProbe(Probe::new("inner", &log2))));
            scope.as_mut().await;
            // The scope itself is still alive: the inner future was dropped
            // when it completed.
            let seen = seen(&log2, "inner").expect("the inner future is dropped on completion");
            assert_eq!(seen.key, Some(1));
            assert!(KEY.try_get().is_err(), "the value is set only inside");
        });
        assert_eq!(log.lock().unwrap().len(), 1);
    });
}

/// A `scope` future dropped before its inner future completed (cancelled
/// mid-way, as `select!` or `timeout` do) drops the inner future with the
/// task-local set, as Tokio's `TaskLocalFuture` does in its `Drop`.
#[test]
fn a_cancelled_scope_drops_its_future_with_the_value_set() {
    limit("scope: cancelled", || {
        let runtime = shim::runtime();
        let log = new_log();
        let probe = Probe::new("inner", &log);
        runtime.block_on(async move {
            let scope = KEY.scope(2, async move {
                let _probe = probe;
                pending::<()>().await;
            });
            // One poll, then dropped.
            assert!(scope.now_or_never().is_none());
            assert!(KEY.try_get().is_err());
        });
        assert_eq!(seen(&log, "inner").unwrap().key, Some(2));
    });
}

/// A `scope` future that is never polled still drops its inner future with
/// the task-local set (Tokio's `Drop` enters the scope whenever the inner
/// future is still there).
#[test]
fn a_scope_never_polled_drops_its_future_with_the_value_set() {
    limit("scope: never polled", || {
        let log = new_log();
        let probe = Probe::new("inner", &log);
        let scope = KEY.scope(3, async move {
            let _probe = probe;
        });
        drop(scope);
        assert_eq!(seen(&log, "inner").unwrap().key, Some(3));
        assert!(KEY.try_get().is_err());
    });
}

/// An inner scope of the same key shadows the outer value, also while its
/// future is dropped, and the outer value is back afterwards, in `scope` and
/// in `sync_scope` alike. A value taken out with `take_value` is no longer
/// available to the task-local (Tokio's words), not even to the destructor.
#[test]
fn a_nested_scope_shadows_the_outer_value_while_its_future_is_dropped() {
    limit("scope: nested", || {
        let runtime = shim::runtime();
        let log = new_log();
        let log2 = log.clone();
        runtime.block_on(KEY.scope(10, async move {
            let inner = KEY.scope(20, ReadyWithProbe(Probe::new("scope in scope", &log2)));
            drop(inner);
            assert_eq!(KEY.get(), 10, "the outer value is back");

            let mut taken = Box::pin(KEY.scope(30, ReadyWithProbe(Probe::new("taken", &log2))));
            assert_eq!(taken.as_mut().take_value(), Some(30));
            drop(taken);
            assert_eq!(KEY.get(), 10);
        }));
        KEY.sync_scope(40, || {
            drop(KEY.scope(50, ReadyWithProbe(Probe::new("scope in sync_scope", &log))));
            assert_eq!(KEY.get(), 40);
            let probe = Probe::new("sync_scope's closure", &log);
            KEY.sync_scope(60, move || drop(probe));
            assert_eq!(KEY.get(), 40);
        });
        assert_eq!(seen(&log, "scope in scope").unwrap().key, Some(20));
        assert_eq!(seen(&log, "taken").unwrap().key, None);
        assert_eq!(seen(&log, "scope in sync_scope").unwrap().key, Some(50));
        assert_eq!(seen(&log, "sync_scope's closure").unwrap().key, Some(60));
        assert!(KEY.try_get().is_err());
    });
}

// ---- B: the task's id while its future or output is dropped -------------

/// Tokio makes a task's id current while it drops the task's output that
/// no `JoinHandle` will read: the handle dropped before the task finished
/// (the output is dropped as the task completes) or after (the handle's
/// drop drops it). A destructor in the output sees the id the task had
/// while it ran.
#[test]
fn an_output_nobody_reads_is_dropped_with_the_tasks_id() {
    limit("id: unread output", || {
        let runtime = shim::runtime();
        let log = new_log();
        runtime.block_on(async move {
            // Detached before it finishes.
            let (go, wait) = rt::sync::oneshot::channel::<()>();
            let (ran_tx, ran_rx) = rt::sync::oneshot::channel();
            let probe = Probe::new("detached", &log);
            let handle = rt::spawn(async move {
                ran_tx.send(rt::task::try_id()).unwrap();
                let _ = wait.await;
                probe
            });
            let id = handle.id();
            drop(handle);
            assert_eq!(ran_rx.await.unwrap(), Some(id));
            go.send(()).unwrap();
            assert_eq!(wait_for(&log, "detached").await.id, Some(id));

            // The handle dropped after the task finished.
            let probe = Probe::new("finished", &log);
            let handle = rt::spawn(async move { probe });
            let id = handle.id();
            while !handle.is_finished() {
                rt::time::sleep(Duration::from_millis(1)).await;
            }
            assert!(seen(&log, "finished").is_none(), "the output waits");
            drop(handle);
            assert_eq!(seen(&log, "finished").unwrap().id, Some(id));
        });
    });
}

/// `abort()` drops the task's future (`JoinHandle::abort`: "the task is
/// cancelled"); Tokio does so with the task's id current, and a future made
/// by `scope` is dropped with its task-local set.
#[test]
fn an_aborted_tasks_future_is_dropped_with_its_id_and_task_locals() {
    limit("id: abort", || {
        let runtime = shim::runtime();
        let log = new_log();
        runtime.block_on(async move {
            let (ran_tx, ran_rx) = rt::sync::oneshot::channel();
            let probe = Probe::new("aborted", &log);
            let handle = rt::spawn(KEY.scope(7, async move {
                let _probe = probe;
                ran_tx.send(rt::task::try_id()).unwrap();
                pending::<()>().await;
            }));
            let id = handle.id();
            assert_eq!(ran_rx.await.unwrap(), Some(id));
            handle.abort();
            assert!(handle.await.unwrap_err().is_cancelled());
            let seen = wait_for(&log, "aborted").await;
            assert_eq!((seen.id, seen.key), (Some(id), Some(7)));

            // Aborted before its first poll.
            let probe = Probe::new("aborted unpolled", &log);
            let handle = rt::spawn(KEY.scope(8, async move {
                let _probe = probe;
            }));
            let id = handle.id();
            handle.abort();
            let _ = handle.await;
            let seen = wait_for(&log, "aborted unpolled").await;
            assert_eq!((seen.id, seen.key), (Some(id), Some(8)));
        });
    });
}

/// Dropping the runtime drops every task still pending ("tasks spawned
/// through Runtime::spawn keep running until they yield. Then they are
/// dropped"); Tokio drops each future with its task's id current, and a
/// `scope` future with its task-local set.
#[test]
fn a_pending_task_is_dropped_at_shutdown_with_its_id_and_task_locals() {
    limit("id: shutdown", || {
        let runtime = shim::runtime();
        let log = new_log();
        let probe = Probe::new("pending", &log);
        let (ran_tx, ran_rx) = std::sync::mpsc::channel();
        let handle = runtime.spawn(KEY.scope(9, async move {
            let _probe = probe;
            ran_tx.send(rt::task::try_id()).unwrap();
            pending::<()>().await;
        }));
        let id = handle.id();
        let ran = runtime.block_on(async move {
            loop {
                if let Ok(ran) = ran_rx.try_recv() {
                    return ran;
                }
                rt::time::sleep(Duration::from_millis(1)).await;
            }
        });
        assert_eq!(ran, Some(id));
        drop(runtime);
        let seen = seen(&log, "pending").expect("shutdown dropped the future");
        assert_eq!((seen.id, seen.key), (Some(id), Some(9)));
        drop(handle);
    });
}

// ---- C: where a notification goes when its waiter leaves ----------------

/// A waiting `Notified`, boxed so that it can be moved and dropped.
type Waiter<'a> = Pin<Box<rt::sync::futures::Notified<'a>>>;

/// `N` `Notified` futures in line, oldest first, each enabled (in line for
/// `notify_one`: Tokio's `enable`).
fn waiters<const N: usize>(notify: &Notify) -> [Waiter<'_>; N] {
    std::array::from_fn(|_| {
        let mut waiter = Box::pin(notify.notified());
        assert!(!waiter.as_mut().enable(), "nobody notified yet");
        waiter
    })
}

/// True if the waiter has been notified: one poll, which completes it.
fn is_notified(waiter: &mut Waiter<'_>) -> bool {
    waiter.as_mut().now_or_never().is_some()
}

/// `notify_last` "wakes the most recently added waiter"; if that waiter is
/// dropped before it looks, Tokio passes the notification on with the same
/// rule: to the newest waiter left in line.
#[test]
fn notify_last_passes_a_dropped_waiters_notification_to_the_newest() {
    limit("notify_last then drop", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let notify = Notify::new();
            let [mut oldest, mut middle, newest] = waiters(&notify);
            notify.notify_last();
            drop(newest);
            assert!(!is_notified(&mut oldest), "the oldest was not chosen");
            assert!(is_notified(&mut middle), "the newest left in line is");
            // Nothing more was given: no permit either.
            assert!(notify.notified().now_or_never().is_none());
        });
    });
}

/// `notify_one` "notifies the first waiting task", and a chosen waiter
/// dropped unpolled passes the notification to the oldest left in line.
/// With notifications from both `notify_one` and `notify_last` outstanding,
/// each is passed on by the rule that chose it; with nobody left in line it
/// becomes the stored permit ("the next call to `notified().await` will
/// complete immediately"), one at most.
#[test]
fn notify_one_passes_a_dropped_waiters_notification_to_the_oldest() {
    limit("notify_one then drop", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let notify = Notify::new();
            let [oldest, mut middle, mut newest] = waiters(&notify);
            notify.notify_one();
            drop(oldest);
            assert!(!is_notified(&mut newest));
            assert!(is_notified(&mut middle));
            drop(newest);

            let [w1, mut w2, mut w3, mut w4, w5] = waiters(&notify);
            notify.notify_last(); // chooses w5
            notify.notify_one(); // chooses w1
            drop(w5); // newest left: w4
            drop(w1); // oldest left: w2
            assert!(!is_notified(&mut w3));
            assert!(is_notified(&mut w2));
            assert!(is_notified(&mut w4));
            drop(w3);

            let [w1, w2] = waiters(&notify);
            notify.notify_one();
            notify.notify_one();
            drop(w1);
            drop(w2);
            assert!(notify.notified().now_or_never().is_some(), "a permit");
            assert!(notify.notified().now_or_never().is_none(), "only one");
        });
    });
}

/// Leaving the line loses nothing and takes nothing: a `Notified` dropped
/// after `enable` but before any notification passes nothing on; one that
/// took the stored permit in `enable` and is then dropped does not give it
/// back; a waiter woken by `notify_waiters` and dropped unpolled passes
/// nothing on (`notify_waiters` stores no permit).
#[test]
fn leaving_the_line_without_a_single_notification_passes_nothing_on() {
    limit("drop without notify_one", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let notify = Notify::new();
            let [oldest, mut middle, mut newest] = waiters(&notify);
            drop(oldest);
            assert!(!is_notified(&mut middle));
            notify.notify_one();
            assert!(is_notified(&mut middle), "the oldest still in line");
            assert!(!is_notified(&mut newest));
            drop(newest);
            assert!(notify.notified().now_or_never().is_none());

            notify.notify_one();
            let mut took_permit = Box::pin(notify.notified());
            assert!(took_permit.as_mut().enable(), "enable takes the permit");
            drop(took_permit);
            assert!(notify.notified().now_or_never().is_none(), "not given back");

            let [oldest, mut middle, newest] = waiters(&notify);
            notify.notify_waiters();
            drop(oldest);
            drop(newest);
            assert!(is_notified(&mut middle));
            assert!(notify.notified().now_or_never().is_none());
        });
    });
}

/// The same orders with tasks: three tasks wait in line, in the order they
/// enabled their `Notified`; `notify_last` chooses the newest, whose task is
/// aborted before it runs again, and the notification reaches the task that
/// enabled second.
#[test]
fn notify_last_reaches_the_newest_task_left_when_the_chosen_one_is_aborted() {
    limit("notify_last with tasks", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let notify = Arc::new(Notify::new());
            let mut handles = Vec::new();
            for i in 0..3 {
                let notify = notify.clone();
                let (enabled_tx, enabled_rx) = rt::sync::oneshot::channel();
                let (go_tx, go_rx) = rt::sync::oneshot::channel::<()>();
                let handle = rt::spawn(async move {
                    let mut notified = pin!(notify.notified());
                    notified.as_mut().enable();
                    enabled_tx.send(()).unwrap();
                    // Held here (not polling the Notified) until told.
                    let _ = go_rx.await;
                    notified.await;
                    i
                });
                enabled_rx.await.unwrap();
                handles.push((handle, go_tx));
            }
            notify.notify_last();
            let (newest, newest_go) = handles.pop().unwrap();
            newest.abort();
            assert!(newest.await.unwrap_err().is_cancelled());
            drop(newest_go);
            let (middle, middle_go) = handles.pop().unwrap();
            let (oldest, oldest_go) = handles.pop().unwrap();
            middle_go.send(()).unwrap();
            oldest_go.send(()).unwrap();
            // Bounded: a notification passed to the wrong task leaves this
            // one waiting.
            let woken = rt::time::timeout(Duration::from_secs(5), middle)
                .await
                .expect("the middle task got the notification");
            assert_eq!(woken.unwrap(), 1);
            oldest.abort();
        });
    });
}

/// Tokio's `Notified` spends none of the task's cooperative budget (unlike
/// a channel's receive): a task that notifies itself and waits in a loop
/// is always ready, and a `biased` `select!` beside a `yield_now` branch
/// never gets to that branch, since the budget it checks is never spent.
/// Counted in iterations, not time.
#[test]
fn waiting_on_a_notify_spends_no_budget() {
    limit("notified in a loop", || {
        shim::runtime().block_on(async {
            let notify = Notify::new();
            let mut rounds = 0u32;
            let spin = async {
                while rounds < 10_000 {
                    notify.notify_one();
                    notify.notified().await;
                    rounds += 1;
                }
            };
            let spun = rt::select! {
                biased;
                () = spin => true,
                () = rt::task::yield_now() => false,
            };
            assert!(spun, "the loop yielded after {rounds} rounds");
        });
    });
}
