//! `rt::join!` and `rt::try_join!`: outputs in order, branches concurrent,
//! the branch polled first rotating (and why it matters under the budget),
//! the first error ending a `try_join!` and dropping the rest.

#![cfg(not(loom))]
#![cfg(not(miri))]

use rt::sync::oneshot;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};

/// A future that is `Pending` `left` more times (waking itself each time),
/// recording its name in `log` on every poll.
struct Recorder {
    name: usize,
    left: usize,
    log: Rc<RefCell<Vec<usize>>>,
}

impl Future for Recorder {
    type Output = usize;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
        self.log.borrow_mut().push(self.name);
        if self.left == 0 {
            return Poll::Ready(self.name);
        }
        self.left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

fn recorders(log: &Rc<RefCell<Vec<usize>>>) -> [Recorder; 3] {
    [0, 1, 2].map(|name| Recorder {
        name,
        left: 2,
        log: log.clone(),
    })
}

#[rt::test]
async fn join_returns_every_output_in_the_order_written() {
    let (a, b, c) = rt::join!(async { 1 }, async { "two" }, async { 3.0 });
    assert_eq!((a, b, c), (1, "two", 3.0));
    let () = rt::join!();
}

#[rt::test]
async fn join_runs_its_branches_concurrently() {
    // Each branch waits for the other: run one after the other, they would
    // wait forever.
    let (to_b, from_a) = oneshot::channel();
    let (to_a, from_b) = oneshot::channel();
    let (a, b) = rt::join!(
        async move {
            to_b.send("ping").unwrap();
            from_b.await.unwrap()
        },
        async move {
            let ping = from_a.await.unwrap();
            to_a.send("pong").unwrap();
            ping
        },
    );
    assert_eq!((a, b), ("pong", "ping"));
}

#[rt::test]
async fn join_rotates_the_branch_it_polls_first() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let [r0, r1, r2] = recorders(&log);
    let outputs = rt::join!(r0, r1, r2);
    assert_eq!(outputs, (0, 1, 2));
    // Three polls of the join: 0 first, then 1, then 2.
    assert_eq!(*log.borrow(), [0, 1, 2, 1, 2, 0, 2, 0, 1]);
}

#[rt::test]
async fn biased_join_polls_in_the_order_written() {
    let log = Rc::new(RefCell::new(Vec::new()));
    let [r0, r1, r2] = recorders(&log);
    rt::join!(biased; r0, r1, r2);
    assert_eq!(*log.borrow(), [0, 1, 2, 0, 1, 2, 0, 1, 2]);
}

/// A branch that spends the whole budget on every poll, beside one that
/// needs a single unit: how far the first got when the second finished.
async fn hog_and_sip(biased: bool) -> usize {
    const HOG_STEPS: usize = 1_000;
    let progress = Arc::new(AtomicUsize::new(0));
    let hog = {
        let progress = progress.clone();
        async move {
            for step in 1..=HOG_STEPS {
                rt::task::consume_budget().await;
                progress.store(step, Ordering::Relaxed);
            }
        }
    };
    let sip = async {
        rt::task::consume_budget().await;
        progress.load(Ordering::Relaxed)
    };
    if biased {
        rt::join!(biased; hog, sip).1
    } else {
        rt::join!(hog, sip).1
    }
}

#[rt::test(flavor = "multi_thread", worker_threads = 1)]
async fn rotation_keeps_a_hungry_branch_from_starving_the_others_under_the_budget() {
    // In a task, so the budget applies. With rotation the second branch is
    // polled first on the join's second poll and finishes at once; in
    // written order it gets no budget until the first branch is done.
    let rotating = rt::spawn(hog_and_sip(false)).await.unwrap();
    let in_order = rt::spawn(hog_and_sip(true)).await.unwrap();
    assert!(rotating < 1_000, "the sip waited {rotating} hog steps");
    assert_eq!(in_order, 1_000);
}

#[rt::test]
async fn try_join_returns_every_value_when_all_are_ok() {
    let joined: Result<(u8, &str), String> = rt::try_join!(async { Ok(1) }, async { Ok("two") });
    assert_eq!(joined, Ok((1, "two")));
}

#[rt::test]
async fn try_join_stops_at_the_first_error_and_drops_the_rest() {
    struct SetOnDrop(Arc<AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let dropped = Arc::new(AtomicBool::new(false));
    let guard = SetOnDrop(dropped.clone());
    let never = async move {
        let _guard = guard;
        std::future::pending::<Result<(), &str>>().await
    };
    let failing = async {
        rt::task::yield_now().await;
        Err::<u8, _>("boom")
    };
    let joined = rt::try_join!(never, failing);
    assert_eq!(joined, Err("boom"));
    assert!(
        dropped.load(Ordering::SeqCst),
        "the pending branch was dropped"
    );
}
