//! The futex: the kernel's primitive for "sleep until this word changes".
//!
//! Every blocking lock, condition variable and `thread::park` on Linux ends
//! in `futex(2)`. `wait(word, expected)` sleeps only if `*word == expected`
//! (checked atomically inside the kernel, so a wake-up that happens just
//! before we sleep cannot be lost); `wake(word, n)` wakes up to `n` sleepers.
//! Between threads of one process the cheaper *private* futexes do; between
//! processes sharing a memory mapping we need the *shared* kind, which the
//! kernel keys on the physical page.
//!
//! Chapter 2's ping-pong uses futexes raw, to measure the switch with as
//! little else on the path as possible.

use std::sync::atomic::AtomicU32;

/// Whether the futex word is private to this process or shared with others
/// through a shared mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Threads of one process.
    Private,
    /// Processes sharing the page the word is on.
    Shared,
}

impl Scope {
    fn flag(self) -> libc::c_int {
        match self {
            Scope::Private => libc::FUTEX_PRIVATE_FLAG,
            Scope::Shared => 0,
        }
    }
}

/// Sleeps while `*word == expected`. Returns on a wake-up, a signal, or at
/// once if the word already differs: callers re-check the word in a loop.
pub fn wait(word: &AtomicU32, expected: u32, scope: Scope) {
    // SAFETY: `word` is a valid, aligned u32 for the duration of the call;
    // a null timeout means "no timeout".
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | scope.flag(),
            expected,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

/// Wakes up to `count` threads sleeping on `word`.
pub fn wake(word: &AtomicU32, count: u32, scope: Scope) {
    // SAFETY: `word` is a valid, aligned u32; FUTEX_WAKE only reads its
    // address.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | scope.flag(),
            count,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    #[test]
    fn wait_returns_at_once_when_the_word_differs() {
        let word = AtomicU32::new(1);
        wait(&word, 0, Scope::Private); // must not sleep
    }

    #[test]
    fn wake_ends_a_wait() {
        let word = Arc::new(AtomicU32::new(0));
        let sleeper = {
            let word = Arc::clone(&word);
            std::thread::spawn(move || {
                while word.load(Ordering::Acquire) == 0 {
                    wait(&word, 0, Scope::Private);
                }
            })
        };
        word.store(1, Ordering::Release);
        wake(&word, 1, Scope::Private);
        sleeper.join().unwrap();
    }
}
