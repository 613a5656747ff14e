//! `rt::fs`: the one-shot functions, `read_dir`, `OpenOptions`, and `File`
//! with its buffer and its one job in flight, each on both flavours of the
//! runtime. Every test works in a directory of its own under the system's
//! temporary directory, removed at the end.
//!
//! What Tokio does the same way is also checked on Tokio, in
//! `tests/behaviour/fs.rs`; here are the rest: rt's stricter `sync_all` and
//! `metadata`, the mandatory writes at shutdown, and a Tokio-style program.
#![cfg(not(loom))]
#![cfg(not(miri))]

use futures::FutureExt;
use rt::fs::{self, File, OpenOptions};
use rt::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, AsyncWriteExt, BufReader};
use rt::{Builder, Runtime};
use std::io::{ErrorKind, SeekFrom};
use std::path::{Path, PathBuf};

/// A fresh directory for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("rt-fs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make the scratch directory");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The two flavours, each test's body runs on both.
fn runtimes() -> [(&'static str, Runtime); 2] {
    [
        (
            "current-thread",
            Builder::new_current_thread().enable_all().build().unwrap(),
        ),
        (
            "multi-thread",
            Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap(),
        ),
    ]
}

/// Runs `body` on each flavour, in a scratch directory of its own.
fn on_both<F, Fut>(name: &str, body: F)
where
    F: Fn(PathBuf) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for (flavour, runtime) in runtimes() {
        let scratch = Scratch::new(&format!("{name}-{flavour}"));
        runtime.block_on(body(scratch.0.clone()));
    }
}

/// `len` bytes that differ from one position to the next, so a misplaced
/// chunk shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

#[test]
fn write_then_read_round_trips_bytes_and_text() {
    on_both("round-trip", |dir| async move {
        let path = dir.join("a.txt");
        fs::write(&path, "héllo\n").await.unwrap();
        assert_eq!(fs::read(&path).await.unwrap(), "héllo\n".as_bytes());
        assert_eq!(fs::read_to_string(&path).await.unwrap(), "héllo\n");
        // write replaces the whole file.
        fs::write(&path, b"x").await.unwrap();
        assert_eq!(fs::read_to_string(&path).await.unwrap(), "x");
    });
}

#[test]
fn read_to_string_of_bytes_that_are_not_utf8_is_invalid_data() {
    on_both("not-utf8", |dir| async move {
        let path = dir.join("bin");
        fs::write(&path, [0x66, 0xff, 0xfe, 0x6f]).await.unwrap();
        let err = fs::read_to_string(&path).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
        let mut text = String::new();
        let err = File::open(&path)
            .await
            .unwrap()
            .read_to_string(&mut text)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidData);
    });
}

#[test]
fn a_missing_path_is_not_found_everywhere() {
    on_both("not-found", |dir| async move {
        let gone = dir.join("no-such-file");
        let kinds = [
            fs::read(&gone).await.unwrap_err().kind(),
            fs::read_to_string(&gone).await.unwrap_err().kind(),
            File::open(&gone).await.unwrap_err().kind(),
            fs::metadata(&gone).await.unwrap_err().kind(),
            fs::read_dir(&gone).await.unwrap_err().kind(),
            fs::remove_file(&gone).await.unwrap_err().kind(),
            fs::remove_dir(&gone).await.unwrap_err().kind(),
            fs::rename(&gone, dir.join("b")).await.unwrap_err().kind(),
            fs::copy(&gone, dir.join("b")).await.unwrap_err().kind(),
            fs::canonicalize(&gone).await.unwrap_err().kind(),
        ];
        assert!(kinds.iter().all(|&k| k == ErrorKind::NotFound), "{kinds:?}");
        assert!(!fs::try_exists(&gone).await.unwrap());
        assert!(fs::try_exists(&dir).await.unwrap());
    });
}

#[test]
fn a_write_is_seen_by_a_seek_then_a_read_on_the_same_file() {
    on_both("seek", |dir| async move {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.join("f"))
            .await
            .unwrap();
        file.write_all(b"hello, world").await.unwrap();
        // No flush: the seek waits for the write in flight.
        assert_eq!(file.seek(SeekFrom::Start(7)).await.unwrap(), 7);
        let mut rest = String::new();
        file.read_to_string(&mut rest).await.unwrap();
        assert_eq!(rest, "world");
        assert_eq!(file.stream_position().await.unwrap(), 12);
        assert_eq!(file.seek(SeekFrom::End(-5)).await.unwrap(), 7);
        file.write_all(b"there").await.unwrap();
        assert_eq!(file.rewind().await.unwrap(), 0);
        let mut all = String::new();
        file.read_to_string(&mut all).await.unwrap();
        assert_eq!(all, "hello, there");
        // A seek before the start fails and leaves the cursor alone.
        let err = file.seek(SeekFrom::Current(-100)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(file.stream_position().await.unwrap(), 12);
    });
}

#[test]
fn set_len_truncates_and_extends_with_zeros() {
    on_both("set-len", |dir| async move {
        let path = dir.join("f");
        let mut file = File::create(&path).await.unwrap();
        file.write_all(b"0123456789").await.unwrap();
        file.set_len(4).await.unwrap();
        assert_eq!(file.metadata().await.unwrap().len(), 4);
        file.set_len(6).await.unwrap();
        assert_eq!(fs::read(&path).await.unwrap(), b"0123\0\0");
        // Opened read-only, the file refuses.
        let reader = File::open(&path).await.unwrap();
        assert!(reader.set_len(0).await.is_err());
    });
}

#[test]
fn a_hundred_tasks_read_the_same_file_at_once() {
    on_both("hundred", |dir| async move {
        let path = dir.join("shared");
        let data = pattern(64 * 1024);
        fs::write(&path, &data).await.unwrap();
        let mut set = rt::task::JoinSet::new();
        for i in 0..100 {
            let path = path.clone();
            set.spawn(async move {
                if i % 2 == 0 {
                    fs::read(&path).await.unwrap()
                } else {
                    let mut out = Vec::new();
                    File::open(&path)
                        .await
                        .unwrap()
                        .read_to_end(&mut out)
                        .await
                        .unwrap();
                    out
                }
            });
        }
        let mut done = 0;
        while let Some(read) = set.join_next().await {
            assert!(read.unwrap() == data);
            done += 1;
        }
        assert_eq!(done, 100);
    });
}

#[test]
fn read_dir_lists_every_entry_once_with_its_type() {
    on_both("read-dir", |dir| async move {
        // More than one batch of 32.
        for i in 0..70 {
            fs::write(dir.join(format!("file-{i:02}")), [i as u8])
                .await
                .unwrap();
        }
        fs::create_dir(dir.join("sub")).await.unwrap();
        let mut entries = fs::read_dir(&dir).await.unwrap();
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        while let Some(entry) = entries.next_entry().await.unwrap() {
            assert_eq!(entry.path(), dir.join(entry.file_name()));
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().await.unwrap().is_dir() {
                dirs.push(name);
            } else {
                assert_eq!(entry.metadata().await.unwrap().len(), 1);
                files.push(name);
            }
        }
        assert!(entries.next_entry().await.unwrap().is_none(), "stays ended");
        files.sort();
        let expected: Vec<_> = (0..70).map(|i| format!("file-{i:02}")).collect();
        assert_eq!(files, expected);
        assert_eq!(dirs, ["sub"]);
    });
}

#[test]
fn eight_mebibytes_through_write_all_flush_and_read_to_end() {
    on_both("large", |dir| async move {
        let path = dir.join("big");
        let data = pattern(8 * 1024 * 1024 + 3);
        let mut file = File::create(&path).await.unwrap();
        file.write_all(&data).await.unwrap();
        file.flush().await.unwrap();
        drop(file);
        assert_eq!(fs::metadata(&path).await.unwrap().len(), data.len() as u64);
        let mut back = Vec::new();
        let n = File::open(&path)
            .await
            .unwrap()
            .read_to_end(&mut back)
            .await
            .unwrap();
        assert_eq!(n, data.len());
        assert!(back == data, "the bytes read back differ");
    });
}

#[test]
fn a_small_max_buf_size_cuts_writes_and_reads_into_many_jobs() {
    on_both("small-buf", |dir| async move {
        let path = dir.join("f");
        let data = pattern(10_000);
        let mut file = File::create(&path).await.unwrap();
        file.set_max_buf_size(7);
        assert_eq!(file.max_buf_size(), 7);
        assert_eq!(file.write(&data).await.unwrap(), 7, "one job takes 7");
        file.write_all(&data[7..]).await.unwrap();
        file.flush().await.unwrap();
        let mut reader = File::open(&path).await.unwrap();
        reader.set_max_buf_size(7);
        let mut buf = [0u8; 100];
        assert_eq!(reader.read(&mut buf).await.unwrap(), 7);
        let mut back = buf[..7].to_vec();
        reader.read_to_end(&mut back).await.unwrap();
        assert!(back == data);
    });
}

#[test]
#[should_panic(expected = "`max_buf_size` must be greater than 0")]
fn a_max_buf_size_of_zero_panics() {
    let std = tempfile_std("zero-buf");
    File::from_std(std).set_max_buf_size(0);
}

/// A `std::fs::File` on a fresh path, for tests that need no runtime.
fn tempfile_std(name: &str) -> std::fs::File {
    let path = std::env::temp_dir().join(format!("rt-fs-{}-{name}", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    file
}

#[test]
fn a_flushed_file_dropped_at_once_keeps_its_data() {
    on_both("drop-after-flush", |dir| async move {
        let path = dir.join("f");
        let mut file = File::create(&path).await.unwrap();
        file.write_all(b"first ").await.unwrap();
        file.write_all(b"second").await.unwrap();
        file.flush().await.unwrap();
        drop(file);
        // Read with std, not through the pool: the bytes are in the file
        // the moment flush returns.
        assert_eq!(std::fs::read(&path).unwrap(), b"first second");
    });
}

#[test]
fn sync_all_and_sync_data_wait_for_the_write_in_flight() {
    on_both("sync", |dir| async move {
        let path = dir.join("f");
        let mut file = File::create(&path).await.unwrap();
        file.write_all(b"durable").await.unwrap();
        file.sync_all().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"durable");
        file.write_all(b"!").await.unwrap();
        file.sync_data().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"durable!");
    });
}

#[test]
fn metadata_of_a_file_counts_a_write_already_reported_done() {
    // Stricter than Tokio, whose File::metadata does not wait.
    on_both("metadata-waits", |dir| async move {
        let mut file = File::create(dir.join("f")).await.unwrap();
        file.write_all(&pattern(100_000)).await.unwrap();
        assert_eq!(file.metadata().await.unwrap().len(), 100_000);
    });
}

#[test]
fn a_failed_write_is_reported_by_flush_or_sync_all_once() {
    on_both("write-error", |dir| async move {
        let path = dir.join("ro");
        fs::write(&path, b"x").await.unwrap();
        // Open read-only: the write job fails (EBADF) on the pool.
        let mut file = File::open(&path).await.unwrap();
        assert_eq!(
            file.write(b"no").await.unwrap(),
            2,
            "buffered: reported done"
        );
        assert!(file.flush().await.is_err());
        file.flush().await.unwrap();
        file.write_all(b"no").await.unwrap();
        // rt's sync_all reports it too (Tokio's keeps it for the next flush).
        assert!(file.sync_all().await.is_err());
        file.flush().await.unwrap();
    });
}

#[test]
fn a_read_then_a_write_lands_where_the_reader_stopped() {
    for (flavour, mut builder) in [
        ("current-thread", Builder::new_current_thread()),
        ("multi-thread", Builder::new_multi_thread()),
    ] {
        let scratch = Scratch::new(&format!("read-then-write-{flavour}"));
        let path = scratch.path("f");
        // One pool thread, held by a job while the read below is started,
        // so that the read's job waits in the queue.
        let runtime = builder.max_blocking_threads(1).build().unwrap();
        runtime.block_on(async {
            fs::write(&path, b"0123456789").await.unwrap();
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .await
                .unwrap();
            let (release, held) = std::sync::mpsc::channel::<()>();
            let holder = rt::task::spawn_blocking(move || held.recv().unwrap());
            // A read of 10 starts a job for 10 bytes, then gives up; a read
            // of 3 takes 3 of them and leaves 7 read ahead.
            let mut ten = [0u8; 10];
            assert!(file.read(&mut ten).now_or_never().is_none());
            release.send(()).unwrap();
            holder.await.unwrap();
            let mut three = [0u8; 3];
            file.read_exact(&mut three).await.unwrap();
            assert_eq!(&three, b"012");
            assert_eq!(file.stream_position().await.unwrap(), 3);
            file.write_all(b"ab").await.unwrap();
            file.flush().await.unwrap();
            assert_eq!(fs::read(&path).await.unwrap(), b"012ab56789");
        });
    }
}

#[test]
fn into_std_and_try_into_std_give_back_the_std_file() {
    on_both("into-std", |dir| async move {
        let path = dir.join("f");
        let mut file = File::create(&path).await.unwrap();
        file.write_all(b"abc").await.unwrap();
        // A write is in flight, or was: into_std waits for it.
        let std = file.into_std().await;
        assert_eq!(std.metadata().unwrap().len(), 3);
        let file = File::from_std(std);
        let std = file.try_into_std().expect("no job holds the file");
        let mut file = File::from(std);
        let clone = file.try_clone().await.unwrap();
        assert_eq!(clone.metadata().await.unwrap().len(), 3);
        file.write_all(b"d").await.unwrap();
        file.flush().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abcd");
    });
}

#[test]
fn create_new_refuses_an_existing_path() {
    on_both("create-new", |dir| async move {
        let path = dir.join("f");
        let mut file = File::create_new(&path).await.unwrap();
        file.write_all(b"one").await.unwrap();
        file.rewind().await.unwrap();
        let mut back = String::new();
        file.read_to_string(&mut back).await.unwrap();
        assert_eq!(back, "one", "create_new opens for reading too");
        let err = File::create_new(&path).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AlreadyExists);
        let err = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AlreadyExists);
    });
}

#[test]
fn the_tree_functions_make_move_link_and_remove() {
    on_both("tree", |dir| async move {
        let deep = dir.join("a/b/c");
        fs::create_dir_all(&deep).await.unwrap();
        fs::create_dir_all(&deep).await.unwrap(); // exists: fine
        assert_eq!(
            fs::create_dir(&deep).await.unwrap_err().kind(),
            ErrorKind::AlreadyExists
        );
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir.join("x/y"))
            .await
            .unwrap();
        let file = deep.join("f");
        fs::write(&file, b"data").await.unwrap();
        assert_eq!(fs::copy(&file, dir.join("copy")).await.unwrap(), 4);
        fs::rename(dir.join("copy"), dir.join("moved"))
            .await
            .unwrap();
        fs::hard_link(dir.join("moved"), dir.join("hard"))
            .await
            .unwrap();
        fs::symlink(&file, dir.join("soft")).await.unwrap();
        assert_eq!(fs::read_link(dir.join("soft")).await.unwrap(), file);
        assert_eq!(
            fs::canonicalize(dir.join("soft")).await.unwrap(),
            std::fs::canonicalize(&file).unwrap()
        );
        assert!(
            fs::symlink_metadata(dir.join("soft"))
                .await
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(fs::metadata(dir.join("soft")).await.unwrap().is_file());
        assert_eq!(fs::read(dir.join("hard")).await.unwrap(), b"data");
        let mut perms = fs::metadata(&file).await.unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&file, perms).await.unwrap();
        assert!(fs::metadata(&file).await.unwrap().permissions().readonly());
        fs::remove_file(dir.join("hard")).await.unwrap();
        assert!(!fs::try_exists(dir.join("hard")).await.unwrap());
        assert!(fs::remove_dir(dir.join("a")).await.is_err(), "not empty");
        fs::remove_dir_all(dir.join("a")).await.unwrap();
        assert!(!fs::try_exists(dir.join("a")).await.unwrap());
    });
}

#[test]
fn awaiting_a_file_operation_outside_a_runtime_panics() {
    let scratch = Scratch::new("outside");
    let path = scratch.path("f");
    std::fs::write(&path, b"x").unwrap();
    let caught = std::panic::catch_unwind(|| futures::executor::block_on(fs::read(&path)));
    let message = caught.unwrap_err();
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| message.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap();
    assert!(message.contains("outside of a runtime"), "{message}");
}

/// A write reported done must reach the file even if the runtime shuts
/// down before a pool thread takes the job. The pool's one thread is held
/// by a job, so the write waits in the queue when the runtime is dropped;
/// the holder is released only later, from another thread.
#[test]
fn a_queued_write_survives_the_runtime_shutting_down() {
    let scratch = Scratch::new("mandatory");
    let path = scratch.path("f");
    let runtime = Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .build()
        .unwrap();
    let (release, held) = std::sync::mpsc::channel::<()>();
    let (started, holder_running) = std::sync::mpsc::channel::<()>();
    runtime.block_on(async {
        let mut file = File::create(&path).await.unwrap();
        rt::task::spawn_blocking(move || {
            started.send(()).unwrap();
            held.recv().unwrap();
        });
        holder_running.recv().unwrap();
        // The pool's thread is busy: this write is queued, and reported done.
        file.write_all(b"kept").await.unwrap();
    });
    let releaser = std::thread::spawn(move || {
        // Long enough for the drop below to reach the pool's shutdown.
        std::thread::sleep(std::time::Duration::from_millis(200));
        release.send(()).unwrap();
    });
    drop(runtime);
    releaser.join().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"kept");
}

// --- A Tokio-style program: an append-only log fed by several tasks. ----

/// Appends each line received to the log at `path`, one `write_all` per
/// line, then flushes and syncs when every sender is gone.
async fn log_writer(
    path: PathBuf,
    mut lines: rt::sync::mpsc::Receiver<String>,
) -> std::io::Result<usize> {
    let mut log = OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .await?;
    let mut written = 0;
    while let Some(line) = lines.recv().await {
        log.write_all(line.as_bytes()).await?;
        log.write_all(b"\n").await?;
        written += 1;
    }
    log.flush().await?;
    log.sync_all().await?;
    Ok(written)
}

/// Counts the lines of the log that each producer wrote, through a
/// `BufReader` and `lines()`.
async fn count_lines(path: &Path, producers: usize) -> std::io::Result<Vec<usize>> {
    let mut counts = vec![0; producers];
    let mut lines = BufReader::new(File::open(path).await?).lines();
    while let Some(line) = lines.next_line().await? {
        let producer: usize = line
            .split_once(':')
            .and_then(|(p, _)| p.strip_prefix("task-"))
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("bad line {line:?}")))?;
        counts[producer] += 1;
    }
    Ok(counts)
}

#[test]
fn a_log_appender_fed_by_tasks_over_mpsc_keeps_every_line() {
    on_both("log", |dir| async move {
        let path = dir.join("app.log");
        fs::write(&path, "task-0: from an earlier run\n")
            .await
            .unwrap();
        let (tx, rx) = rt::sync::mpsc::channel(16);
        let writer = rt::spawn(log_writer(path.clone(), rx));
        let producers: Vec<_> = (0..4)
            .map(|p| {
                let tx = tx.clone();
                rt::spawn(async move {
                    for i in 0..50 {
                        tx.send(format!("task-{p}: event {i}")).await.unwrap();
                        if i % 10 == 0 {
                            rt::task::yield_now().await;
                        }
                    }
                })
            })
            .collect();
        drop(tx);
        for producer in producers {
            producer.await.unwrap();
        }
        assert_eq!(writer.await.unwrap().unwrap(), 200);
        assert_eq!(count_lines(&path, 4).await.unwrap(), [51, 50, 50, 50]);
    });
}
