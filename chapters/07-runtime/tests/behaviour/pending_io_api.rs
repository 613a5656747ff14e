//! Needs the io, net, time and runtime items of Tokio's API that rt gained
//! in the third audit: `io::{copy_bidirectional_with_sizes, simplex, join,
//! Result}`, `net::lookup_host`, `into_std`, `ttl`/`set_ttl`,
//! `set_zero_linger`, `AsFd`, `poll_accept`, `try_read_buf`, `try_io`,
//! UDP's `peek`/`peek_sender`/`recv_buf`, `UnixStream::into_split`,
//! `Sleep::reset` on a pinned sleep, `timeout` of an `IntoFuture`,
//! `From<Elapsed> for io::Error`, `Handle::{id, name}`,
//! `Builder::{name, on_thread_park, on_thread_unpark}` and
//! `TryCurrentError::is_missing_context`. Every test says what Tokio
//! documents and checks it the same way on both runtimes.

use crate::behaviour::{limit, tcp_pair};
use crate::rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use crate::{rt, shim};
use std::future::IntoFuture;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[test]
fn length_prefixed_frames_cross_tcp_through_a_bufwriter() {
    limit("framed u32 over BufWriter", || {
        shim::runtime().block_on(async {
            let (client, server) = tcp_pair().await;
            let writer = rt::spawn(async move {
                let mut out = rt::io::BufWriter::new(client);
                for i in 0u32..50 {
                    let body = vec![i as u8; i as usize];
                    out.write_u32(body.len() as u32).await?;
                    out.write_all(&body).await?;
                    out.write_u16_le(0xBEEF).await?;
                }
                // Nothing reaches the peer until the buffer is flushed.
                out.flush().await?;
                out.shutdown().await?;
                rt::io::Result::Ok(())
            });
            let mut input = rt::io::BufReader::new(server);
            for i in 0u32..50 {
                let len = input.read_u32().await.unwrap();
                assert_eq!(len, i);
                let mut body = vec![0u8; len as usize];
                input.read_exact(&mut body).await.unwrap();
                assert!(body.iter().all(|&b| b == i as u8));
                assert_eq!(input.read_u16_le().await.unwrap(), 0xBEEF);
            }
            // After the last frame: end of file, which read_u32 reports as
            // UnexpectedEof.
            let end = input.read_u32().await.unwrap_err();
            assert_eq!(end.kind(), io::ErrorKind::UnexpectedEof);
            writer.await.unwrap().unwrap();
        });
    });
}

#[test]
fn copy_bidirectional_with_one_byte_buffers_moves_everything_both_ways() {
    limit("copy_bidirectional_with_sizes", || {
        shim::runtime().block_on(async {
            let (mut near_a, mut far_a) = rt::io::duplex(64);
            let (mut near_b, mut far_b) = rt::io::duplex(64);
            let proxy = rt::spawn(async move {
                rt::io::copy_bidirectional_with_sizes(&mut far_a, &mut far_b, 1, 3).await
            });
            near_a.write_all(b"from a to b").await.unwrap();
            near_b.write_all(b"b to a").await.unwrap();
            // End of file from each side: the proxy shuts the other side's
            // writer down, so each reader sees end of file after the data.
            near_a.shutdown().await.unwrap();
            near_b.shutdown().await.unwrap();
            let mut at_b = Vec::new();
            near_b.read_to_end(&mut at_b).await.unwrap();
            let mut at_a = Vec::new();
            near_a.read_to_end(&mut at_a).await.unwrap();
            assert_eq!(at_b, b"from a to b");
            assert_eq!(at_a, b"b to a");
            assert_eq!(proxy.await.unwrap().unwrap(), (11, 6));
        });
    });
}

#[test]
fn a_simplex_pipe_ends_after_shutdown_and_refuses_more_writes() {
    limit("simplex", || {
        shim::runtime().block_on(async {
            let (mut reader, mut writer) = rt::io::simplex(4);
            let producer = rt::spawn(async move {
                // More than the pipe holds: the writer waits for the reader.
                writer.write_all(b"0123456789").await.unwrap();
                writer.shutdown().await.unwrap();
                writer.write_all(b"late").await.unwrap_err().kind()
            });
            let mut got = Vec::new();
            reader.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"0123456789");
            assert_eq!(producer.await.unwrap(), io::ErrorKind::BrokenPipe);
        });
    });
}

#[test]
fn join_reads_from_one_part_and_writes_to_the_other() {
    limit("io::join", || {
        shim::runtime().block_on(async {
            let (inbound, mut feed) = rt::io::duplex(64);
            let (outbound, mut drain) = rt::io::duplex(64);
            let mut joined = rt::io::join(rt::io::BufReader::new(inbound), outbound);
            feed.write_all(b"line one\nline two\n").await.unwrap();
            let mut line = String::new();
            joined.read_line(&mut line).await.unwrap();
            assert_eq!(line, "line one\n");
            joined.write_all(b"echo").await.unwrap();
            let mut echo = [0u8; 4];
            drain.read_exact(&mut echo).await.unwrap();
            assert_eq!(&echo, b"echo");
            let (_reader, _writer) = joined.into_inner();
        });
    });
}

#[test]
fn lookup_host_parses_an_address_without_a_lookup() {
    limit("lookup_host", || {
        shim::runtime().block_on(async {
            let addrs: Vec<_> = rt::net::lookup_host("127.0.0.1:4242")
                .await
                .unwrap()
                .collect();
            assert_eq!(addrs, vec!["127.0.0.1:4242".parse().unwrap()]);
            let pair: Vec<_> = rt::net::lookup_host(("::1", 7)).await.unwrap().collect();
            assert_eq!(pair, vec!["[::1]:7".parse().unwrap()]);
            // "localhost" goes through the resolver (/etc/hosts): some
            // loopback address, with the port kept.
            let local: Vec<_> = rt::net::lookup_host("localhost:9").await.unwrap().collect();
            assert!(!local.is_empty());
            assert!(local.iter().all(|a| a.ip().is_loopback() && a.port() == 9));
            let bad = rt::net::lookup_host("no port here").await;
            assert!(bad.is_err());
        });
    });
}

#[test]
fn into_std_hands_back_a_non_blocking_socket_that_still_works() {
    limit("into_std", || {
        shim::runtime().block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let std_server = server.into_std().unwrap();
            // Still non-blocking, as documented: nothing to read yet.
            let mut buf = [0u8; 8];
            let early = std::io::Read::read(&mut &std_server, &mut buf).unwrap_err();
            assert_eq!(early.kind(), io::ErrorKind::WouldBlock);
            std_server.set_nonblocking(false).unwrap();
            client.write_all(b"hello").await.unwrap();
            let n = rt::task::spawn_blocking(move || {
                let mut buf = [0u8; 8];
                let n = std::io::Read::read(&mut &std_server, &mut buf).unwrap();
                (n, buf)
            })
            .await
            .unwrap();
            assert_eq!(&n.1[..n.0], b"hello");

            let std_listener = listener.into_std().unwrap();
            assert_eq!(std_listener.local_addr().unwrap(), addr);
            // Registered again, it accepts as before.
            let listener = rt::net::TcpListener::from_std(std_listener).unwrap();
            let (_c, accepted) = rt::join!(rt::net::TcpStream::connect(addr), listener.accept());
            accepted.unwrap();
        });
    });
}

#[test]
fn socket_options_round_trip_and_the_descriptor_is_reachable() {
    use std::os::fd::{AsFd, AsRawFd};
    limit("socket options", || {
        shim::runtime().block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            listener.set_ttl(33).unwrap();
            assert_eq!(listener.ttl().unwrap(), 33);
            let (client, _server) = {
                let addr = listener.local_addr().unwrap();
                let (c, a) = rt::join!(rt::net::TcpStream::connect(addr), listener.accept());
                (c.unwrap(), a.unwrap())
            };
            client.set_ttl(17).unwrap();
            assert_eq!(client.ttl().unwrap(), 17);
            assert_eq!(client.linger().unwrap(), None);
            client.set_zero_linger().unwrap();
            assert_eq!(client.linger().unwrap(), Some(Duration::ZERO));
            // What socket2 and setsockopt users need: the descriptor.
            assert!(client.as_raw_fd() >= 0);
            let sock = socket2::SockRef::from(&client);
            sock.set_keepalive(true).unwrap();
            assert!(socket2::SockRef::from(&client.as_fd()).keepalive().unwrap());
        });
    });
}

#[test]
fn poll_accept_and_try_read_buf_work_from_hand_written_polls() {
    limit("poll_accept, try_read_buf", || {
        shim::runtime().block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = rt::net::TcpStream::connect(addr).await.unwrap();
            let (server, peer) = std::future::poll_fn(|cx| listener.poll_accept(cx))
                .await
                .unwrap();
            assert_eq!(peer, client.local_addr().unwrap());
            client.write_all(b"abc").await.unwrap();
            let mut got = Vec::with_capacity(16);
            loop {
                server.readable().await.unwrap();
                match server.try_read_buf(&mut got) {
                    Ok(n) => {
                        assert!(n > 0);
                        if got.len() == 3 {
                            break;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(e) => panic!("try_read_buf: {e}"),
                }
            }
            assert_eq!(got, b"abc");
            // try_io with the caller's own system call (here std's read on
            // the borrowed descriptor): WouldBlock when nothing waits.
            let mut buf = [0u8; 4];
            let empty = server.try_io(rt::io::Interest::READABLE, || {
                std::io::Read::read(&mut &std_view(&server), &mut buf)
            });
            assert_eq!(empty.unwrap_err().kind(), io::ErrorKind::WouldBlock);
        });
    });
}

/// A `std` stream on a duplicate of `stream`'s descriptor, for a system
/// call of the caller's own.
fn std_view(stream: &rt::net::TcpStream) -> std::net::TcpStream {
    use std::os::fd::AsFd;
    std::net::TcpStream::from(stream.as_fd().try_clone_to_owned().unwrap())
}

#[test]
fn udp_peek_leaves_the_datagram_and_recv_buf_appends_it() {
    limit("udp peek, recv_buf", || {
        shim::runtime().block_on(async {
            let a = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let b = rt::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
            a.connect(b.local_addr().unwrap()).await.unwrap();
            b.connect(a.local_addr().unwrap()).await.unwrap();
            a.send(b"first").await.unwrap();
            assert_eq!(b.peek_sender().await.unwrap(), a.local_addr().unwrap());
            let mut peeked = [0u8; 16];
            let n = b.peek(&mut peeked).await.unwrap();
            assert_eq!(&peeked[..n], b"first");
            let mut got = Vec::with_capacity(32);
            got.extend_from_slice(b">");
            let n = b.recv_buf(&mut got).await.unwrap();
            assert_eq!(n, 5);
            assert_eq!(got, b">first");
            a.send(b"second").await.unwrap();
            let mut from = Vec::with_capacity(32);
            let (n, sender) = b.recv_buf_from(&mut from).await.unwrap();
            assert_eq!((n, sender), (6, a.local_addr().unwrap()));
            assert_eq!(from, b"second");
            b.set_multicast_loop_v4(false).unwrap();
            assert!(!b.multicast_loop_v4().unwrap());
            let std_b = b.into_std().unwrap();
            assert_eq!(
                std_b.local_addr().unwrap().ip(),
                std::net::Ipv4Addr::LOCALHOST
            );
        });
    });
}

#[test]
fn unix_owned_halves_move_to_tasks_and_the_write_half_closes_on_drop() {
    limit("UnixStream::into_split", || {
        shim::runtime().block_on(async {
            let (left, mut right) = rt::net::UnixStream::pair().unwrap();
            let (mut read_half, mut write_half) = left.into_split();
            let writer = rt::spawn(async move {
                write_half.write_all(b"ping").await.unwrap();
                // Dropped here: the peer reads end of file.
            });
            let mut got = Vec::new();
            right.read_to_end(&mut got).await.unwrap();
            assert_eq!(got, b"ping");
            writer.await.unwrap();
            right.write_all(b"pong").await.unwrap();
            let mut back = [0u8; 4];
            read_half.read_exact(&mut back).await.unwrap();
            assert_eq!(&back, b"pong");

            let (one, _other) = rt::net::UnixStream::pair().unwrap();
            let (r1, w1) = one.into_split();
            let (two, _) = rt::net::UnixStream::pair().unwrap();
            let (r2, w2) = two.into_split();
            // Halves of two streams are refused and handed back.
            let rt::net::unix::ReuniteError(r2, w1) = r2.reunite(w1).unwrap_err();
            r1.reunite(w1).unwrap();
            r2.reunite(w2).unwrap();
        });
    });
}

#[test]
fn a_pinned_sleep_reset_after_firing_waits_again() {
    limit("Sleep::reset", || {
        shim::runtime().block_on(async {
            let sleep = rt::time::sleep(Duration::from_millis(5));
            rt::pin!(sleep);
            sleep.as_mut().await;
            assert!(sleep.is_elapsed());
            let deadline = rt::time::Instant::now() + Duration::from_millis(40);
            sleep.as_mut().reset(deadline);
            assert_eq!(sleep.deadline(), deadline);
            assert!(!sleep.is_elapsed());
            // Pending again: a timeout shorter than the new deadline wins.
            let early = rt::time::timeout(Duration::from_millis(1), sleep.as_mut()).await;
            assert!(early.is_err());
            sleep.as_mut().await;
            assert!(rt::time::Instant::now() >= deadline);
            assert!(sleep.is_elapsed());
        });
    });
}

/// A value that is not a future but turns into one.
struct Later(u32);

impl IntoFuture for Later {
    type Output = u32;
    type IntoFuture = std::future::Ready<u32>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(self.0)
    }
}

/// Times out, and lets `?` turn the `Elapsed` into an I/O error.
async fn never_in_time() -> io::Result<()> {
    rt::time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await?;
    Ok(())
}

#[test]
fn timeout_takes_into_future_and_elapsed_becomes_timed_out() {
    limit("timeout IntoFuture, Elapsed into io::Error", || {
        shim::runtime().block_on(async {
            assert_eq!(
                rt::time::timeout(Duration::from_secs(5), Later(9)).await,
                Ok(9)
            );
            let error = never_in_time().await.unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::TimedOut);
            // The wrapped future can be looked at, and taken back out
            // without its time limit.
            let mut wrapped = rt::time::timeout(Duration::from_secs(5), std::future::ready(3));
            let inner: &std::future::Ready<u32> = wrapped.get_ref();
            assert_eq!(format!("{inner:?}"), "Ready(Some(3))");
            let inner: &mut std::future::Ready<u32> = wrapped.get_mut();
            assert_eq!(format!("{inner:?}"), "Ready(Some(3))");
            assert_eq!(wrapped.into_inner().await, 3);
        });
    });
}

#[test]
fn each_runtime_has_its_own_id_and_the_name_it_was_given() {
    limit("Handle::id, Handle::name", || {
        let first = shim::builder().name("first-runtime").build().unwrap();
        let second = shim::runtime();
        assert_eq!(first.handle().name(), Some("first-runtime"));
        assert_eq!(second.handle().name(), None);
        assert_ne!(first.handle().id(), second.handle().id());
        assert_eq!(first.handle().id(), first.handle().clone().id());
        let inside = first.block_on(async { rt::runtime::Handle::current().id() });
        assert_eq!(inside, first.handle().id());
        assert!(!first.handle().id().to_string().is_empty());
    });
}

#[test]
fn park_and_unpark_hooks_run_around_idle_time() {
    limit("on_thread_park", || {
        let parks = Arc::new(AtomicUsize::new(0));
        let unparks = Arc::new(AtomicUsize::new(0));
        let runtime = {
            let (p, u) = (parks.clone(), unparks.clone());
            shim::builder()
                .on_thread_park(move || {
                    p.fetch_add(1, Ordering::SeqCst);
                })
                .on_thread_unpark(move || {
                    u.fetch_add(1, Ordering::SeqCst);
                })
                .max_io_events_per_tick(256)
                .max_io_events_per_busy_tick(8)
                .build()
                .unwrap()
        };
        runtime.block_on(async {
            // Nothing to do for a while: the runtime's threads go idle.
            rt::spawn(rt::time::sleep(Duration::from_millis(30)))
                .await
                .unwrap();
        });
        drop(runtime);
        assert!(parks.load(Ordering::SeqCst) >= 1);
        assert!(unparks.load(Ordering::SeqCst) >= 1);
    });
}

#[test]
fn try_current_outside_a_runtime_says_the_context_is_missing() {
    let error = rt::runtime::Handle::try_current().unwrap_err();
    assert!(error.is_missing_context());
    assert!(!error.is_thread_local_destroyed());
}

#[test]
fn a_local_runtime_runs_tasks_that_are_not_send() {
    use std::cell::RefCell;
    use std::rc::Rc;
    limit("LocalRuntime", || {
        let runtime = rt::runtime::LocalRuntime::new().unwrap();
        let log = Rc::new(RefCell::new(Vec::new()));
        // Spawned before block_on: it runs once block_on runs.
        let early = {
            let log = log.clone();
            runtime.spawn_local(async move { log.borrow_mut().push("early") })
        };
        // Under `enter`, the free function reaches the runtime's set too.
        let entered = {
            let _guard = runtime.enter();
            let log = log.clone();
            rt::task::spawn_local(async move { log.borrow_mut().push("entered") })
        };
        let sent = runtime.handle().spawn(async { 40 + 2 });
        let total = runtime.block_on(async {
            early.await.unwrap();
            entered.await.unwrap();
            // An Rc held across an .await, in a task spawned from inside.
            let held = log.clone();
            let inner = rt::task::spawn_local(async move {
                rt::task::yield_now().await;
                held.borrow_mut().push("inside");
                held.borrow().len()
            });
            inner.await.unwrap() + sent.await.unwrap()
        });
        assert_eq!(total, 3 + 42);
        assert_eq!(*log.borrow(), ["early", "entered", "inside"]);
        let blocking = runtime.block_on(runtime.spawn_blocking(|| 7)).unwrap();
        assert_eq!(blocking, 7);
        runtime.shutdown_timeout(Duration::from_secs(5));
    });
}

#[crate::rt::test(flavor = "local")]
async fn the_local_flavor_lets_a_test_spawn_local() {
    let counter = std::rc::Rc::new(std::cell::Cell::new(1));
    let inner = counter.clone();
    rt::task::spawn_local(async move { inner.set(inner.get() * 5) })
        .await
        .unwrap();
    assert_eq!(counter.get(), 5);
}

#[test]
fn async_fd_waits_for_a_descriptor_the_runtime_does_not_own() {
    use rt::io::unix::AsyncFd;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream as StdUnix;
    limit("AsyncFd", || {
        shim::runtime().block_on(async {
            let (ours, mut theirs) = StdUnix::pair().unwrap();
            ours.set_nonblocking(true).unwrap();
            // SAFETY: `ours` owns its descriptor, which stays open until
            // `into_inner` hands it back below.
            let fd = unsafe { AsyncFd::register(ours) }.unwrap();
            // Writable at once; nothing to read yet.
            let guard = fd.writable().await.unwrap();
            assert!(guard.ready().is_writable());
            drop(guard);
            let quiet = rt::time::timeout(Duration::from_millis(20), fd.readable()).await;
            assert!(quiet.is_err(), "readable with nothing sent");

            theirs.write_all(b"one").unwrap();
            let mut buf = [0u8; 8];
            let n = loop {
                let mut guard = fd.readable().await.unwrap();
                match guard.try_io(|inner| inner.get_ref().read(&mut buf)) {
                    Ok(result) => break result.unwrap(),
                    Err(_would_block) => continue,
                }
            };
            assert_eq!(&buf[..n], b"one");
            // Drained: the next attempt says WouldBlock and clears the
            // readiness, so waiting waits again.
            let mut guard = fd.readable().await.unwrap();
            assert!(
                guard
                    .try_io(|inner| inner.get_ref().read(&mut buf))
                    .is_err()
            );
            let quiet = rt::time::timeout(Duration::from_millis(20), fd.readable()).await;
            assert!(quiet.is_err(), "readable again after WouldBlock cleared it");

            theirs.write_all(b"two").unwrap();
            let n = fd
                .async_io(rt::io::Interest::READABLE, |inner| (&*inner).read(&mut buf))
                .await
                .unwrap();
            assert_eq!(&buf[..n], b"two");

            // Handed back, deregistered, still a working socket.
            let mut ours = fd.into_inner();
            theirs.write_all(b"3").unwrap();
            ours.set_nonblocking(false).unwrap();
            let n = ours.read(&mut buf).unwrap();
            assert_eq!(&buf[..n], b"3");

            // epoll refuses a regular file: the error, and the file back.
            let path = std::env::temp_dir().join(format!(
                "rt-async-fd-{}-{}",
                std::process::id(),
                shim::NAME
            ));
            let file = std::fs::File::create(&path).unwrap();
            // SAFETY: `file` owns its descriptor; it comes back in the error.
            let refused = unsafe { AsyncFd::register(file) }.unwrap_err();
            let (_file, error) = refused.into_parts();
            assert_eq!(error.raw_os_error(), Some(libc::EPERM));
            std::fs::remove_file(&path).unwrap();
        });
    });
}
