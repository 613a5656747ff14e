//! The relay as a hand-written future and as async/await: the same replies
//! as Chapter 5's callbacks, the same failures, and the state machine's
//! transitions for one request.

// Real sockets and processes: Miri runs the library's tests only.
#![cfg(not(miri))]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener as StdListener, TcpStream as StdStream};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use chapter_05::relay::{self as callbacks, expected_reply};
use chapter_06::executor::{Executor, spawn};
use chapter_06::net::TcpListener;
use chapter_06::relay_future::RelaySession;
use chapter_06::{relay_async, relay_future};

#[derive(Clone, Copy, Debug)]
enum Kind {
    Future,
    Async,
}

/// Runs a relay of `kind` (with its own directory, or `directory`) on a
/// thread; returns its address. The thread lives as long as the test.
fn start(kind: Kind, directory: Option<SocketAddr>, delay: Option<Duration>) -> SocketAddr {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let ex = Executor::new().unwrap();
        let directory = directory.unwrap_or_else(|| {
            ex.reactor(|ev| {
                let id = callbacks::serve_directory(
                    ev,
                    StdListener::bind("127.0.0.1:0").unwrap(),
                    delay,
                )
                .unwrap();
                ev.local_addr(id).unwrap()
            })
            .unwrap()
        });
        ex.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0".parse().unwrap()).unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let _ = match kind {
                Kind::Future => relay_future::serve(listener, directory).await,
                Kind::Async => relay_async::serve(listener, directory).await,
            };
        });
    });
    rx.recv().unwrap()
}

fn ask(addr: SocketAddr, keys: &[&str]) -> Vec<String> {
    let stream = StdStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    let request: String = keys.iter().map(|k| format!("{k}\n")).collect();
    writer.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    keys.iter()
        .map(|_| {
            let mut reply = String::new();
            reader.read_line(&mut reply).unwrap();
            reply
        })
        .collect()
}

#[test]
fn both_give_every_key_its_value_in_order() {
    for kind in [Kind::Future, Kind::Async] {
        let addr = start(kind, None, None);
        let keys: Vec<String> = (0..40)
            .map(|i| {
                if i % 5 == 0 {
                    format!("missing-{i}")
                } else {
                    format!("k{i}")
                }
            })
            .collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        for (key, reply) in keys.iter().zip(ask(addr, &keys)) {
            assert_eq!(reply, expected_reply(key), "{kind:?}: {key}");
        }
    }
}

#[test]
fn both_report_an_unreachable_directory() {
    let nobody = StdListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    for kind in [Kind::Future, Kind::Async] {
        let addr = start(kind, Some(nobody), None);
        assert_eq!(
            ask(addr, &["a", "b"]),
            ["ERR directory unreachable\n"; 2],
            "{kind:?}"
        );
    }
}

#[test]
fn both_time_out_a_slow_directory() {
    for kind in [Kind::Future, Kind::Async] {
        let addr = start(
            kind,
            None,
            Some(callbacks::BACKEND_TIMEOUT + Duration::from_millis(300)),
        );
        assert_eq!(
            ask(addr, &["slow"]),
            ["ERR directory timed out\n"],
            "{kind:?}"
        );
    }
}

#[test]
fn the_hand_written_state_machine_walks_through_one_request() {
    let ex = Executor::new().unwrap();
    let directory = ex
        .reactor(|ev| {
            let id =
                callbacks::serve_directory(ev, StdListener::bind("127.0.0.1:0").unwrap(), None)
                    .unwrap();
            ev.local_addr(id).unwrap()
        })
        .unwrap();
    let trace = ex.block_on(async move {
        let listener = TcpListener::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.local_addr().unwrap();
        // A blocking client on its own thread: one request, then it leaves.
        let client = thread::spawn(move || ask(addr, &["alpha"]));
        let (stream, _) = listener.accept().await.unwrap();
        let session = spawn(async move {
            let mut session = RelaySession::traced(stream, directory);
            (&mut session).await.unwrap();
            session.trace().to_vec()
        });
        let trace = session.await;
        assert_eq!(client.join().unwrap(), [expected_reply("alpha")]);
        trace
    });
    insta::assert_snapshot!(trace.join("\n"));
}
