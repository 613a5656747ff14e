//! Needs `TcpStream::readable(&self) -> io::Result<()>` (Tokio: `pub async
//! fn readable(&self) -> io::Result<()>`) and `TcpStream::try_read(&self,
//! buf: &mut [u8]) -> io::Result<usize>`, so that two tasks can wait on one
//! shared stream. Compiled into every entry file of the suite now that rt
//! has them.

use crate::behaviour::limit;
use crate::{rt, shim};
use std::sync::Arc;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(5);

#[test]
fn two_tasks_waiting_readable_on_one_stream_are_both_woken() {
    limit("two readable waiters", || {
        let runtime = shim::runtime();
        runtime.block_on(async {
            let listener = rt::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let client = Arc::new(rt::net::TcpStream::connect(addr).await.unwrap());
            let (mut server, _) = listener.accept().await.unwrap();
            let waiters: Vec<_> = (0..2)
                .map(|_| {
                    let client = client.clone();
                    rt::spawn(async move { client.readable().await })
                })
                .collect();
            rt::time::sleep(Duration::from_millis(30)).await;
            shim::write_all(&mut server, b"x").await.unwrap();
            for (i, w) in waiters.into_iter().enumerate() {
                rt::time::timeout(PATIENCE, w)
                    .await
                    .unwrap_or_else(|_| panic!("readable waiter {i} was not woken"))
                    .unwrap()
                    .unwrap();
            }
            let mut buf = [0u8; 4];
            assert_eq!(client.try_read(&mut buf).unwrap(), 1);
        });
    });
}
