//! [`File`]: an open file read, written and sought through the blocking
//! pool, with `AsyncRead`, `AsyncWrite` and `AsyncSeek`.
//!
//! A `File` is a `std::fs::File` (shared through an `Arc`, so a pool job
//! can hold it) and a state machine with two states:
//!
//! * **idle**, holding the buffer (`buf.rs`), possibly with bytes read and
//!   not yet handed out;
//! * **busy**: one pool job is running with the buffer, and the state holds
//!   its `JoinHandle`.
//!
//! Only one job runs at a time, because there is one buffer and one file
//! cursor: a read and a write racing on two pool threads would each move the
//! cursor under the other. Every poll method starts by waiting for the job
//! in flight, whoever started it:
//!
//! * `poll_read` with bytes in the buffer hands them out; with none, it
//!   starts a job that reads up to `min(dst.len(), max_buf_size)` bytes and
//!   returns `Pending` until the job is done;
//! * `poll_write` copies up to `max_buf_size` bytes into the buffer, starts
//!   a job that writes them, and returns `Ready(Ok(n))` at once: the write
//!   is reported done when it is buffered, not when it is in the file. Its
//!   error, if it fails, comes from the next `poll_write`, or `poll_flush`;
//! * `poll_flush` waits for the job in flight and reports a failed write.
//!   So `write_all(...).await` followed by a drop may lose an error (and, if
//!   the runtime is gone, the bytes): await `flush()` (or `sync_all()`)
//!   before dropping a `File` you wrote;
//! * `poll_seek` waits for the job in flight, then runs the `lseek` as a
//!   job of its own. Unread bytes in the buffer are discarded, and a
//!   relative seek counts from what the reader has seen, not from where
//!   the kernel's cursor went.
//!
//! Writes go to the pool as *mandatory* jobs, which run even when the
//! runtime shuts down while they wait for a thread: a write reported done
//! is not dropped at shutdown (Tokio does the same).
//!
//! A read after a write waits for the write, so it sees it. A write after a
//! read first moves the cursor back over the unread bytes, so it lands
//! where the reader stopped.
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use super::buf::Buf;
use super::{OpenOptions, asyncify, job_lost};
use crate::sync::{Mutex, MutexGuard};
use crate::task::JoinHandle;
use futures::io::{AsyncRead, AsyncSeek, AsyncWrite};
use std::fmt;
use std::fs::{Metadata, Permissions};
use std::future::{Future, poll_fn};
use std::io::{self, IoSlice, Seek, SeekFrom};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

/// The most bytes one pool job reads or writes, unless changed with
/// [`File::set_max_buf_size`]: Tokio's figure. A larger `write_all` is cut
/// into jobs of this size; a larger read buffer is filled this much per job.
pub const DEFAULT_MAX_BUF_SIZE: usize = 2 * 1024 * 1024;

/// An open file, for use in tasks: Tokio's `tokio::fs::File`.
///
/// Every operation runs on the runtime's blocking pool, one at a time (see
/// the module header, `fs/file.rs`). Read and write it with the extension
/// traits [`AsyncReadExt`](crate::io::AsyncReadExt),
/// [`AsyncWriteExt`](crate::io::AsyncWriteExt) and
/// [`AsyncSeekExt`](crate::io::AsyncSeekExt).
///
/// A write is reported done once it is in the `File`'s buffer; the pool
/// writes it afterwards. **Call `flush().await` after writing** (or
/// `sync_all().await` to reach the disk): it waits for that last write and
/// returns its error. A `File` dropped with a write in flight closes when
/// the write ends, and an error of that write is lost.
///
/// ```
/// use rt::fs::File;
/// use rt::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
/// use std::io::SeekFrom;
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-doc-file-{}", std::process::id()));
/// let mut file = File::options().read(true).write(true).create(true).truncate(true).open(&path).await?;
/// file.write_all(b"hello, file").await?;
/// file.seek(SeekFrom::Start(7)).await?; // waits for the write first
/// let mut rest = String::new();
/// file.read_to_string(&mut rest).await?;
/// assert_eq!(rest, "file");
/// file.sync_all().await?;
/// rt::fs::remove_file(&path).await?;
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub struct File {
    std: Arc<std::fs::File>,
    /// Behind an async mutex so that the `&self` methods (`sync_all`,
    /// `set_len`, …) can wait for the job in flight; the poll methods take
    /// `&mut self` and reach it without locking (`get_mut`).
    inner: Mutex<Inner>,
    max_buf_size: usize,
}

struct Inner {
    state: State,
    /// A write's error seen by a read or a seek, kept for the next write,
    /// flush or `sync_all`, which report it.
    last_write_err: Option<io::Error>,
}

enum State {
    Idle(Buf),
    Busy(JoinHandle<(Operation, Buf)>),
}

/// What a pool job did, and how it went.
enum Operation {
    Read(io::Result<usize>),
    Write(io::Result<()>),
    /// `asked` is the caller's position, to tell the seek a caller awaits
    /// from one whose caller gave up (dropped its future).
    Seek {
        asked: SeekFrom,
        result: io::Result<u64>,
    },
    SetLen(io::Result<()>),
}

impl Inner {
    /// Waits for the job in flight, if any, and takes its buffer back.
    /// `Ok(None)`: nothing was in flight. `Err`: the job was lost (the
    /// runtime shut down before it ran, or it panicked).
    fn poll_job(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<Operation>>> {
        let State::Busy(job) = &mut self.state else {
            return Poll::Ready(Ok(None));
        };
        match ready!(Pin::new(job).poll(cx)) {
            Ok((operation, buf)) => {
                self.state = State::Idle(buf);
                Poll::Ready(Ok(Some(operation)))
            }
            Err(e) => {
                self.state = State::Idle(Buf::default());
                Poll::Ready(Err(job_lost(e)))
            }
        }
    }

    /// The buffer, when idle.
    fn buf(&mut self) -> &mut Buf {
        match &mut self.state {
            State::Idle(buf) => buf,
            State::Busy(_) => unreachable!("the buffer is on the pool"),
        }
    }

    /// Moves the buffer to a pool job; the state is busy until it ends.
    /// A write's job is mandatory: it runs even if the runtime starts
    /// shutting down first.
    fn start<F>(&mut self, mandatory: bool, job: F)
    where
        F: FnOnce(Buf) -> (Operation, Buf) + Send + 'static,
    {
        let buf = std::mem::take(self.buf());
        let run = move || job(buf);
        self.state = State::Busy(if mandatory {
            crate::blocking::spawn_mandatory_blocking(run)
        } else {
            crate::task::spawn_blocking(run)
        });
    }

    /// Waits for the job in flight; reports a write that failed, now or
    /// earlier.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(e) = self.last_write_err.take() {
            return Poll::Ready(Err(e));
        }
        match ready!(self.poll_job(cx))? {
            Some(Operation::Write(result)) => Poll::Ready(result),
            _ => Poll::Ready(Ok(())),
        }
    }

    /// Waits for the job in flight, keeping a write error for later.
    async fn settle(&mut self) {
        if let Err(e) = poll_fn(|cx| self.poll_flush(cx)).await {
            self.last_write_err = Some(e);
        }
    }

    // ANCHOR: poll_write
    /// Starts a write of what `fill` puts into the buffer (`len` bytes
    /// offered, at most `max_buf_size` taken); `Ready(Ok(n))` as soon as
    /// they are buffered.
    fn poll_write_with(
        &mut self,
        cx: &mut Context<'_>,
        std: &Arc<std::fs::File>,
        len: usize,
        fill: impl FnOnce(&mut Buf) -> usize,
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.last_write_err.take() {
            return Poll::Ready(Err(e));
        }
        if len == 0 {
            return Poll::Ready(Ok(0));
        }
        loop {
            match ready!(self.poll_job(cx))? {
                None => {
                    // Idle: the buffer is ours. Step back over bytes read
                    // ahead and not handed out, then take the caller's.
                    let buf = self.buf();
                    let behind = buf.discard_unread();
                    let n = fill(buf);
                    let std = std.clone();
                    self.start(true, move |mut buf| {
                        let result = step_back(&std, behind).and_then(|()| buf.write_to(&std));
                        (Operation::Write(result), buf)
                    });
                    // Buffered: reported written now, written by the pool.
                    return Poll::Ready(Ok(n));
                }
                // The previous write failed: this one reports it.
                Some(Operation::Write(Err(e))) => return Poll::Ready(Err(e)),
                Some(_) => continue,
            }
        }
    }
    // ANCHOR_END: poll_write
}

/// On the pool: moves the cursor back over `behind` bytes read ahead.
fn step_back(mut std: &std::fs::File, behind: i64) -> io::Result<()> {
    if behind > 0 {
        std.seek(SeekFrom::Current(-behind))?;
    }
    Ok(())
}

impl File {
    /// Opens the file at `path` for reading.
    ///
    /// # Errors
    ///
    /// `NotFound` if there is no such file; otherwise as
    /// [`OpenOptions::open`].
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new().read(true).open(path).await
    }

    /// Opens the file at `path` for writing, creating it if it does not
    /// exist and truncating it if it does.
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime.
    pub async fn create(path: impl AsRef<Path>) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .await
    }

    /// Creates a new file at `path` and opens it for reading and writing;
    /// fails with `AlreadyExists` if the path exists, in the same atomic
    /// step as the creation.
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime.
    pub async fn create_new<P: AsRef<Path>>(path: P) -> io::Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .await
    }

    /// A fresh [`OpenOptions`], as `OpenOptions::new()`.
    #[must_use]
    pub fn options() -> OpenOptions {
        OpenOptions::new()
    }

    /// Wraps an open `std::fs::File`. Needs no runtime; its operations do.
    pub fn from_std(std: std::fs::File) -> File {
        File {
            std: Arc::new(std),
            inner: Mutex::new(Inner {
                state: State::Idle(Buf::default()),
                last_write_err: None,
            }),
            max_buf_size: DEFAULT_MAX_BUF_SIZE,
        }
    }

    /// Waits for the job in flight, then asks the kernel to write the
    /// file's data and metadata to the device (`fsync`), on the pool.
    ///
    /// A failed write that nobody has reported yet is returned here (Tokio
    /// keeps it for the next write or flush instead).
    pub async fn sync_all(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        poll_fn(|cx| inner.poll_flush(cx)).await?;
        let std = self.std.clone();
        asyncify(move || std.sync_all()).await
    }

    /// As [`sync_all`](Self::sync_all), but may skip metadata that reading
    /// the data back does not need, such as the modification time
    /// (`fdatasync`).
    pub async fn sync_data(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().await;
        poll_fn(|cx| inner.poll_flush(cx)).await?;
        let std = self.std.clone();
        asyncify(move || std.sync_data()).await
    }

    /// Truncates or extends the file to `size` bytes (extending with
    /// zeros), after the job in flight. The cursor does not move, but
    /// unread bytes in the buffer are dropped, since they may be gone.
    ///
    /// # Errors
    ///
    /// If the file is not open for writing.
    pub async fn set_len(&self, size: u64) -> io::Result<()> {
        let mut inner = self.locked().await;
        let behind = inner.buf().discard_unread();
        let std = self.std.clone();
        inner.start(false, move |buf| {
            let result = step_back(&std, behind).and_then(|()| std.set_len(size));
            (Operation::SetLen(result), buf)
        });
        match poll_fn(|cx| inner.poll_job(cx)).await? {
            Some(Operation::SetLen(result)) => result,
            _ => unreachable!("the job just started is a set_len"),
        }
    }

    /// The file's metadata (`fstat`), after the job in flight, so a write
    /// already reported done is counted in the length.
    pub async fn metadata(&self) -> io::Result<Metadata> {
        let _inner = self.locked().await;
        let std = self.std.clone();
        asyncify(move || std.metadata()).await
    }

    /// A second `File` for the same open file (`dup`): the two share the
    /// cursor, but each has its own buffer.
    pub async fn try_clone(&self) -> io::Result<File> {
        let _inner = self.locked().await;
        let std = self.std.clone();
        let clone = asyncify(move || std.try_clone()).await?;
        let mut file = File::from_std(clone);
        file.set_max_buf_size(self.max_buf_size);
        Ok(file)
    }

    /// Waits for the job in flight and returns the `std::fs::File`. An
    /// error of that job is dropped.
    pub async fn into_std(mut self) -> std::fs::File {
        self.inner.get_mut().settle().await;
        Arc::try_unwrap(self.std).unwrap_or_else(|shared| {
            // A `&self` method's pool job, whose future was dropped, may
            // still hold the file: hand out a duplicate instead.
            shared
                .try_clone()
                .expect("File::into_std: cannot duplicate a file a pool job still holds")
        })
    }

    /// The `std::fs::File` at once if no pool job holds it, else the
    /// `File` back. An error of a finished, unreported write is dropped.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(self) -> Result<std::fs::File, File> {
        let File {
            std,
            inner,
            max_buf_size,
        } = self;
        Arc::try_unwrap(std).map_err(|std| File {
            std,
            inner,
            max_buf_size,
        })
    }

    /// Changes the file's permissions, after the job in flight.
    pub async fn set_permissions(&self, perm: Permissions) -> io::Result<()> {
        let _inner = self.locked().await;
        let std = self.std.clone();
        asyncify(move || std.set_permissions(perm)).await
    }

    /// Sets the file's access and modification times (those given in
    /// `times`; the others are left alone), after the job in flight, whose
    /// write would otherwise move the modification time again.
    pub async fn set_times(&self, times: FileTimes) -> io::Result<()> {
        let _inner = self.locked().await;
        let std = self.std.clone();
        asyncify(move || std.set_times(times.0)).await
    }

    /// Sets the file's modification time, after the job in flight (whose
    /// write would otherwise move it again).
    pub async fn set_modified(&self, time: std::time::SystemTime) -> io::Result<()> {
        let _inner = self.locked().await;
        let std = self.std.clone();
        asyncify(move || std.set_modified(time)).await
    }

    /// Sets the most bytes one pool job reads or writes (default
    /// 2 MiB): larger means fewer hand-offs for
    /// big transfers, and a larger buffer kept per `File`.
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0.
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(max_buf_size > 0, "`max_buf_size` must be greater than 0");
        self.max_buf_size = max_buf_size;
    }

    /// The most bytes one pool job reads or writes.
    pub fn max_buf_size(&self) -> usize {
        self.max_buf_size
    }

    /// Locks the state and waits for the job in flight (a write error is
    /// kept for later).
    async fn locked(&self) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().await;
        inner.settle().await;
        inner
    }
}

/// The timestamps [`File::set_times`] applies: Tokio's
/// `tokio::fs::FileTimes`. Start from [`new`](Self::new) (no time set) and
/// set the ones to change; a time not set is left as it is on the file.
#[derive(Debug, Clone, Default)]
#[must_use = "the times change nothing until given to `File::set_times`"]
pub struct FileTimes(std::fs::FileTimes);

impl FileTimes {
    /// No time set: applied as it is, it changes nothing.
    pub fn new() -> FileTimes {
        FileTimes::default()
    }

    /// Sets the last access time.
    pub fn set_accessed(self, time: std::time::SystemTime) -> FileTimes {
        FileTimes(self.0.set_accessed(time))
    }

    /// Sets the last modification time.
    pub fn set_modified(self, time: std::time::SystemTime) -> FileTimes {
        FileTimes(self.0.set_modified(time))
    }
}

impl AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let inner = me.inner.get_mut();
        loop {
            match ready!(inner.poll_job(cx))? {
                None => {
                    let buf = inner.buf();
                    if !buf.is_empty() || dst.is_empty() {
                        return Poll::Ready(Ok(buf.copy_to(dst)));
                    }
                    // Nothing buffered: one `read` on the pool, of at most
                    // what the caller asked for, capped.
                    let (std, max) = (me.std.clone(), dst.len().min(me.max_buf_size));
                    inner.start(false, move |mut buf| {
                        let result = buf.read_from(&std, max);
                        (Operation::Read(result), buf)
                    });
                }
                // Done: hand out what it read (0 is the end of the file).
                Some(Operation::Read(result)) => {
                    result?;
                    return Poll::Ready(Ok(inner.buf().copy_to(dst)));
                }
                // A write was in flight: the read starts after it, and its
                // error waits for the next write or flush.
                Some(Operation::Write(Err(e))) => inner.last_write_err = Some(e),
                Some(_) => {}
            }
        }
    }
}

impl AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let max = me.max_buf_size;
        me.inner
            .get_mut()
            .poll_write_with(cx, &me.std, src.len(), |buf| buf.copy_from(src, max))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        srcs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let max = me.max_buf_size;
        let len = srcs.iter().map(|s| s.len()).sum();
        me.inner
            .get_mut()
            .poll_write_with(cx, &me.std, len, |buf| buf.copy_from_slices(srcs, max))
    }

    /// Waits for the write in flight and returns its error, if it failed.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().inner.get_mut().poll_flush(cx)
    }

    /// As `poll_flush` (Tokio's `shutdown` on a file is a flush); the file
    /// stays open until dropped.
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

impl AsyncSeek for File {
    /// Waits for the job in flight, then seeks on the pool. A relative
    /// seek (`SeekFrom::Current`) counts from the last byte handed to the
    /// reader; the bytes read ahead are dropped.
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        let inner = me.inner.get_mut();
        loop {
            match ready!(inner.poll_job(cx))? {
                None => {
                    let behind = inner.buf().discard_unread();
                    // Fold the step back into a relative seek when the
                    // offset allows; else seek twice.
                    let (first, then) = match pos {
                        SeekFrom::Current(offset) if behind > 0 => match offset.checked_sub(behind)
                        {
                            Some(offset) => (0, SeekFrom::Current(offset)),
                            None => (behind, pos),
                        },
                        _ => (0, pos),
                    };
                    let std = me.std.clone();
                    inner.start(false, move |buf| {
                        let result = step_back(&std, first).and_then(|()| (&*std).seek(then));
                        (Operation::Seek { asked: pos, result }, buf)
                    });
                }
                Some(Operation::Seek { asked, result }) if asked == pos => {
                    return Poll::Ready(result);
                }
                Some(Operation::Write(Err(e))) => inner.last_write_err = Some(e),
                Some(_) => {}
            }
        }
    }
}

impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> File {
        File::from_std(std)
    }
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("rt::fs::File")
            .field("std", &self.std)
            .finish_non_exhaustive()
    }
}

#[cfg(unix)]
mod unix {
    use super::File;
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

    impl From<OwnedFd> for File {
        fn from(fd: OwnedFd) -> File {
            File::from_std(std::fs::File::from(fd))
        }
    }

    impl AsRawFd for File {
        fn as_raw_fd(&self) -> RawFd {
            self.std.as_raw_fd()
        }
    }

    impl AsFd for File {
        fn as_fd(&self) -> BorrowedFd<'_> {
            self.std.as_fd()
        }
    }

    impl FromRawFd for File {
        /// # Safety
        ///
        /// As `std::fs::File::from_raw_fd`: `fd` is an open descriptor that
        /// nothing else owns.
        unsafe fn from_raw_fd(fd: RawFd) -> File {
            // SAFETY: the caller promises `fd` is open and owned by no one
            // else, which is what `std::fs::File::from_raw_fd` requires.
            File::from_std(unsafe { std::fs::File::from_raw_fd(fd) })
        }
    }
}
