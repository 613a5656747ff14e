//! [`AsyncFd`]: any non-blocking file descriptor on the runtime's I/O
//! driver, with Tokio's names (`tokio::io::unix::AsyncFd`).
//!
//! Every socket type in `net/` is a mio socket plus a `Registration`. An
//! `AsyncFd` is the same registration around a descriptor the runtime knows
//! nothing about (a pipe, an eventfd, a device, a socket made by another
//! library), so a program can wait for it to be readable or writable and do
//! the system call itself. The protocol is the driver's own, made visible:
//!
//! ```text
//! loop {
//!     let mut guard = fd.readable().await?;       // readiness seen
//!     match guard.try_io(|inner| read(inner)) {    // the caller's system call
//!         Ok(result) => return result,
//!         Err(_would_block) => continue,           // readiness cleared: wait again
//!     }
//! }
//! ```
//!
//! The guard remembers which readiness (and which tick) it saw, so that
//! clearing it does not erase a newer event that arrived meanwhile, and
//! clearing one kind (`clear_ready_matching(Ready::READABLE)` after a read
//! said `WouldBlock`) leaves the others, in the driver and in the guard. The
//! descriptor must be non-blocking, and must stay the same for as long as
//! the `AsyncFd` owns it; it is deregistered before the inner value is
//! dropped or handed back.
//!
//! Book: Chapter 7, "The I/O driver".

use super::{Interest, Ready};
use crate::io_driver::registration::Registration;
use crate::io_driver::scheduled_io::{Direction, ReadyEvent};
use std::error::Error;
use std::fmt;
use std::io;
use std::os::fd::AsRawFd;
use std::task::{Context, Poll, ready};

/// A non-blocking file descriptor registered with the runtime's driver; see
/// the module documentation.
pub struct AsyncFd<T: AsRawFd> {
    /// `None` only once `into_inner` has taken it.
    inner: Option<T>,
    registration: Registration,
    interest: Interest,
}

/// What [`AsyncFd::readable`] and the others return: the readiness seen.
/// Call [`clear_ready`](Self::clear_ready) (or let
/// [`try_io`](Self::try_io) do it) when the descriptor says `WouldBlock`,
/// or the next wait returns at once.
#[must_use = "the readiness is cleared only by clear_ready or try_io"]
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    async_fd: &'a AsyncFd<T>,
    /// The readiness seen and its tick; `None` once cleared.
    event: Option<ReadyEvent>,
}

/// The guard of [`AsyncFd::readable_mut`] and the others: as
/// [`AsyncFdReadyGuard`], with mutable access to the inner value.
#[must_use = "the readiness is cleared only by clear_ready or try_io"]
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    async_fd: &'a mut AsyncFd<T>,
    /// As in [`AsyncFdReadyGuard`].
    event: Option<ReadyEvent>,
}

/// The closure given to a guard's `try_io` said `WouldBlock`; the readiness
/// has been cleared, so wait again.
#[derive(Debug)]
pub struct TryIoError(());

/// [`AsyncFd::register`] failed: the error, and the inner value handed
/// back.
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

/// The old name of [`AsyncFdRegisterError`], kept as Tokio keeps it.
#[deprecated(note = "use `AsyncFdRegisterError` instead")]
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> AsyncFdRegisterError<T> {
    /// The inner value and the error.
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }
}

/// The driver's interest for a public one. Errors need no registration
/// (epoll reports them always), but epoll needs some interest: an `AsyncFd`
/// for errors alone is registered for reading, as Tokio's is.
fn mio_interest(interest: Interest) -> mio::Interest {
    [
        (interest.is_readable(), mio::Interest::READABLE),
        (interest.is_writable(), mio::Interest::WRITABLE),
        (interest.is_priority(), mio::Interest::PRIORITY),
    ]
    .into_iter()
    .filter_map(|(wanted, mio)| wanted.then_some(mio))
    .reduce(mio::Interest::add)
    .unwrap_or(mio::Interest::READABLE)
}

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner`'s descriptor for reading and writing, handing
    /// `inner` back with the error on failure (a runtime that has shut
    /// down, or a descriptor epoll refuses: a regular file gets `EPERM`).
    /// Outside a runtime it panics, as Tokio's does.
    ///
    /// # Safety
    ///
    /// As Tokio's (since 1.54): `inner.as_raw_fd()` must be an open
    /// descriptor that stays open, and refers to the same open file, for as
    /// long as the `AsyncFd` owns `inner`, and must return the same number
    /// every time. Nothing here is unsafe to *run*; the contract is about
    /// I/O safety: were the descriptor closed and its number reused, the
    /// driver would watch (and finally deregister) somebody else's file.
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        // SAFETY: the caller upholds `register_with_interest`'s contract,
        // which is this function's.
        unsafe { AsyncFd::register_with_interest(inner, Interest::READABLE | Interest::WRITABLE) }
    }

    /// [`register`](Self::register) for `interest` only.
    ///
    /// # Safety
    ///
    /// As for [`register`](Self::register).
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        let fd = inner.as_raw_fd();
        match Registration::new(&mut mio::unix::SourceFd(&fd), mio_interest(interest)) {
            Ok(registration) => Ok(AsyncFd {
                inner: Some(inner),
                registration,
                interest,
            }),
            Err(cause) => Err(AsyncFdRegisterError { inner, cause }),
        }
    }

    /// [`register`](Self::register) without `unsafe`, deprecated in Tokio
    /// 1.54 for the reason `register` gives.
    #[deprecated(note = "does not state its I/O-safety contract; use `AsyncFd::register`")]
    #[track_caller]
    pub fn new(inner: T) -> io::Result<AsyncFd<T>> {
        // SAFETY: the deprecated constructors keep Tokio's old contract,
        // stated only in words; the caller keeps the descriptor open.
        unsafe { Ok(AsyncFd::register(inner)?) }
    }

    /// [`register_with_interest`](Self::register_with_interest) without
    /// `unsafe`; deprecated as [`new`](Self::new) is.
    #[deprecated(
        note = "does not state its I/O-safety contract; use `AsyncFd::register_with_interest`"
    )]
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<AsyncFd<T>> {
        // SAFETY: as in `new`.
        unsafe { Ok(AsyncFd::register_with_interest(inner, interest)?) }
    }

    /// [`register`](Self::register) without `unsafe`; deprecated as
    /// [`new`](Self::new) is.
    #[deprecated(note = "does not state its I/O-safety contract; use `AsyncFd::register`")]
    #[track_caller]
    pub fn try_new(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        // SAFETY: as in `new`.
        unsafe { AsyncFd::register(inner) }
    }

    /// [`register_with_interest`](Self::register_with_interest) without
    /// `unsafe`; deprecated as [`new`](Self::new) is.
    #[deprecated(
        note = "does not state its I/O-safety contract; use `AsyncFd::register_with_interest`"
    )]
    #[track_caller]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        // SAFETY: as in `new`.
        unsafe { AsyncFd::register_with_interest(inner, interest) }
    }

    /// The inner value.
    pub fn get_ref(&self) -> &T {
        self.inner.as_ref().expect("present until into_inner")
    }

    /// The inner value, mutably (its descriptor must not change).
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("present until into_inner")
    }

    /// The interest it was registered with.
    pub fn interest(&self) -> Interest {
        self.interest
    }

    /// Deregisters the descriptor and hands the inner value back.
    pub fn into_inner(mut self) -> T {
        self.deregister();
        self.inner.take().expect("present until into_inner")
    }

    fn deregister(&mut self) {
        if let Some(inner) = &self.inner {
            let fd = inner.as_raw_fd();
            let _ = self.registration.deregister(&mut mio::unix::SourceFd(&fd));
        }
    }

    /// Polls for read readiness (one waker slot: the last caller's).
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyGuard::new(self, event)))
    }

    /// Polls for write readiness (one waker slot: the last caller's).
    pub fn poll_write_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyGuard::new(self, event)))
    }

    /// [`poll_read_ready`](Self::poll_read_ready) with a mutable guard.
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, event)))
    }

    /// [`poll_write_ready`](Self::poll_write_ready) with a mutable guard.
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.registration.poll_ready(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, event)))
    }

    /// Waits until any readiness of `interest` is seen; returns it, with
    /// the tick a later `clear_ready` needs. Any number of tasks may wait.
    async fn wait(&self, interest: Interest) -> io::Result<ReadyEvent> {
        loop {
            self.registration.ready(interest).await?;
            self.registration.check_shutdown()?;
            // Cleared by another task between the wake and this look:
            // wait again.
            if let Some(event) = self.registration.ready_event(interest) {
                return Ok(event);
            }
        }
    }

    /// Waits until the descriptor is ready for any of `interest`.
    ///
    /// Cancel safety: cancel safe; nothing is consumed by waiting.
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.wait(interest).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// [`ready`](Self::ready) with a mutable guard.
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.wait(interest).await?;
        Ok(AsyncFdReadyMutGuard::new(self, event))
    }

    /// Waits until the descriptor is readable.
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::READABLE).await
    }

    /// Waits until the descriptor is readable, with a mutable guard.
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::READABLE).await
    }

    /// Waits until the descriptor is writable.
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        self.ready(Interest::WRITABLE).await
    }

    /// Waits until the descriptor is writable, with a mutable guard.
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        self.ready_mut(Interest::WRITABLE).await
    }

    /// Waits for `interest`, then runs `f`; on `WouldBlock` clears the
    /// readiness and waits again, until `f` returns anything else.
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let mut guard = self.ready(interest).await?;
            match guard.try_io(|fd| f(fd.get_ref())) {
                Ok(result) => return result,
                Err(TryIoError(())) => continue,
            }
        }
    }

    /// [`async_io`](Self::async_io) with mutable access to the inner value.
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        loop {
            let mut guard = self.ready_mut(interest).await?;
            match guard.try_io(|fd| f(fd.get_mut())) {
                Ok(result) => return result,
                Err(TryIoError(())) => continue,
            }
        }
    }

    /// Runs `f` if the descriptor looks ready for `interest`, clearing that
    /// readiness if `f` says `WouldBlock`; `WouldBlock` without calling `f`
    /// if it does not look ready.
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let direction = crate::net::tcp::direction_of(interest);
        self.registration.try_io(direction, || f(self.get_ref()))
    }

    /// [`try_io`](Self::try_io) with mutable access to the inner value.
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let direction = crate::net::tcp::direction_of(interest);
        let AsyncFd {
            inner,
            registration,
            ..
        } = self;
        registration.try_io(direction, || {
            f(inner.as_mut().expect("present until into_inner"))
        })
    }
}

/// What a guard's `try_io` makes of its closure's `result`: `WouldBlock`
/// clears the guard's readiness (by `clear_ready`) and becomes
/// `Err(TryIoError)`; anything else is handed back in `Ok`.
fn after_try<R>(
    result: io::Result<R>,
    clear_ready: impl FnOnce(),
) -> Result<io::Result<R>, TryIoError> {
    match result {
        Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
            clear_ready();
            Err(TryIoError(()))
        }
        result => Ok(result),
    }
}

/// The methods the two guards share.
macro_rules! guard_methods {
    ($async_fd:ty) => {
        fn new(async_fd: $async_fd, event: ReadyEvent) -> Self {
            Self {
                async_fd,
                event: Some(event),
            }
        }

        /// Marks the readiness seen as used: the next wait waits for a new
        /// event from the driver (unless one arrived since this guard was
        /// made). Call it after the descriptor said `WouldBlock`.
        pub fn clear_ready(&mut self) {
            if let Some(event) = self.event.take() {
                self.async_fd.registration.clear_readiness(event);
            }
        }

        /// Clears only the states in `ready` (e.g. `Ready::READABLE` after a
        /// read said `WouldBlock`), in the driver (unless a new event
        /// arrived since this guard was made) and in this guard, which goes
        /// on reporting the others (`WRITABLE`, say).
        pub fn clear_ready_matching(&mut self, ready: Ready) {
            if let Some(event) = self.event.take() {
                let cleared = ready.to_driver();
                self.async_fd.registration.clear_readiness(ReadyEvent {
                    tick: event.tick,
                    ready: cleared,
                });
                let left = event.ready - cleared;
                if !left.is_empty() {
                    self.event = Some(ReadyEvent {
                        ready: left,
                        ..event
                    });
                }
            }
        }

        /// Keeps the readiness: the next wait returns at once. (Dropping
        /// the guard does the same; this only says so.)
        pub fn retain_ready(&mut self) {}

        /// The readiness this guard saw, less what was cleared.
        pub fn ready(&self) -> Ready {
            self.event
                .map_or(Ready::EMPTY, |event| Ready::from_driver(event.ready))
        }
    };
}

impl<'a, T: AsRawFd> AsyncFdReadyGuard<'a, T> {
    guard_methods!(&'a AsyncFd<T>);

    /// Runs `f`, the caller's non-blocking operation; if it says
    /// `WouldBlock`, clears the readiness and returns `Err(TryIoError)` so
    /// the caller waits again. Any other result comes back in `Ok`.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&'a AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        after_try(f(self.async_fd), || self.clear_ready())
    }

    /// The `AsyncFd` this guard came from.
    pub fn get_ref(&self) -> &'a AsyncFd<T> {
        self.async_fd
    }

    /// Its inner value.
    pub fn get_inner(&self) -> &'a T {
        self.async_fd.get_ref()
    }
}

impl<'a, T: AsRawFd> AsyncFdReadyMutGuard<'a, T> {
    guard_methods!(&'a mut AsyncFd<T>);

    /// [`AsyncFdReadyGuard::try_io`] with mutable access.
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&mut AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        after_try(f(self.async_fd), || self.clear_ready())
    }

    /// The `AsyncFd` this guard came from.
    pub fn get_ref(&self) -> &AsyncFd<T> {
        self.async_fd
    }

    /// The `AsyncFd` this guard came from, mutably.
    pub fn get_mut(&mut self) -> &mut AsyncFd<T> {
        self.async_fd
    }

    /// Its inner value.
    pub fn get_inner(&self) -> &T {
        self.async_fd.get_ref()
    }

    /// Its inner value, mutably.
    pub fn get_inner_mut(&mut self) -> &mut T {
        self.async_fd.get_mut()
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.get_ref().as_raw_fd()
    }
}

/// Lends the inner value's descriptor (Tokio's impl needs only `AsRawFd`
/// and borrows the raw number unsafely; ours asks the inner value, which
/// every descriptor type of the standard library can answer).
impl<T: AsRawFd + std::os::fd::AsFd> std::os::fd::AsFd for AsyncFd<T> {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.get_ref().as_fd()
    }
}

impl<T: AsRawFd> Drop for AsyncFd<T> {
    /// Deregisters before the inner value (and its descriptor) goes.
    fn drop(&mut self) {
        self.deregister();
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadyGuard")
            .field("async_fd", self.async_fd)
            .finish()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutReadyGuard")
            .field("async_fd", &*self.async_fd)
            .finish()
    }
}

impl fmt::Display for TryIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operation would block; the readiness was cleared")
    }
}

impl Error for TryIoError {}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.cause)
    }
}

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(error: AsyncFdRegisterError<T>) -> io::Error {
        error.cause
    }
}
