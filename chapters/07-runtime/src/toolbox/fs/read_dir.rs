//! Listing a directory: [`read_dir`] and the entries of a [`ReadDir`].
//!
//! `std::fs::ReadDir` is an iterator whose every `next` may block (it calls
//! `readdir`, which reads the directory from disk in chunks). One pool job
//! per entry would pay a hand-off to another thread for each name, so a
//! job reads a batch of up to [`BATCH`] entries, and `next_entry` hands
//! them out one by one before asking the pool for the next batch. The
//! iterator itself travels to the pool and back with each batch.
//!
//! Each entry's file type is read in the same job: on Linux it comes with
//! the name (`d_type`), so `DirEntry::file_type` usually needs no second
//! trip to the pool; `metadata` always does (a `stat`).
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use super::{asyncify, job_lost};
use crate::task::{JoinHandle, spawn_blocking};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::{FileType, Metadata};
use std::future::{Future, poll_fn};
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// Entries read per pool job. Tokio reads 32; a directory of 10,000 names
/// costs about 300 hand-offs instead of 10,000.
const BATCH: usize = 32;

/// What a pool job hands back: the batch it read, and the iterator if it
/// may have more (`None` once it has ended).
type Batch = (VecDeque<io::Result<DirEntry>>, Option<std::fs::ReadDir>);

/// The entries of a directory, read on the blocking pool; made by
/// [`read_dir`]. `next_entry().await` gives them one at a time.
#[must_use = "a ReadDir does nothing until next_entry is awaited"]
pub struct ReadDir(State);

enum State {
    /// Entries ready to hand out, and the iterator for more, if any.
    Idle(Batch),
    /// A job is reading the next batch.
    Busy(JoinHandle<Batch>),
}

/// Opens the directory `path` for listing (`std::fs::read_dir`) and reads
/// its first batch of entries, on the blocking pool.
///
/// ```
/// # rt::Runtime::new().unwrap().block_on(async {
/// let dir = std::env::temp_dir().join(format!("rt-doc-read-dir-{}", std::process::id()));
/// rt::fs::create_dir_all(&dir).await?;
/// rt::fs::write(dir.join("one"), b"1").await?;
/// let mut entries = rt::fs::read_dir(&dir).await?;
/// let mut names = Vec::new();
/// while let Some(entry) = entries.next_entry().await? {
///     names.push(entry.file_name());
/// }
/// assert_eq!(names, ["one"]);
/// rt::fs::remove_dir_all(&dir).await?;
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
///
/// # Errors
///
/// As `std::fs::read_dir`: `NotFound`, or an error if `path` is not a
/// directory.
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    let path = path.as_ref().to_owned();
    asyncify(move || {
        let std = std::fs::read_dir(path)?;
        Ok(ReadDir(State::Idle(read_batch(
            VecDeque::with_capacity(BATCH),
            std,
        ))))
    })
    .await
}

/// Reads up to [`BATCH`] entries onto `entries`; keeps the iterator
/// unless it has ended. Stops early after an error, so the error is handed
/// out in its place in the listing.
fn read_batch(mut entries: VecDeque<io::Result<DirEntry>>, mut std: std::fs::ReadDir) -> Batch {
    for _ in 0..BATCH {
        let Some(next) = std.next() else {
            return (entries, None);
        };
        let failed = next.is_err();
        entries.push_back(next.map(|entry| DirEntry {
            file_type: entry.file_type().ok(),
            std: Arc::new(entry),
        }));
        if failed {
            break;
        }
    }
    (entries, Some(std))
}

impl ReadDir {
    /// The next entry of the directory, or `None` when there are no more.
    /// `.` and `..` are not listed; the order is the file system's.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: dropped before it completes, it loses no entry (a
    /// batch being read stays in the `ReadDir` for the next call).
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// The poll form of [`next_entry`](Self::next_entry): `Pending` while
    /// the pool reads the next batch, with `cx`'s waker woken when it has.
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.0 {
                State::Idle((entries, std)) => {
                    if let Some(entry) = entries.pop_front() {
                        return Poll::Ready(entry.map(Some));
                    }
                    let Some(std) = std.take() else {
                        return Poll::Ready(Ok(None));
                    };
                    let entries = std::mem::take(entries);
                    self.0 = State::Busy(spawn_blocking(move || read_batch(entries, std)));
                }
                State::Busy(job) => {
                    match ready!(Pin::new(job).poll(cx)) {
                        Ok(batch) => self.0 = State::Idle(batch),
                        Err(e) => {
                            // A lost job took the iterator with it: the
                            // listing ends after this error.
                            self.0 = State::Idle((VecDeque::new(), None));
                            return Poll::Ready(Err(job_lost(e)));
                        }
                    }
                }
            }
        }
    }
}

impl fmt::Debug for ReadDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadDir").finish_non_exhaustive()
    }
}

/// One entry of a directory, from [`ReadDir::next_entry`].
pub struct DirEntry {
    /// The file type read with the entry, when the system gave it.
    file_type: Option<FileType>,
    /// Shared with pool jobs that read this entry's metadata.
    std: Arc<std::fs::DirEntry>,
}

impl DirEntry {
    /// The entry's full path: the directory given to `read_dir` joined
    /// with [`file_name`](Self::file_name).
    pub fn path(&self) -> PathBuf {
        self.std.path()
    }

    /// The entry's name within its directory, without any leading path.
    pub fn file_name(&self) -> OsString {
        self.std.file_name()
    }

    /// The entry's inode number, as `readdir` reported it.
    #[cfg(unix)]
    pub fn ino(&self) -> u64 {
        std::os::unix::fs::DirEntryExt::ino(&*self.std)
    }

    /// The entry's metadata, not following a symbolic link
    /// (`std::fs::DirEntry::metadata` on the blocking pool).
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// The entry's file type, not following a symbolic link. Usually known
    /// from the listing itself; otherwise read on the blocking pool.
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime and the type was not in the listing.
    pub async fn file_type(&self) -> io::Result<FileType> {
        if let Some(file_type) = self.file_type {
            return Ok(file_type);
        }
        let std = self.std.clone();
        asyncify(move || std.file_type()).await
    }
}

impl fmt::Debug for DirEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DirEntry").field(&self.path()).finish()
    }
}
