//! Ping-pong: two flows of control hand a token back and forth, and every
//! hand-off is a context switch.
//!
//! The oldest way to measure a switch (lmbench's `lat_ctx` does it): A sends
//! the token and blocks waiting for it to come back; B, woken, sends it back
//! and blocks in turn. With both pinned to *one* CPU, each hand-off forces the
//! kernel to put one to sleep, save its registers, pick the other, switch to
//! its address space if it is another process, and restore it. So
//! `elapsed / (2 x round trips)` is the price of one switch, plus the small
//! price of the token's own system calls. Pinned to *two* CPUs, nobody has to
//! be switched out; what we measure then is how long it takes to wake a
//! sleeping thread on another CPU.
//!
//! Two tokens: a one-byte message through a pipe (what lmbench uses), and a
//! futex word (the least the kernel can do to block and wake). Two players:
//! threads of one process ([`threads`]) and two processes ([`processes`]),
//! whose only difference is the address-space switch.
//!
//! We do not take the switching on faith: each side reads its own count of
//! voluntary context switches (`getrusage`) before and after, and the
//! result reports how many switches really happened per round trip.
//!
//! Book: Chapter 2, "Two threads, one CPU".

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use chapter_01::gate::Gate;

use crate::affinity;
use crate::futex::{self, Scope};

/// How the token travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// One byte through a pair of pipes.
    Pipe,
    /// A futex word flipped between the two sides.
    Futex,
}

/// Where the two sides run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Both pinned to the same CPU: every hand-off is a switch.
    SameCpu,
    /// Pinned to two different CPUs: every hand-off is a cross-CPU wake-up.
    CrossCpu,
}

/// What one ping-pong run measured.
#[derive(Debug, Clone, Copy)]
pub struct PingPong {
    /// Timed round trips (two hand-offs each).
    pub round_trips: u64,
    /// Time for all of them, as seen by the side that started them.
    pub elapsed: Duration,
    /// Voluntary context switches of both sides during the timed part.
    pub voluntary_switches: u64,
    /// Involuntary ones (preemptions) of both sides.
    pub involuntary_switches: u64,
}

impl PingPong {
    /// Nanoseconds per one-way hand-off.
    pub fn ns_per_handoff(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / (2 * self.round_trips) as f64
    }

    /// Context switches per round trip, voluntary and involuntary: about 2
    /// when every hand-off switched. (Which kind depends on the token: a
    /// futex wake lets the waker run on until it blocks, a voluntary switch;
    /// a pipe write may let the woken reader preempt the writer at once, an
    /// involuntary one.)
    pub fn switches_per_round_trip(&self) -> f64 {
        (self.voluntary_switches + self.involuntary_switches) as f64 / self.round_trips as f64
    }
}

/// Round trips run before timing starts.
const WARMUP_ROUND_TRIPS: u64 = 200;

/// The two CPUs a placement uses, or `None` if the machine lets us use only
/// one CPU and the placement needs two.
pub fn cpus_for(placement: Placement) -> io::Result<Option<(usize, usize)>> {
    let cpus = affinity::allowed_cpus()?;
    Ok(match (placement, cpus.as_slice()) {
        (Placement::SameCpu, [first, ..]) => Some((*first, *first)),
        (Placement::CrossCpu, [first, second, ..]) => Some((*first, *second)),
        _ => None,
    })
}

/// (voluntary, involuntary) context switches of the calling thread so far.
pub fn thread_switches() -> (u64, u64) {
    // SAFETY: an all-zero rusage is a valid value to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid and writable; RUSAGE_THREAD reports on the
    // calling thread only.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    (usage.ru_nvcsw as u64, usage.ru_nivcsw as u64)
}

/// One side's way to pass the token and to wait for it.
pub(crate) trait Side {
    fn pass(&self) -> io::Result<()>;
    fn wait(&self) -> io::Result<()>;
}

// ANCHOR: futex_side
/// The futex token: the word says whose turn it is (0 or 1).
pub(crate) struct FutexSide<'a> {
    pub(crate) turn: &'a AtomicU32,
    pub(crate) me: u32,
    pub(crate) scope: Scope,
}

impl Side for FutexSide<'_> {
    fn pass(&self) -> io::Result<()> {
        self.turn.store(1 - self.me, Ordering::Release);
        futex::wake(self.turn, 1, self.scope);
        Ok(())
    }

    fn wait(&self) -> io::Result<()> {
        // The kernel sleeps only if the word still says "the other's turn",
        // so a pass that lands between our load and our sleep is not lost.
        while self.turn.load(Ordering::Acquire) != self.me {
            futex::wait(self.turn, 1 - self.me, self.scope);
        }
        Ok(())
    }
}
// ANCHOR_END: futex_side

/// The pipe token: write one byte to the other side, read one from it.
struct PipeSide {
    read_fd: libc::c_int,
    write_fd: libc::c_int,
}

impl Side for PipeSide {
    fn pass(&self) -> io::Result<()> {
        let byte = 1u8;
        loop {
            // SAFETY: writing one byte from a valid local to an fd we own.
            let n = unsafe { libc::write(self.write_fd, (&raw const byte).cast(), 1) };
            match n {
                1 => return Ok(()),
                _ => retry_if_interrupted()?,
            }
        }
    }

    fn wait(&self) -> io::Result<()> {
        let mut byte = 0u8;
        loop {
            // SAFETY: reading one byte into a valid local from an fd we own.
            let n = unsafe { libc::read(self.read_fd, (&raw mut byte).cast(), 1) };
            match n {
                1 => return Ok(()),
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                _ => retry_if_interrupted()?,
            }
        }
    }
}

fn retry_if_interrupted() -> io::Result<()> {
    let err = io::Error::last_os_error();
    if err.kind() == io::ErrorKind::Interrupted {
        Ok(())
    } else {
        Err(err)
    }
}

/// Plays `rounds` round trips; the first side passes first.
fn play(side: &dyn Side, first: bool, rounds: u64) -> io::Result<()> {
    for _ in 0..rounds {
        if first {
            side.pass()?;
            side.wait()?;
        } else {
            side.wait()?;
            side.pass()?;
        }
    }
    Ok(())
}

/// Warm-up, then the timed rounds with switch counts; returns (elapsed,
/// voluntary, involuntary) as this side saw them.
fn timed_play(side: &dyn Side, first: bool, rounds: u64) -> io::Result<(Duration, u64, u64)> {
    play(side, first, WARMUP_ROUND_TRIPS)?;
    let (vol, invol) = thread_switches();
    let start = Instant::now();
    play(side, first, rounds)?;
    let elapsed = start.elapsed();
    let (vol_after, invol_after) = thread_switches();
    Ok((elapsed, vol_after - vol, invol_after - invol))
}

/// A pair of pipes, one per direction, closed on drop.
struct Pipes {
    a_to_b: [libc::c_int; 2],
    b_to_a: [libc::c_int; 2],
}

impl Pipes {
    fn new() -> io::Result<Pipes> {
        let mut a_to_b = [0; 2];
        let mut b_to_a = [0; 2];
        // SAFETY: each array has room for the two descriptors pipe2 writes.
        unsafe {
            if libc::pipe2(a_to_b.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::pipe2(b_to_a.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                let err = io::Error::last_os_error();
                libc::close(a_to_b[0]);
                libc::close(a_to_b[1]);
                return Err(err);
            }
        }
        Ok(Pipes { a_to_b, b_to_a })
    }

    fn side_a(&self) -> PipeSide {
        PipeSide {
            read_fd: self.b_to_a[0],
            write_fd: self.a_to_b[1],
        }
    }

    fn side_b(&self) -> PipeSide {
        PipeSide {
            read_fd: self.a_to_b[0],
            write_fd: self.b_to_a[1],
        }
    }
}

impl Drop for Pipes {
    fn drop(&mut self) {
        for fd in self.a_to_b.into_iter().chain(self.b_to_a) {
            // SAFETY: we created these descriptors and close each once.
            unsafe { libc::close(fd) };
        }
    }
}

// ANCHOR: threads
/// Two threads of this process play `round_trips` round trips. Returns
/// `None` when the placement needs two CPUs and only one is allowed.
pub fn threads(
    token: Token,
    placement: Placement,
    round_trips: u64,
) -> io::Result<Option<PingPong>> {
    let Some((cpu_a, cpu_b)) = cpus_for(placement)? else {
        return Ok(None);
    };
    let pipes = Arc::new(Pipes::new()?);
    let turn = Arc::new(AtomicU32::new(0));
    let ready = Arc::new(Gate::new());
    let player = |me: u32, cpu: usize| {
        let (pipes, turn, ready) = (Arc::clone(&pipes), Arc::clone(&turn), Arc::clone(&ready));
        thread::spawn(move || -> io::Result<(Duration, u64, u64)> {
            affinity::pin_current_thread(cpu)?;
            ready.arrive_and_wait();
            let first = me == 0;
            match token {
                Token::Futex => {
                    let side = FutexSide {
                        turn: &turn,
                        me,
                        scope: Scope::Private,
                    };
                    timed_play(&side, first, round_trips)
                }
                Token::Pipe if first => timed_play(&pipes.side_a(), first, round_trips),
                Token::Pipe => timed_play(&pipes.side_b(), first, round_trips),
            }
        })
    };
    let a = player(0, cpu_a);
    let b = player(1, cpu_b);
    ready.wait_for_arrivals(2);
    ready.open();
    let (elapsed, vol_a, invol_a) = a.join().expect("player A does not panic")?;
    let (_, vol_b, invol_b) = b.join().expect("player B does not panic")?;
    Ok(Some(PingPong {
        round_trips,
        elapsed,
        voluntary_switches: vol_a + vol_b,
        involuntary_switches: invol_a + invol_b,
    }))
}
// ANCHOR_END: threads

/// A shared anonymous page holding the futex word two processes flip.
struct SharedPage {
    addr: *mut libc::c_void,
}

impl SharedPage {
    fn new() -> io::Result<SharedPage> {
        // SAFETY: a fresh shared anonymous mapping touches no existing memory.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(SharedPage { addr })
    }

    fn word(&self) -> &AtomicU32 {
        // SAFETY: the page is mapped, zero-filled, aligned, and lives as long
        // as `self`; a zeroed AtomicU32 is valid.
        unsafe { &*self.addr.cast::<AtomicU32>() }
    }
}

impl Drop for SharedPage {
    fn drop(&mut self) {
        // SAFETY: we mapped this page and unmap it once.
        unsafe { libc::munmap(self.addr, 4096) };
    }
}

// ANCHOR: processes
/// A parent and a forked child play `round_trips` round trips, both pinned
/// to one CPU: every hand-off switches address spaces too.
pub fn processes(token: Token, round_trips: u64) -> io::Result<PingPong> {
    let (cpu, _) = cpus_for(Placement::SameCpu)?.expect("SameCpu needs one CPU");
    // A fresh thread, so pinning and forking leave the caller's thread alone.
    thread::spawn(move || process_pair(token, cpu, round_trips))
        .join()
        .expect("the process ping-pong thread does not panic")
}

fn process_pair(token: Token, cpu: usize, round_trips: u64) -> io::Result<PingPong> {
    affinity::pin_current_thread(cpu)?;
    let pipes = Pipes::new()?;
    let page = SharedPage::new()?;
    let futex_side = |me| FutexSide {
        turn: page.word(),
        me,
        scope: Scope::Shared,
    };

    // SAFETY: the child only runs `child_plays`, which makes plain system
    // calls and touches no lock or allocator that another thread of the
    // parent might have held at the moment of the fork, then `_exit`s.
    let pid = unsafe { libc::fork() };
    if pid == -1 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let ok = match token {
            Token::Futex => timed_play(&futex_side(1), false, round_trips).is_ok(),
            Token::Pipe => timed_play(&pipes.side_b(), false, round_trips).is_ok(),
        };
        // SAFETY: ends the child without running the parent's destructors
        // or atexit handlers a second time.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let played = match token {
        Token::Futex => timed_play(&futex_side(0), true, round_trips),
        Token::Pipe => timed_play(&pipes.side_a(), true, round_trips),
    };
    let child = reap(pid);
    let (elapsed, vol, invol) = played?;
    let (child_ok, child_vol, child_invol) = child?;
    if !child_ok {
        return Err(io::Error::other("the child process failed its ping-pong"));
    }
    Ok(PingPong {
        round_trips,
        elapsed,
        // The child's counts include its warm-up: subtract its share.
        voluntary_switches: vol + child_vol.saturating_sub(WARMUP_ROUND_TRIPS),
        involuntary_switches: invol + child_invol,
    })
}
// ANCHOR_END: processes

/// Waits for the child and returns (exited 0, voluntary, involuntary
/// switches over its whole life).
fn reap(pid: libc::pid_t) -> io::Result<(bool, u64, u64)> {
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `status` and `usage` are valid and writable; `pid` is our
        // own child.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
            return Ok((ok, usage.ru_nvcsw as u64, usage.ru_nivcsw as u64));
        }
        retry_if_interrupted()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_on_one_cpu_really_switch() {
        for token in [Token::Pipe, Token::Futex] {
            let run = threads(token, Placement::SameCpu, 2_000).unwrap().unwrap();
            assert!(run.ns_per_handoff() > 0.0);
            // Each side is switched out once per round trip: about 2
            // switches. The kernel may skip a few when a wake-up races a
            // sleep.
            assert!(
                run.switches_per_round_trip() > 1.5,
                "{token:?}: {} switches per round trip",
                run.switches_per_round_trip()
            );
        }
    }

    #[test]
    fn processes_on_one_cpu_really_switch() {
        for token in [Token::Pipe, Token::Futex] {
            let run = processes(token, 2_000).unwrap();
            assert!(run.ns_per_handoff() > 0.0);
            assert!(run.switches_per_round_trip() > 1.5, "{token:?}: {run:?}");
        }
    }

    #[test]
    fn cross_cpu_runs_or_says_it_cannot() {
        let run = threads(Token::Futex, Placement::CrossCpu, 500).unwrap();
        let cpus = affinity::allowed_cpus().unwrap().len();
        assert_eq!(run.is_some(), cpus >= 2);
    }
}
