//! The two rings, by hand: a thin layer over the `io-uring` crate.
//!
//! io_uring is two queues in memory shared by the process and the kernel.
//! The process writes **submission queue entries** (SQEs: "receive into this
//! buffer from this socket", "accept on this listener") into the submission
//! ring; one `io_uring_enter` system call hands a whole batch of them to the
//! kernel and, if asked, waits for results. The kernel writes **completion
//! queue entries** (CQEs: the operation's result, as a system call would
//! return it, and the 64-bit `user_data` the SQE carried) into the completion
//! ring, which the process reads without any system call at all.
//!
//! This layer adds four things to the crate's raw rings, and nothing else:
//!
//! * [`Ring::push`] submits first when the submission ring is full, so a
//!   caller may push any number of entries between two waits;
//! * [`Ring::submit_and_wait`] is the one `io_uring_enter` of a loop turn, and
//!   counts itself ([`Ring::enters`]) so a server can say how many system
//!   calls it made;
//! * [`Ring::reap`] drains the completion ring *and* the kernel's overflow
//!   list: when completions arrive faster than the ring has room, the kernel
//!   keeps the surplus aside and raises `IORING_SQ_CQ_OVERFLOW`; they come back
//!   only through another `io_uring_enter`, so a loop that trusted the ring
//!   alone would lose them;
//! * [`Ring::probe`] asks the kernel which operations it has ([`Opcodes`]).
//!
//! A [`Token`] packs what a completion is about (a connection's index and the
//! kind of operation) into the `user_data` word.
//!
//! Book: Chapter 10, "Two rings".

pub mod buf_ring;

use std::io;

use io_uring::{IoUring, Probe, opcode, squeue};

/// What an operation in flight was for: packed into the SQE's `user_data`
/// and given back in its CQE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// The connection's index in the server's slab (or 0 for the listener,
    /// the stop event and the timer, whose `op` says what they are).
    pub index: u32,
    /// Which operation.
    pub op: Op,
}

/// The kinds of operation a server has in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// An accept on the listener (single-shot or multishot).
    Accept = 1,
    /// A receive into the connection's buffer (or a provided one).
    Recv = 2,
    /// A send of the bytes received.
    Send = 3,
    /// `shutdown(SHUT_WR)` after the peer half-closed and everything was echoed.
    Shutdown = 4,
    /// The read of the stop eventfd.
    Stop = 5,
    /// The timer that retries accepting after `EMFILE`.
    Timer = 6,
    /// A cancellation request (its own completion).
    Cancel = 7,
    /// A no-op (tests, the overflow demonstration).
    Nop = 8,
}

impl Op {
    fn from_u8(byte: u8) -> Option<Op> {
        Some(match byte {
            1 => Op::Accept,
            2 => Op::Recv,
            3 => Op::Send,
            4 => Op::Shutdown,
            5 => Op::Stop,
            6 => Op::Timer,
            7 => Op::Cancel,
            8 => Op::Nop,
            _ => return None,
        })
    }
}

// ANCHOR: token
impl Token {
    /// A token for operation `op` of connection `index`.
    pub fn new(index: u32, op: Op) -> Token {
        Token { index, op }
    }

    /// The `user_data` word: the index in the high 32 bits, the kind in the low 8.
    pub fn to_user_data(self) -> u64 {
        (u64::from(self.index) << 32) | self.op as u64
    }

    /// The token back from a CQE's `user_data`, or `None` for a word we never wrote.
    pub fn from_user_data(word: u64) -> Option<Token> {
        let op = Op::from_u8((word & 0xff) as u8)?;
        Some(Token {
            index: (word >> 32) as u32,
            op,
        })
    }
}
// ANCHOR_END: token

/// One completion, copied out of the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The `user_data` of the SQE it answers.
    pub user_data: u64,
    /// What the system call would have returned: a count, a descriptor, or
    /// `-errno`.
    pub result: i32,
    /// `IORING_CQE_F_*` flags: more completions to come (multishot), which
    /// provided buffer was used.
    pub flags: u32,
}

impl Completion {
    /// The token it carries (`None` for a word this layer did not write).
    pub fn token(&self) -> Option<Token> {
        Token::from_user_data(self.user_data)
    }

    /// Whether the operation goes on posting completions (multishot).
    pub fn more(&self) -> bool {
        io_uring::cqueue::more(self.flags)
    }

    /// The provided buffer the kernel chose, if it chose one.
    pub fn buffer_id(&self) -> Option<u16> {
        io_uring::cqueue::buffer_select(self.flags)
    }
}

/// The operations this chapter uses, and whether the kernel has each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Opcodes {
    /// `IORING_OP_ACCEPT` (5.5).
    pub accept: bool,
    /// `IORING_OP_RECV` (5.6).
    pub recv: bool,
    /// `IORING_OP_SEND` (5.6).
    pub send: bool,
    /// `IORING_OP_SHUTDOWN` (5.11).
    pub shutdown: bool,
    /// `IORING_OP_READ` (5.6), for the stop eventfd.
    pub read: bool,
    /// `IORING_OP_TIMEOUT` (5.4).
    pub timeout: bool,
    /// `IORING_OP_ASYNC_CANCEL` (5.5).
    pub async_cancel: bool,
    /// `IORING_OP_PROVIDE_BUFFERS` (5.7), the older way to provide buffers.
    pub provide_buffers: bool,
}

impl Opcodes {
    /// Each operation's name and whether it is there, in a fixed order.
    pub fn list(&self) -> [(&'static str, bool); 8] {
        [
            ("ACCEPT", self.accept),
            ("RECV", self.recv),
            ("SEND", self.send),
            ("SHUTDOWN", self.shutdown),
            ("READ", self.read),
            ("TIMEOUT", self.timeout),
            ("ASYNC_CANCEL", self.async_cancel),
            ("PROVIDE_BUFFERS", self.provide_buffers),
        ]
    }

    /// Whether the echo server can run on this kernel at all.
    pub fn can_echo(&self) -> bool {
        self.accept && self.recv && self.send && self.read && self.timeout && self.async_cancel
    }
}

/// The ring pair and its counters.
pub struct Ring {
    ring: IoUring,
    /// Completions taken out of the ring while making room to submit
    /// (see [`Ring::push`]); [`Ring::reap`] hands them out first.
    set_aside: Vec<Completion>,
    deferred: bool,
    enters: u64,
    overflow_flushes: u64,
}

impl std::fmt::Debug for Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("sq_entries", &self.ring.params().sq_entries())
            .field("cq_entries", &self.ring.params().cq_entries())
            .field("enters", &self.enters)
            .finish()
    }
}

/// Whether `err` from [`Ring::new`] means "io_uring is not allowed or not
/// there here" (so a server should fall back to epoll) rather than a bug.
pub fn is_refused(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EPERM | libc::ENOSYS | libc::EACCES | libc::EOPNOTSUPP)
    )
}

/// Whether this process may set up a ring at all (tests skip, with a
/// line saying so, where it may not: a container's seccomp profile, say).
pub fn available() -> bool {
    match Ring::new(2, 2) {
        Ok(_) => true,
        Err(err) if is_refused(&err) => false,
        Err(_) => true, // another failure: let the caller meet it
    }
}

impl Ring {
    // ANCHOR: new
    /// Sets up a ring pair: `sq_entries` submission slots and `cq_entries`
    /// completion slots (the kernel rounds both up to powers of two; the
    /// completion ring must be at least as large as the submission ring).
    pub fn new(sq_entries: u32, cq_entries: u32) -> io::Result<Ring> {
        Ring::build(sq_entries, cq_entries, false)
    }
    // ANCHOR_END: new

    // ANCHOR: deferred
    /// As [`new`](Ring::new), but the kernel runs the ring's deferred work
    /// (finishing operations whose sockets became ready) only inside this
    /// thread's `io_uring_enter`, instead of interrupting it at any moment
    /// (`IORING_SETUP_DEFER_TASKRUN`, 6.1). Only one thread may then submit:
    /// the ring starts disabled, and the thread that calls
    /// [`enable`](Ring::enable) becomes that thread.
    pub fn new_deferred(sq_entries: u32, cq_entries: u32) -> io::Result<Ring> {
        Ring::build(sq_entries, cq_entries, true)
    }

    /// Makes the calling thread the ring's only submitter, if the ring was
    /// set up with [`new_deferred`](Ring::new_deferred); does nothing otherwise.
    pub fn enable(&self) -> io::Result<()> {
        if self.deferred {
            self.ring.submitter().register_enable_rings()?;
        }
        Ok(())
    }
    // ANCHOR_END: deferred

    fn build(sq_entries: u32, cq_entries: u32, deferred: bool) -> io::Result<Ring> {
        let mut builder = IoUring::builder();
        builder.setup_cqsize(cq_entries);
        if deferred {
            builder
                .setup_single_issuer()
                .setup_defer_taskrun()
                .setup_r_disabled();
        }
        let ring = builder.build(sq_entries)?;
        Ok(Ring {
            deferred,
            ring,
            set_aside: Vec::new(),
            enters: 0,
            overflow_flushes: 0,
        })
    }

    /// Submission and completion ring sizes, as the kernel set them.
    pub fn sizes(&self) -> (u32, u32) {
        let params = self.ring.params();
        (params.sq_entries(), params.cq_entries())
    }

    /// Whether the kernel keeps overflowing completions instead of dropping
    /// them (`IORING_FEAT_NODROP`, 5.5).
    pub fn keeps_overflow(&self) -> bool {
        self.ring.params().is_feature_nodrop()
    }

    // ANCHOR: probe
    /// Which of the chapter's operations this kernel has.
    pub fn probe(&self) -> io::Result<Opcodes> {
        let mut probe = Probe::new();
        self.ring.submitter().register_probe(&mut probe)?;
        Ok(Opcodes {
            accept: probe.is_supported(opcode::Accept::CODE),
            recv: probe.is_supported(opcode::Recv::CODE),
            send: probe.is_supported(opcode::Send::CODE),
            shutdown: probe.is_supported(opcode::Shutdown::CODE),
            read: probe.is_supported(opcode::Read::CODE),
            timeout: probe.is_supported(opcode::Timeout::CODE),
            async_cancel: probe.is_supported(opcode::AsyncCancel::CODE),
            provide_buffers: probe.is_supported(opcode::ProvideBuffers::CODE),
        })
    }
    // ANCHOR_END: probe

    // ANCHOR: push
    /// Queues one operation; if the submission ring is full, submits what
    /// is queued first (one `io_uring_enter` without waiting), and if the
    /// kernel will not take more until completions are read, sets the ready
    /// completions aside for the next [`reap`](Ring::reap).
    ///
    /// # Safety
    ///
    /// Every buffer, descriptor and structure the entry points to must stay
    /// valid, and untouched by the caller, until its completion has been
    /// reaped: from this call on, the kernel owns them.
    pub unsafe fn push(&mut self, entry: &squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: the caller guarantees what the entry points to lives
            // until its completion.
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                return Ok(());
            }
            if self.submit_and_wait(0)? == 0 {
                self.take_completions_into_set_aside();
            }
        }
    }
    // ANCHOR_END: push

    fn take_completions_into_set_aside(&mut self) {
        let ring = &mut self.ring;
        self.set_aside
            .extend(ring.completion().map(|cqe| Completion {
                user_data: cqe.user_data(),
                result: cqe.result(),
                flags: cqe.flags(),
            }));
    }

    // ANCHOR: submit_and_wait
    /// Hands everything queued to the kernel and waits until at least `want`
    /// completions are ready: one `io_uring_enter`, however many entries.
    pub fn submit_and_wait(&mut self, want: usize) -> io::Result<usize> {
        loop {
            self.enters += 1;
            match self.ring.submit_and_wait(want) {
                Ok(submitted) => return Ok(submitted),
                Err(err) if err.raw_os_error() == Some(libc::EINTR) => {}
                // The completion ring and the overflow list are full: the
                // caller must reap before the kernel takes more.
                Err(err) if err.raw_os_error() == Some(libc::EBUSY) => return Ok(0),
                Err(err) => return Err(err),
            }
        }
    }
    // ANCHOR_END: submit_and_wait

    // ANCHOR: reap
    /// Moves every ready completion into `out`, including those the kernel
    /// held back because the ring was full. Returns how many.
    pub fn reap(&mut self, out: &mut Vec<Completion>) -> io::Result<usize> {
        let start = out.len();
        out.append(&mut self.set_aside);
        loop {
            out.extend(self.ring.completion().map(|cqe| Completion {
                user_data: cqe.user_data(),
                result: cqe.result(),
                flags: cqe.flags(),
            }));
            // Completions that found the ring full wait in the kernel's
            // overflow list; only an `io_uring_enter` brings them in.
            if !self.ring.submission().cq_overflow() {
                return Ok(out.len() - start);
            }
            self.overflow_flushes += 1;
            self.submit_and_wait(0)?;
        }
    }
    // ANCHOR_END: reap

    /// Whether the kernel holds completions in its overflow list now.
    pub fn overflow_pending(&mut self) -> bool {
        self.ring.submission().cq_overflow()
    }

    /// `io_uring_enter` calls made so far.
    pub fn enters(&self) -> u64 {
        self.enters
    }

    /// Times [`reap`](Ring::reap) found completions in the overflow list.
    pub fn overflow_flushes(&self) -> u64 {
        self.overflow_flushes
    }

    /// Completions the kernel had to drop (only on kernels without
    /// `IORING_FEAT_NODROP`; 0 on any kernel since 5.5).
    pub fn dropped_completions(&mut self) -> u32 {
        self.ring.completion().overflow()
    }

    /// The ring's registration calls (buffer rings).
    pub fn submitter(&self) -> io_uring::Submitter<'_> {
        self.ring.submitter()
    }
}
