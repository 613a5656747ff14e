//! Tests for exercise ch10_short_write (`exercises/ch10/short_write.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch10/short_write.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch10/short_write.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod short_write;

mod ch10_short_write {
    use super::short_write::*;
    use futures::executor::block_on;
    use std::collections::VecDeque;
    use std::io;

    /// A writer that follows a script: `Ok(n)` takes at most `n` bytes,
    /// `Err(kind)` fails; once the script runs out it takes everything.
    struct Scripted {
        script: VecDeque<Result<usize, io::ErrorKind>>,
        sent: Vec<u8>,
        offsets: Vec<usize>,
        capacity: usize,
    }

    impl Scripted {
        fn new(script: Vec<Result<usize, io::ErrorKind>>) -> Scripted {
            Scripted {
                script: script.into(),
                sent: Vec::new(),
                offsets: Vec::new(),
                capacity: 0,
            }
        }
    }

    impl Writer for Scripted {
        async fn write_at(&mut self, buf: Vec<u8>, offset: usize) -> (io::Result<usize>, Vec<u8>) {
            self.offsets.push(offset);
            self.capacity = buf.capacity();
            let rest = &buf[offset..];
            let result = match self.script.pop_front() {
                Some(Err(kind)) => Err(kind.into()),
                Some(Ok(n)) => {
                    let n = n.min(rest.len());
                    self.sent.extend_from_slice(&rest[..n]);
                    Ok(n)
                }
                None => {
                    self.sent.extend_from_slice(rest);
                    Ok(rest.len())
                }
            };
            (result, buf)
        }
    }

    fn message(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 256) as u8).collect()
    }

    #[test]
    fn short_writes_continue_where_the_kernel_stopped() {
        let mut writer = Scripted::new(vec![Ok(3), Ok(1), Ok(100), Ok(2)]);
        let sent = message(200);
        let (result, back) = block_on(write_all(&mut writer, sent.clone()));
        result.unwrap();
        assert_eq!(writer.sent, sent, "bytes lost, repeated or reordered");
        assert_eq!(writer.offsets, vec![0, 3, 4, 104, 106]);
        assert_eq!(back, sent, "the buffer comes back whole");
    }

    #[test]
    fn one_full_write_is_one_operation() {
        let mut writer = Scripted::new(vec![]);
        let (result, _) = block_on(write_all(&mut writer, message(50)));
        result.unwrap();
        assert_eq!(writer.offsets, vec![0]);
    }

    #[test]
    fn interrupted_is_retried_from_the_same_offset() {
        let mut writer = Scripted::new(vec![Ok(5), Err(io::ErrorKind::Interrupted), Ok(5)]);
        let sent = message(12);
        let (result, _) = block_on(write_all(&mut writer, sent.clone()));
        result.unwrap();
        assert_eq!(writer.sent, sent);
        assert_eq!(writer.offsets, vec![0, 5, 5, 10]);
    }

    #[test]
    fn zero_bytes_taken_is_write_zero_and_errors_end_the_loop() {
        let mut writer = Scripted::new(vec![Ok(4), Ok(0)]);
        let (result, back) = block_on(write_all(&mut writer, message(10)));
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::WriteZero);
        assert_eq!(back, message(10), "the buffer comes back on error too");
        assert_eq!(writer.offsets, vec![0, 4]);
        let mut writer = Scripted::new(vec![Ok(4), Err(io::ErrorKind::BrokenPipe)]);
        let (result, back) = block_on(write_all(&mut writer, message(10)));
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(back.len(), 10);
        assert_eq!(writer.offsets, vec![0, 4]);
    }

    #[test]
    fn an_empty_buffer_submits_nothing() {
        let mut writer = Scripted::new(vec![Ok(0)]);
        let (result, back) = block_on(write_all(&mut writer, Vec::with_capacity(32)));
        result.unwrap();
        assert!(writer.offsets.is_empty());
        assert_eq!(back.capacity(), 32);
    }

    /// Your loop on Chapter 10's io_uring runtime, over a real socket with
    /// a small send buffer, so the kernel takes a large write in parts.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_megabyte_through_a_real_socket() {
        use chapter_10::owned::{Runtime, op};
        use std::io::Read;
        use std::net::{TcpListener, TcpStream};
        use std::os::fd::{AsRawFd, RawFd};

        struct Socket(RawFd);

        impl Writer for Socket {
            async fn write_at(
                &mut self,
                buf: Vec<u8>,
                offset: usize,
            ) -> (io::Result<usize>, Vec<u8>) {
                op::write_from(self.0, buf, offset).await
            }
        }

        let Ok(runtime) = Runtime::new() else {
            eprintln!("skipped: io_uring refused here");
            return;
        };
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let sender = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut receiver, _) = listener.accept().unwrap();
        let size: libc::c_int = 16 * 1024;
        // SAFETY: sets an int option on our own socket from a live int.
        let set = unsafe {
            libc::setsockopt(
                sender.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                (&size as *const libc::c_int).cast(),
                size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        assert_eq!(set, 0);
        let sent = message(1 << 20);
        let reader = std::thread::spawn(move || {
            receiver
                .set_read_timeout(Some(std::time::Duration::from_secs(20)))
                .unwrap();
            let mut got = Vec::new();
            receiver.read_to_end(&mut got).map(|_| got)
        });
        let mut socket = Socket(sender.as_raw_fd());
        let (result, back) = runtime.block_on(write_all(&mut socket, sent.clone()));
        result.unwrap();
        assert_eq!(back.len(), sent.len());
        drop(sender);
        assert!(reader.join().unwrap().unwrap() == sent, "the bytes differ");
    }
}
