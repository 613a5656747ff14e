//! Every `rt` future whose documentation says it is cancel-safe loses
//! nothing when it is dropped after returning `Pending`: the value, the
//! connection, the datagram, the notification or the tick it was waiting
//! for is still there for the next call. (Those that are not cancel-safe,
//! like `mpsc::Sender::send`, say so and are not checked here.)
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::poll;
use rt::net::{TcpListener, TcpStream, UdpSocket};
use rt::runtime::{Builder, Runtime};
use rt::sync::{Mutex, Notify, Semaphore, broadcast, mpsc, oneshot, watch};
use rt::task::JoinSet;
use rt::time::{self, Duration};
use std::pin::pin;
use std::sync::Arc;

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap()
}

/// Polls `future` once, checks that it is waiting, and drops it.
macro_rules! poll_pending_then_drop {
    ($future:expr) => {{
        let mut future = pin!($future);
        assert!(poll!(future.as_mut()).is_pending(), "expected it to wait");
    }};
}

#[test]
fn channel_receives_lose_no_value() {
    runtime().block_on(async {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        poll_pending_then_drop!(rx.recv());
        tx.send(1).await.unwrap();
        assert_eq!(rx.recv().await, Some(1));

        let mut buffer = Vec::new();
        poll_pending_then_drop!(rx.recv_many(&mut buffer, 8));
        tx.send(2).await.unwrap();
        assert_eq!(rx.recv_many(&mut buffer, 8).await, 1);
        assert_eq!(buffer, [2]);

        let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
        poll_pending_then_drop!(rx.recv());
        tx.send(3).unwrap();
        assert_eq!(rx.recv().await, Some(3));

        let (tx, mut rx) = oneshot::channel::<u32>();
        poll_pending_then_drop!(&mut rx);
        tx.send(4).unwrap();
        assert_eq!(rx.await, Ok(4));

        let (tx, mut rx) = broadcast::channel::<u32>(4);
        poll_pending_then_drop!(rx.recv());
        tx.send(5).unwrap();
        assert_eq!(rx.recv().await, Ok(5));

        let (tx, mut rx) = watch::channel(0u32);
        poll_pending_then_drop!(rx.changed());
        tx.send(6).unwrap();
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow_and_update(), 6);
    });
}

#[test]
fn socket_waits_lose_no_connection_nor_data() {
    runtime().block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        poll_pending_then_drop!(listener.accept());
        let client = TcpStream::connect(addr).await.unwrap();
        let (server, _) = time::timeout(Duration::from_secs(10), listener.accept())
            .await
            .expect("the connection was lost with the cancelled accept")
            .unwrap();

        poll_pending_then_drop!(server.readable());
        client.try_write(b"hi").ok();
        let mut buf = [0u8; 8];
        let read = loop {
            server.readable().await.unwrap();
            match server.try_read(&mut buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(&buf[..read], b"hi");

        let a = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let b = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut datagram = [0u8; 8];
        poll_pending_then_drop!(a.recv_from(&mut datagram));
        b.send_to(b"dg", a.local_addr().unwrap()).await.unwrap();
        let (n, from) = a.recv_from(&mut datagram).await.unwrap();
        assert_eq!(
            (&datagram[..n], from),
            (&b"dg"[..], b.local_addr().unwrap())
        );
    });
}

#[test]
fn join_next_loses_no_output() {
    runtime().block_on(async {
        let (tx, rx) = oneshot::channel::<()>();
        let mut set = JoinSet::new();
        set.spawn(async move {
            rx.await.unwrap();
            9
        });
        poll_pending_then_drop!(set.join_next());
        tx.send(()).unwrap();
        assert_eq!(set.join_next().await.unwrap().unwrap(), 9);
    });
}

#[test]
fn lock_and_permit_waits_lose_no_permit_and_notify_loses_no_notification() {
    runtime().block_on(async {
        let mutex = Mutex::new(0);
        let guard = mutex.lock().await;
        poll_pending_then_drop!(mutex.lock());
        drop(guard);
        assert!(mutex.try_lock().is_ok(), "a cancelled lock kept the mutex");

        let semaphore = Semaphore::new(1);
        let permit = semaphore.acquire().await.unwrap();
        poll_pending_then_drop!(semaphore.acquire_many(1));
        drop(permit);
        assert_eq!(
            semaphore.available_permits(),
            1,
            "a cancelled acquire kept a permit"
        );

        // A notified future chosen by notify_one, then dropped, passes the
        // notification on.
        let notify = Arc::new(Notify::new());
        {
            let mut first = pin!(notify.notified());
            assert!(poll!(first.as_mut()).is_pending());
            notify.notify_one();
        }
        time::timeout(Duration::from_secs(10), notify.notified())
            .await
            .expect("the notification was lost with the dropped waiter");
    });
}

#[test]
fn an_interval_tick_loses_no_tick() {
    let rt = Builder::new_current_thread()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let start = time::Instant::now();
        let mut interval = time::interval(Duration::from_secs(10));
        assert_eq!(interval.tick().await, start);
        poll_pending_then_drop!(interval.tick());
        time::advance(Duration::from_secs(25)).await;
        // The tick due at 10 s comes next, not one at 30 s.
        assert_eq!(interval.tick().await, start + Duration::from_secs(10));
    });
}
