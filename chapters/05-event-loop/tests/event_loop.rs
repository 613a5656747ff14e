//! The event loop's promises, one by one: callbacks run once and in order,
//! stale ids are harmless, other threads can reach the loop.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::thread;
use std::time::{Duration, Instant};

use chapter_05::event_loop::{Closed, ConnId, EventLoop};

/// Runs turns until `done` says so (or panics after ten seconds).
fn run_until(ev: &mut EventLoop, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "the loop never got there");
        ev.set_timeout(Duration::from_millis(5), |_| {}); // bound each wait
        ev.turn().unwrap();
    }
}

#[test]
fn timers_fire_in_deadline_order_and_cancelled_ones_never() {
    let mut ev = EventLoop::new().unwrap();
    let fired = Rc::new(RefCell::new(Vec::new()));
    for (delay, name) in [(30, "c"), (10, "a"), (20, "b")] {
        let fired = Rc::clone(&fired);
        ev.set_timeout(Duration::from_millis(delay), move |_| {
            fired.borrow_mut().push(name)
        });
    }
    let cancelled = {
        let fired = Rc::clone(&fired);
        ev.set_timeout(Duration::from_millis(15), move |_| {
            fired.borrow_mut().push("never")
        })
    };
    assert!(ev.cancel_timeout(cancelled));
    assert!(!ev.cancel_timeout(cancelled));
    run_until(&mut ev, || fired.borrow().len() == 3);
    assert_eq!(*fired.borrow(), ["a", "b", "c"]);
}

#[test]
fn next_tick_runs_before_the_next_wait_and_cannot_starve_io() {
    let mut ev = EventLoop::new().unwrap();
    let count = Rc::new(RefCell::new(0));
    // A tick that re-queues itself forever: each turn runs it once.
    fn again(ev: &mut EventLoop, count: Rc<RefCell<u32>>) {
        *count.borrow_mut() += 1;
        ev.next_tick(move |ev| again(ev, count));
    }
    {
        let count = Rc::clone(&count);
        ev.next_tick(move |ev| again(ev, count));
    }
    let timer_ran = Rc::new(RefCell::new(false));
    {
        let timer_ran = Rc::clone(&timer_ran);
        ev.set_timeout(Duration::from_millis(20), move |_| {
            *timer_ran.borrow_mut() = true
        });
    }
    run_until(&mut ev, || *timer_ran.borrow());
    assert!(*count.borrow() > 1);
}

#[test]
fn another_thread_can_run_code_on_the_loop_and_stop_it() {
    let mut ev = EventLoop::new().unwrap();
    let remote = ev.remote();
    let sender = thread::spawn(move || {
        for i in 0..100 {
            remote.submit(move |ev| {
                ev.next_tick(move |_| assert!(i < 100));
            });
        }
        thread::sleep(Duration::from_millis(20));
        remote.stop();
    });
    ev.run().unwrap(); // returns only because of `stop`
    sender.join().unwrap();
    assert_eq!(ev.stats().remote_tasks, 100);
}

#[test]
fn a_refused_connect_reports_the_error() {
    let mut ev = EventLoop::new().unwrap();
    let addr = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let result = Rc::new(RefCell::new(None));
    {
        let result = Rc::clone(&result);
        ev.connect(addr, move |_, r| *result.borrow_mut() = Some(r.map(|_| ())))
            .unwrap();
    }
    run_until(&mut ev, || result.borrow().is_some());
    let err = result.borrow_mut().take().unwrap().unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionRefused);
}

#[test]
fn writes_complete_close_runs_once_and_stale_ids_do_nothing() {
    let mut ev = EventLoop::new().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let log = Rc::new(RefCell::new(Vec::new()));
    let accepted: Rc<RefCell<Option<ConnId>>> = Rc::default();
    {
        let (log, accepted) = (Rc::clone(&log), Rc::clone(&accepted));
        ev.listen(listener, move |ev, conn| {
            *accepted.borrow_mut() = Some(conn);
            let log2 = Rc::clone(&log);
            ev.write(
                conn,
                &vec![7u8; 1 << 20],
                Some(Box::new(move |_, _, r| {
                    log2.borrow_mut().push(format!("written {}", r.is_ok()))
                })),
            );
            let log3 = Rc::clone(&log);
            ev.on_close(conn, move |_, _, why| {
                log3.borrow_mut()
                    .push(format!("closed {}", matches!(why, Closed::Local)))
            });
            ev.close(conn); // after the megabyte is out
        })
        .unwrap();
    }
    let reader = thread::spawn(move || {
        let mut client = TcpStream::connect(addr).unwrap();
        let mut all = Vec::new();
        client.read_to_end(&mut all).unwrap();
        all.len()
    });
    run_until(&mut ev, || log.borrow().len() == 2);
    assert_eq!(reader.join().unwrap(), 1 << 20);
    assert_eq!(*log.borrow(), ["written true", "closed true"]);
    // The connection is gone; its id is dead even if the slot is reused.
    let stale = accepted.borrow().unwrap();
    assert!(!ev.is_open(stale));
    assert!(!ev.write(stale, b"ghost", None));
    ev.close(stale);
    assert_eq!(ev.sources(), 1, "only the listener is left");
}

#[test]
fn a_peer_that_resets_closes_with_an_error_and_others_carry_on() {
    let mut ev = EventLoop::new().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let closes = Rc::new(RefCell::new(Vec::new()));
    {
        let closes = Rc::clone(&closes);
        ev.listen(listener, move |ev, conn| {
            ev.on_data(conn, |ev, conn, data| {
                ev.write(conn, data, None);
            });
            let closes = Rc::clone(&closes);
            ev.on_close(conn, move |_, _, why| {
                closes.borrow_mut().push(matches!(why, Closed::Error(_)))
            });
        })
        .unwrap();
    }
    let client = thread::spawn(move || {
        // This one sends, then closes with the echo unread: a reset.
        let mut rude = TcpStream::connect(addr).unwrap();
        rude.write_all(&[1u8; 200_000]).unwrap();
        drop(rude);
        // This one is served normally afterwards.
        let mut polite = TcpStream::connect(addr).unwrap();
        polite.write_all(b"still here").unwrap();
        let mut back = [0u8; 10];
        polite.read_exact(&mut back).unwrap();
        back
    });
    run_until(&mut ev, || client.is_finished());
    assert_eq!(&client.join().unwrap(), b"still here");
    run_until(&mut ev, || !closes.borrow().is_empty());
}
