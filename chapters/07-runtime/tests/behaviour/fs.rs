//! `tokio::fs`: the one-shot functions, `read_dir`, `OpenOptions` and
//! `File`, written against the names alone (`rt::fs::…` is `tokio::fs::…`
//! in the Tokio build). What the two runtimes do alike is here: a write
//! reported done once buffered and its error reported by `flush`, a seek
//! or a read that waits for the write in flight, a write after a read
//! landing where the reader stopped, and a queued write that outlives the
//! runtime's shutdown. `tests/fs.rs` has rt's own.
//!
//! Each test works in its own directory under the system's temporary
//! directory (a [`Scratch`], shared with the other files of the suite),
//! named after this file, the runtime, the flavour, the process and the
//! test, and removes it at the end.

use crate::behaviour::{Scratch, expect_panic, limit};
use crate::{rt, shim};
use futures::FutureExt;
use rt::fs::{self, File, OpenOptions};
use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use std::io::{ErrorKind, SeekFrom};

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

#[test]
fn fs_write_read_and_read_to_string_round_trip() {
    limit("fs round trip", || {
        let scratch = Scratch::new("fs", "round-trip");
        let path = scratch.join("a");
        shim::runtime().block_on(async {
            fs::write(&path, "text\n").await.unwrap();
            assert_eq!(fs::read(&path).await.unwrap(), b"text\n");
            assert_eq!(fs::read_to_string(&path).await.unwrap(), "text\n");
            fs::write(&path, [0xffu8, 0xfe]).await.unwrap();
            let err = fs::read_to_string(&path).await.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
        });
    });
}

#[test]
fn fs_a_missing_path_is_not_found_and_try_exists_says_false() {
    limit("fs not found", || {
        let scratch = Scratch::new("fs", "not-found");
        let gone = scratch.join("gone");
        shim::runtime().block_on(async {
            assert_eq!(
                fs::read(&gone).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                File::open(&gone).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::metadata(&gone).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            assert_eq!(
                fs::read_dir(&gone).await.unwrap_err().kind(),
                ErrorKind::NotFound
            );
            assert!(!fs::try_exists(&gone).await.unwrap());
        });
    });
}

#[test]
fn fs_file_a_seek_waits_for_the_write_in_flight() {
    limit("fs write seek read", || {
        let scratch = Scratch::new("fs", "seek");
        let path = scratch.join("f");
        shim::runtime().block_on(async {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .await
                .unwrap();
            file.write_all(b"abcdef").await.unwrap();
            assert_eq!(file.seek(SeekFrom::Start(2)).await.unwrap(), 2);
            let mut rest = Vec::new();
            file.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"cdef");
            assert_eq!(file.stream_position().await.unwrap(), 6);
            file.rewind().await.unwrap();
            let mut two = [0u8; 2];
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(&two, b"ab");
        });
    });
}

#[test]
fn fs_file_set_len_truncates_and_extends() {
    limit("fs set_len", || {
        let scratch = Scratch::new("fs", "set-len");
        let path = scratch.join("f");
        shim::runtime().block_on(async {
            let mut file = File::create(&path).await.unwrap();
            file.write_all(b"0123456789").await.unwrap();
            file.flush().await.unwrap();
            file.set_len(3).await.unwrap();
            file.set_len(5).await.unwrap();
            file.sync_all().await.unwrap();
            assert_eq!(fs::read(&path).await.unwrap(), b"012\0\0");
        });
    });
}

#[test]
fn fs_a_failed_write_is_reported_by_flush_not_by_write() {
    limit("fs write error", || {
        let scratch = Scratch::new("fs", "write-error");
        let path = scratch.join("ro");
        shim::runtime().block_on(async {
            fs::write(&path, b"x").await.unwrap();
            let mut file = File::open(&path).await.unwrap();
            assert_eq!(file.write(b"no").await.unwrap(), 2);
            assert!(file.flush().await.is_err());
            file.flush().await.unwrap();
        });
    });
}

#[test]
fn fs_a_write_after_a_read_lands_where_the_reader_stopped() {
    limit("fs read then write", || {
        let scratch = Scratch::new("fs", "read-then-write");
        let path = scratch.join("f");
        // One pool thread, held while a read is started, so that the read
        // waits in the queue and can be given up.
        shim::runtime_with_blocking_threads(1).block_on(async {
            fs::write(&path, b"0123456789").await.unwrap();
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .await
                .unwrap();
            let (release, held) = std::sync::mpsc::channel::<()>();
            let holder = rt::task::spawn_blocking(move || held.recv().unwrap());
            let mut ten = [0u8; 10];
            assert!(file.read(&mut ten).now_or_never().is_none());
            release.send(()).unwrap();
            holder.await.unwrap();
            // The given-up read fetched 10 bytes; this read takes 3.
            let mut three = [0u8; 3];
            file.read_exact(&mut three).await.unwrap();
            assert_eq!(&three, b"012");
            file.write_all(b"ab").await.unwrap();
            file.flush().await.unwrap();
            assert_eq!(fs::read(&path).await.unwrap(), b"012ab56789");
        });
    });
}

#[test]
fn fs_read_dir_lists_files_and_directories() {
    limit("fs read_dir", || {
        let scratch = Scratch::new("fs", "read-dir");
        let dir = scratch.path().to_path_buf();
        shim::runtime().block_on(async {
            for i in 0..40 {
                fs::write(dir.join(format!("f{i:02}")), b"").await.unwrap();
            }
            fs::create_dir_all(dir.join("d/e")).await.unwrap();
            let mut entries = fs::read_dir(&dir).await.unwrap();
            let (mut files, mut dirs) = (Vec::new(), Vec::new());
            while let Some(entry) = entries.next_entry().await.unwrap() {
                let name = entry.file_name().into_string().unwrap();
                assert_eq!(entry.path(), dir.join(&name));
                if entry.file_type().await.unwrap().is_dir() {
                    dirs.push(name);
                } else {
                    assert!(entry.metadata().await.unwrap().is_file());
                    files.push(name);
                }
            }
            files.sort();
            assert_eq!(
                files,
                (0..40).map(|i| format!("f{i:02}")).collect::<Vec<_>>()
            );
            assert_eq!(dirs, ["d"]);
        });
    });
}

#[test]
fn fs_eight_mebibytes_through_write_all_and_read_to_end() {
    limit("fs large", || {
        let scratch = Scratch::new("fs", "large");
        let path = scratch.join("big");
        shim::runtime().block_on(async {
            let data = pattern(8 * 1024 * 1024);
            let mut file = File::create(&path).await.unwrap();
            file.write_all(&data).await.unwrap();
            file.flush().await.unwrap();
            drop(file);
            let mut back = Vec::new();
            File::open(&path)
                .await
                .unwrap()
                .read_to_end(&mut back)
                .await
                .unwrap();
            assert!(back == data, "8 MiB read back differ");
        });
    });
}

#[test]
fn fs_a_hundred_tasks_read_one_file() {
    limit("fs hundred readers", || {
        let scratch = Scratch::new("fs", "hundred");
        let path = scratch.join("f");
        shim::runtime().block_on(async {
            let data = pattern(10_000);
            fs::write(&path, &data).await.unwrap();
            let readers: Vec<_> = (0..100)
                .map(|_| rt::spawn(fs::read(path.clone())))
                .collect();
            for reader in readers {
                assert!(reader.await.unwrap().unwrap() == data);
            }
        });
    });
}

#[test]
fn fs_a_flushed_file_dropped_at_once_has_its_bytes_in_the_file() {
    limit("fs flush then drop", || {
        let scratch = Scratch::new("fs", "flush-drop");
        let path = scratch.join("f");
        shim::runtime().block_on(async {
            let mut file = File::create(&path).await.unwrap();
            file.write_all(b"one ").await.unwrap();
            file.write_all(b"two").await.unwrap();
            file.flush().await.unwrap();
            drop(file);
            assert_eq!(std::fs::read(&path).unwrap(), b"one two");
        });
    });
}

#[test]
fn fs_a_write_queued_at_shutdown_still_reaches_the_file() {
    limit("fs mandatory write", || {
        let scratch = Scratch::new("fs", "mandatory");
        let path = scratch.join("f");
        let runtime = shim::runtime_with_blocking_threads(1);
        let (release, held) = std::sync::mpsc::channel::<()>();
        let (started, running) = std::sync::mpsc::channel::<()>();
        runtime.block_on(async {
            let mut file = File::create(&path).await.unwrap();
            rt::task::spawn_blocking(move || {
                started.send(()).unwrap();
                held.recv().unwrap();
            });
            running.recv().unwrap();
            file.write_all(b"kept").await.unwrap(); // queued behind the holder
        });
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            release.send(()).unwrap();
        });
        drop(runtime);
        releaser.join().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"kept");
    });
}

#[test]
fn fs_awaited_outside_a_runtime_panics() {
    limit("fs outside", || {
        let scratch = Scratch::new("fs", "outside");
        let path = scratch.join("f");
        std::fs::write(&path, b"x").unwrap();
        expect_panic("fs::read outside a runtime", || {
            futures::executor::block_on(fs::read(&path))
        });
        expect_panic("fs::metadata outside a runtime", || {
            futures::executor::block_on(fs::metadata(&path))
        });
    });
}
