//! The callback relay, step by step and under failure.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use chapter_05::event_loop::{EventLoop, Remote};
use chapter_05::relay::{self, MAX_LINE, expected_reply};

struct Relay {
    addr: SocketAddr,
    remote: Remote,
    thread: Option<thread::JoinHandle<()>>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.remote.stop();
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

/// A relay whose directory is `directory`, or one of its own with `delay`.
fn start(directory: Option<SocketAddr>, delay: Option<Duration>) -> Relay {
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = thread::spawn(move || {
        let mut ev = EventLoop::new().unwrap();
        let directory = directory.unwrap_or_else(|| {
            let id =
                relay::serve_directory(&mut ev, TcpListener::bind("127.0.0.1:0").unwrap(), delay)
                    .unwrap();
            ev.local_addr(id).unwrap()
        });
        let id = relay::serve_relay(
            &mut ev,
            TcpListener::bind("127.0.0.1:0").unwrap(),
            directory,
        )
        .unwrap();
        tx.send((ev.local_addr(id).unwrap(), ev.remote())).unwrap();
        ev.run().unwrap();
    });
    let (addr, remote) = rx.recv().unwrap();
    Relay {
        addr,
        remote,
        thread: Some(thread),
    }
}

fn ask(addr: SocketAddr, lines: &[&str]) -> Vec<String> {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    // All at once: the relay must take pipelined requests in order.
    let mut request = String::new();
    for line in lines {
        request.push_str(line);
        request.push('\n');
    }
    writer.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    lines
        .iter()
        .map(|_| {
            let mut reply = String::new();
            reader.read_line(&mut reply).unwrap();
            reply
        })
        .collect()
}

#[test]
fn every_key_gets_its_value_in_order() {
    let relay = start(None, None);
    let keys: Vec<String> = (0..50)
        .map(|i| {
            if i % 7 == 0 {
                format!("missing-{i}")
            } else {
                format!("k{i}")
            }
        })
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let replies = ask(relay.addr, &keys);
    for (key, reply) in keys.iter().zip(&replies) {
        assert_eq!(*reply, expected_reply(key), "{key}");
    }
}

#[test]
fn an_unreachable_directory_is_an_error_reply_not_a_hang() {
    let nobody = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let relay = start(Some(nobody), None);
    assert_eq!(
        ask(relay.addr, &["a", "b"]),
        ["ERR directory unreachable\n"; 2]
    );
}

#[test]
fn a_slow_directory_times_out() {
    let slow = start(
        None,
        Some(relay::BACKEND_TIMEOUT + Duration::from_millis(500)),
    );
    let replies = ask(slow.addr, &["late"]);
    assert_eq!(replies, ["ERR directory timed out\n"]);
}

#[test]
fn a_line_too_long_ends_the_conversation() {
    let relay = start(None, None);
    let stream = TcpStream::connect(relay.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    writer.write_all(&vec![b'k'; MAX_LINE + 10]).unwrap();
    let mut reader = BufReader::new(stream);
    let mut reply = String::new();
    reader.read_line(&mut reply).unwrap();
    assert_eq!(reply, "ERR line too long\n");
    reply.clear();
    assert_eq!(reader.read_line(&mut reply).unwrap(), 0, "not closed");
}
