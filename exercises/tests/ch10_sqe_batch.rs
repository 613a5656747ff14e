//! Tests for exercise ch10_sqe_batch (`exercises/ch10/sqe_batch.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch10/sqe_batch.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch10/sqe_batch.rs")]
#[allow(dead_code, unused_variables, unused_imports, unused_mut)]
mod sqe_batch;

mod ch10_sqe_batch {
    use super::sqe_batch::*;
    use std::collections::VecDeque;
    use std::io;
    use std::os::fd::RawFd;

    /// A scripted ring: a bounded submission queue; `enter` "runs" every
    /// queued read and makes the completions ready in *reverse* order.
    /// Descriptor `fd` reads `fd % 251` repeated `len.min(3)` times; a
    /// negative descriptor fails with EBADF.
    struct Scripted {
        capacity: usize,
        queued: Vec<(RawFd, usize, u64)>,
        ready: VecDeque<(u64, io::Result<Vec<u8>>)>,
        enters: Vec<usize>,
        queued_total: usize,
        stray: Option<u64>,
    }

    impl Scripted {
        fn new(capacity: usize) -> Scripted {
            Scripted {
                capacity,
                queued: Vec::new(),
                ready: VecDeque::new(),
                enters: Vec::new(),
                queued_total: 0,
                stray: None,
            }
        }
    }

    impl Ring for Scripted {
        fn queue_read(&mut self, fd: RawFd, len: usize, user_data: u64) -> bool {
            if self.queued.len() == self.capacity {
                return false;
            }
            self.queued.push((fd, len, user_data));
            self.queued_total += 1;
            true
        }

        fn enter(&mut self, want: usize) -> io::Result<()> {
            self.enters.push(want);
            for (fd, len, tag) in self.queued.drain(..).rev() {
                let result = if fd < 0 {
                    Err(io::Error::from_raw_os_error(libc::EBADF))
                } else {
                    Ok(vec![(fd % 251) as u8; len.min(3)])
                };
                self.ready.push_back((tag, result));
            }
            if let Some(tag) = self.stray.take() {
                self.ready.push_back((tag, Ok(Vec::new())));
            }
            assert!(
                self.ready.len() >= want,
                "enter({want}) with only {} completions possible: a real ring sleeps forever",
                self.ready.len()
            );
            Ok(())
        }

        fn next_completion(&mut self) -> Option<(u64, io::Result<Vec<u8>>)> {
            self.ready.pop_front()
        }
    }

    fn bytes(results: &[io::Result<Vec<u8>>]) -> Vec<Vec<u8>> {
        results
            .iter()
            .map(|r| r.as_ref().unwrap().clone())
            .collect()
    }

    #[test]
    fn ten_reads_one_enter_results_in_order() {
        let mut ring = Scripted::new(64);
        let fds: Vec<RawFd> = (10..20).collect();
        let results = read_batch(&mut ring, &fds, 100).unwrap();
        assert_eq!(ring.enters.len(), 1, "enters: {:?}", ring.enters);
        let expected: Vec<Vec<u8>> = (10..20u8).map(|fd| vec![fd; 3]).collect();
        assert_eq!(bytes(&results), expected);
        assert_eq!(ring.queued_total, 10);
    }

    #[test]
    fn a_full_queue_is_submitted_and_nothing_is_lost() {
        let mut ring = Scripted::new(4);
        let fds: Vec<RawFd> = (1..=10).collect();
        let results = read_batch(&mut ring, &fds, 2).unwrap();
        assert_eq!(ring.queued_total, 10, "a read was queued twice or lost");
        assert_eq!(ring.enters.len(), 3, "enters: {:?}", ring.enters);
        let expected: Vec<Vec<u8>> = (1..=10u8).map(|fd| vec![fd; 2]).collect();
        assert_eq!(bytes(&results), expected);
    }

    #[test]
    fn a_failed_read_stays_in_its_place() {
        let mut ring = Scripted::new(8);
        let results = read_batch(&mut ring, &[5, -1, 7], 1).unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().unwrap(), &vec![5]);
        assert_eq!(
            results[1].as_ref().unwrap_err().raw_os_error(),
            Some(libc::EBADF)
        );
        assert_eq!(results[2].as_ref().unwrap(), &vec![7]);
    }

    #[test]
    fn no_descriptors_no_system_call() {
        let mut ring = Scripted::new(8);
        let results = read_batch(&mut ring, &[], 10).unwrap();
        assert!(results.is_empty());
        assert!(ring.enters.is_empty());
    }

    #[test]
    fn a_completion_for_no_read_is_an_error() {
        let mut ring = Scripted::new(8);
        ring.stray = Some(99);
        let err = read_batch(&mut ring, &[1, 2], 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        let mut ring = Scripted::new(8);
        ring.stray = Some(1); // answered twice
        let err = read_batch(&mut ring, &[1, 2], 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }

    #[cfg(target_os = "linux")]
    mod real {
        use super::super::sqe_batch::*;
        use io_uring::{IoUring, opcode, types};
        use std::collections::HashMap;
        use std::io::{self, Write};
        use std::os::fd::{AsRawFd, RawFd};

        /// A real io_uring; each read's buffer is kept here until its
        /// completion is taken.
        struct Uring {
            ring: IoUring,
            buffers: HashMap<u64, Vec<u8>>,
            enters: usize,
        }

        impl Ring for Uring {
            fn queue_read(&mut self, fd: RawFd, len: usize, user_data: u64) -> bool {
                if self.ring.submission().is_full() {
                    return false;
                }
                let mut buf = Vec::with_capacity(len);
                let entry = opcode::Read::new(types::Fd(fd), buf.as_mut_ptr(), len as u32)
                    .build()
                    .user_data(user_data);
                self.buffers.insert(user_data, buf);
                // SAFETY: the buffer's bytes stay in `self.buffers` (a moved
                // Vec keeps its heap bytes in place) until the completion is
                // taken, and `Drop` leaks whatever is still in flight.
                unsafe { self.ring.submission().push(&entry) }.is_ok()
            }

            fn enter(&mut self, want: usize) -> io::Result<()> {
                self.enters += 1;
                // Bounded: a batch that waits for more completions than it
                // has reads in flight fails here instead of hanging.
                let limit = types::Timespec::new().sec(5);
                let args = types::SubmitArgs::new().timespec(&limit);
                self.ring
                    .submitter()
                    .submit_with_args(want, &args)
                    .map(drop)
            }

            fn next_completion(&mut self) -> Option<(u64, io::Result<Vec<u8>>)> {
                let cqe = self.ring.completion().next()?;
                let tag = cqe.user_data();
                let mut buf = self
                    .buffers
                    .remove(&tag)
                    .expect("a completion we submitted");
                if cqe.result() < 0 {
                    return Some((tag, Err(io::Error::from_raw_os_error(-cqe.result()))));
                }
                // SAFETY: the kernel wrote that many bytes, at most `len`.
                unsafe { buf.set_len(cqe.result() as usize) };
                Some((tag, Ok(buf)))
            }
        }

        impl Drop for Uring {
            fn drop(&mut self) {
                for (_, buf) in self.buffers.drain() {
                    std::mem::forget(buf);
                }
            }
        }

        #[test]
        fn sixteen_pipes_one_system_call() {
            let ring = match IoUring::new(64) {
                Ok(ring) => ring,
                Err(err) => {
                    eprintln!("skipped: io_uring refused here ({err})");
                    return;
                }
            };
            let mut ring = Uring {
                ring,
                buffers: HashMap::new(),
                enters: 0,
            };
            let pipes: Vec<_> = (0..16u8)
                .map(|i| {
                    let (reader, mut writer) = io::pipe().unwrap();
                    writer.write_all(&[i; 10]).unwrap();
                    (reader, writer)
                })
                .collect();
            let fds: Vec<RawFd> = pipes.iter().map(|(r, _)| r.as_raw_fd()).collect();
            let results = read_batch(&mut ring, &fds, 64).unwrap();
            assert_eq!(ring.enters, 1);
            for (i, result) in results.iter().enumerate() {
                assert_eq!(result.as_ref().unwrap(), &vec![i as u8; 10]);
            }
        }
    }
}
