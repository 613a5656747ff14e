//! The owned operations one at a time: a batch of reads goes to the kernel
//! in one `io_uring_enter`, a read and a write give their buffers back, a
//! read on a closed peer returns 0.

use std::future::Future;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::task::Poll;

use chapter_10::owned::{self, Runtime};

fn pair() -> (TcpStream, owned::TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (server, _) = listener.accept().unwrap();
    (client, owned::TcpStream::from_std(server))
}

fn runtime() -> Option<Runtime> {
    Runtime::new()
        .inspect_err(|err| eprintln!("skipped: io_uring refused here ({err})"))
        .ok()
}

#[test]
fn sixteen_reads_share_one_submission() {
    let Some(rt) = runtime() else { return };
    let pairs: Vec<_> = (0..16u8)
        .map(|i| {
            let (mut client, server) = pair();
            client.write_all(&[i; 100]).unwrap();
            (client, server)
        })
        .collect();
    let total = rt.block_on(async {
        let mut reads: Vec<_> = pairs
            .iter()
            .map(|(_, server)| Some(Box::pin(server.read(Vec::with_capacity(100)))))
            .collect();
        let mut total = 0;
        // Poll every read that has not finished, each time the task runs:
        // the first time, all sixteen queue their SQE before the executor
        // enters the kernel.
        std::future::poll_fn(|cx| {
            for (i, slot) in reads.iter_mut().enumerate() {
                if let Some(read) = slot
                    && let Poll::Ready((result, buf)) = read.as_mut().poll(cx)
                {
                    assert_eq!(result.unwrap(), 100);
                    assert!(buf.iter().all(|&b| b == i as u8));
                    total += buf.len();
                    *slot = None;
                }
            }
            if reads.iter().all(Option::is_none) {
                Poll::Ready(total)
            } else {
                Poll::Pending
            }
        })
        .await
    });
    assert_eq!(total, 1600);
    let stats = rt.stats();
    assert_eq!((stats.submitted, stats.completed), (16, 16));
    assert_eq!(stats.largest_batch, 16, "{stats:?}");
}

#[test]
fn a_write_and_a_read_hand_their_buffers_back() {
    let Some(rt) = runtime() else { return };
    let (mut client, server) = pair();
    rt.block_on(async {
        let (result, buf) = server.write_all(b"owned".to_vec()).await;
        result.unwrap();
        assert_eq!(buf, b"owned");
        let mut echoed = [0u8; 5];
        std::io::Read::read_exact(&mut client, &mut echoed).unwrap();
        assert_eq!(&echoed, b"owned");
        client.write_all(b"back").unwrap();
        let (result, buf) = server.read(buf).await;
        assert_eq!(result.unwrap(), 4);
        assert_eq!(buf, b"back");
        drop(client);
        let (result, buf) = server.read(buf).await;
        assert_eq!(result.unwrap(), 0);
        assert!(buf.is_empty());
    });
}
