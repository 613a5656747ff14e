//! Every exercise of the book, in the order the chapters set them.
//!
//! An exercise `chNN_topic` has three files, named after it:
//!
//! * `exercises/chNN/topic.rs`: the stub the reader edits (`todo!()` bodies
//!   and doc comments that state exactly what to build);
//! * `exercises/tests/chNN_topic.rs`: the tests, which load the stub, or the
//!   reference solution under `--features solutions`;
//! * `exercises/solutions/chNN/topic.rs`: the reference solution.
//!
//! The hint lives here. A unit test in `main.rs` checks that this list and
//! the files on disk agree.

/// One exercise.
#[derive(Debug, Clone, Copy)]
pub struct Exercise {
    /// `chNN_topic`: the test target's name, and what `hint` takes.
    pub name: &'static str,
    /// One line: what the reader builds.
    pub title: &'static str,
    /// Shown by `hint NAME`, and for the next unsolved exercise.
    pub hint: &'static str,
}

impl Exercise {
    /// The chapter number, from the name.
    pub fn chapter(&self) -> &str {
        &self.name[2..4]
    }

    /// The stub's path, relative to the `exercises/` directory.
    pub fn stub_path(&self) -> String {
        format!("ch{}/{}.rs", self.chapter(), self.topic())
    }

    /// The reference solution's path, relative to `exercises/`.
    pub fn solution_path(&self) -> String {
        format!("solutions/{}", self.stub_path())
    }

    /// The test file's path, relative to `exercises/`.
    pub fn test_path(&self) -> String {
        format!("tests/{}.rs", self.name)
    }

    fn topic(&self) -> &str {
        &self.name[5..]
    }
}

/// All exercises, chapter by chapter.
pub const EXERCISES: &[Exercise] = &[
    Exercise {
        name: "ch01_proc_status",
        title: "parse VmSize, VmRSS and Threads from /proc/<pid>/status",
        hint: "Find a field's line with `line.strip_prefix(name)` and require that what \
               remains starts with ':' (that rules out look-alikes such as VmRSSX). Then \
               `split_whitespace()` the rest: the first word parses with `.parse::<u64>()`, \
               the second must be exactly the unit (`Some(\"kB\")` or `None`), and there \
               must be no third. Write that once as a helper taking the name and the unit, \
               and call it three times with `?`.",
    },
    Exercise {
        name: "ch01_echo_loop",
        title: "an echo loop that survives short reads, partial writes and signals",
        hint: "Loop on `stream.read(&mut buf)`: match `Ok(0)` (end of file: return the \
               total), `Ok(n)`, an error whose `kind()` is `ErrorKind::Interrupted` \
               (`continue`), and any other error (return it). For the write, \
               `Write::write_all` already loops over partial writes and retries \
               `Interrupted`: `stream.write_all(&buf[..n])?`.",
    },
    Exercise {
        name: "ch01_thread_pool",
        title: "a bounded thread pool: execute blocks when the queue is full",
        hint: "`std::sync::mpsc::sync_channel::<Job>(capacity)` is a bounded queue whose \
               `send` blocks while it is full. Keep the `SyncSender` in the pool (in an \
               `Option`, so `drop` can take it) and share the `Receiver` among the workers \
               as `Arc<Mutex<Receiver<Job>>>`. A worker loops: lock, `recv()`, unlock (let \
               the guard drop before running the job!), run the job inside \
               `std::panic::catch_unwind(AssertUnwindSafe(job))`. When `recv()` returns \
               `Err`, the sender is gone and the queue is empty: return. In `drop`, drop \
               the sender first, then join every worker.",
    },
    Exercise {
        name: "ch01_fork_wait",
        title: "fork a child, reap it with waitpid, and decode its wait status",
        hint: "`decode`: the `libc` crate has C's wait macros as functions: `WIFEXITED` says \
               whether the child exited, and then `WEXITSTATUS` is its code; `WIFSIGNALED` \
               whether a signal killed it, and then `WTERMSIG` is the signal. `reap`: call \
               `waitpid` with the child's pid in a loop; success returns that pid; on -1 read \
               `io::Error::last_os_error()` and go round again only if its kind is \
               `Interrupted`. `run_child`: `fork` returns -1 (an error), 0 (you are the child: \
               do the one thing, then `_exit`) or the child's pid (you are the parent: reap it).",
    },
    Exercise {
        name: "ch02_switch_cost",
        title: "the median cost of a switch from ping-pong runs, trusting only runs that switched",
        hint: "Check the input first: empty slice -> NoRuns; `position` of a run with zero \
               round trips -> EmptyRun { index }. Then `filter` the runs whose switches are at \
               least 1.5 x round_trips (compare as f64), `map` each to \
               `elapsed.as_nanos() as f64 / (2 * round_trips) as f64`, and collect. Sort the \
               costs with `sort_by(f64::total_cmp)`; the median is the middle element, or the \
               mean of the two middle ones when the count is even.",
    },
    Exercise {
        name: "ch02_pin",
        title: "pin the calling thread to one CPU with sched_setaffinity",
        hint: "Start from `let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };` (an \
               all-zero set is valid and empty). The set holds \
               `8 * size_of::<libc::cpu_set_t>()` CPUs: check `cpu` against that before \
               `libc::CPU_SET(cpu, &mut set)`. Call \
               `libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set)`; pid 0 is the \
               calling thread; a non-zero result means `io::Error::last_os_error()`. For \
               `allowed_cpus`, fill the set with `sched_getaffinity` and keep every index for \
               which `libc::CPU_ISSET(i, &set)` is true.",
    },
    Exercise {
        name: "ch02_green_yield",
        title: "the green-thread yield: pick the next ready fiber and switch to it",
        hint: "`next_ready`: for offsets 1..n, look at `(current + offset) % n` and return the \
               first index whose state is Ready. `switch_to_next`: open an `unsafe` block that \
               borrows `let s = &mut *scheduler;`, finds `next` (return false if None), sets \
               `s.slots[current].state = leaving_as`, `s.slots[next].state = State::Running`, \
               `s.current = next`, and returns two raw pointers: `&raw mut (*base.add(current)).context` \
               and `&raw const (*base.add(next)).context` with `let base = s.slots.as_mut_ptr();`. \
               Only after that block has ended, call `context::switch(from, to)` and return true.",
    },
    Exercise {
        name: "ch02_sattolo",
        title: "a pointer-chase chain that is one single cycle, by Sattolo's shuffle",
        hint: "Start from the identity (`(0..n).collect()`), walk `i` down from `n - 1` to 1, \
               and swap `next[i]` with `next[j]`, where `j` is what `random_below(i)` returns: \
               asking with the bound `i` is what keeps `j` strictly below `i`. For \
               `lap_length`, step along the chain, counting, at most `next.len()` times; \
               `slice::get` turns a step outside the slice into `None` instead of a panic.",
    },
    Exercise {
        name: "ch03_histogram",
        title: "percentiles from a latency histogram with bounded relative error",
        hint: "`record` is one line: `self.counts[bucket_of(value)] += 1`. `count` is the sum \
               of `counts`. For a percentile: return None when the count is 0; clamp p to \
               0..=100; rank = `(p / 100.0 * count as f64).ceil() as u64`, then \
               `.clamp(1, count)`. Walk `counts` with `enumerate()`, keep a running total, and \
               return `Some(bucket_high(index))` at the first bucket where the total reaches \
               the rank.",
    },
    Exercise {
        name: "ch03_source_plan",
        title: "spread connections over loopback source addresses",
        hint: "Turn the address into a number: `u32::from(first)`; the next address is `+ 1`, \
               and `Ipv4Addr::from(n)` turns it back. Loop until you have \
               `connections.div_ceil(per_source).max(1)` addresses: check \
               `addr.is_loopback()` (127.0.0.0/8) or fail, skip it if \
               `addr.octets()[3]` is 0 or 255, and use `checked_add(1)` so the very last \
               address cannot wrap around. `source_for` is `addresses[index % addresses.len()]`.",
    },
    Exercise {
        name: "ch03_verify_echo",
        title: "a verifying reader that finds where an echo went wrong",
        hint: "Keep a `PatternStream::new(seed)` and two buffers. Loop while fewer than \
               `expected` bytes are checked: read into `got[..room]` where room is the smaller \
               of the buffer and what is left (so you never read too far); `Ok(0)` is \
               UnexpectedEof; retry Interrupted. Then `pattern.fill(&mut want[..n])` gives the \
               expected bytes at the same offsets: compare them pairwise, count differences \
               and record the first offset with `get_or_insert(checked_so_far + i)`.",
    },
    Exercise {
        name: "ch03_conn_cap",
        title: "a connection cap whose seats come back when their thread ends, even by panic",
        hint: "A check (`load`) followed by an increment (`fetch_add`) is two steps, and \
               another thread can come between them. Do both in one: `AtomicUsize::fetch_update` \
               (or a `compare_exchange` loop) that declines to change the count when it is \
               already `max`. A seat holds a clone of the `Arc` and subtracts one in `drop`. In \
               `serve_or_refuse`, move the seat into the thread's closure with the stream: it \
               then lives exactly as long as the thread's work, panics included, and a failed \
               `Builder::spawn` drops it for you.",
    },
    Exercise {
        name: "ch04_drain",
        title: "the read-until-WouldBlock loop edge-triggered epoll needs, with a limit",
        hint: "Loop: compute `room = limit.saturating_sub(into.len()).min(CHUNK)`; if it is 0 \
               return `Stop::Full` before reading. Read into a `[0u8; CHUNK]` slice of length \
               `room`. `Ok(0)` is `Stop::Eof`, `Ok(n)` extends `into` and loops, \
               `ErrorKind::WouldBlock` is `Stop::Drained`, `Interrupted` loops, anything \
               else is returned with `?`-style `return Err(err)`.",
    },
    Exercise {
        name: "ch04_outbox",
        title: "a partial-write backlog that never reorders bytes",
        hint: "Write a helper `write_some(socket, data) -> io::Result<usize>` that returns the \
               bytes written, 0 on WouldBlock, retries Interrupted and returns other errors. \
               `send`: only if the queue is empty, call it in a loop until all is written or \
               it returns 0; then `queue.extend(&data[written..])`. `flush`: while the queue is \
               not empty, write `queue.as_slices().0`; on 0 return Ok(false); otherwise \
               `queue.drain(..n)`. Return Ok(true) when empty.",
    },
    Exercise {
        name: "ch04_interest",
        title: "the interest set from a connection's state, with back-pressure hysteresis",
        hint: "`decide`: first the Close case (`peer_closed && backlog == 0`); otherwise \
               `Watch { readable: !peer_closed && reading, writable: backlog > 0 }`. \
               `update_reading`: three cases in order: `backlog >= HIGH` -> false, \
               `backlog < LOW` -> true, otherwise `was_reading`.",
    },
    Exercise {
        name: "ch04_accept_all",
        title: "accept until WouldBlock; pause when out of descriptors, skip one bad connection",
        hint: "One `loop` and one `match` on `listener.accept()`, with guards in the order of \
               the doc comment: `err.kind()` for `WouldBlock`, `ConnectionAborted` and \
               `Interrupted`; `err.raw_os_error()` with `matches!(.., Some(libc::EMFILE | ..))` \
               for the raw errno values. Only the stops `return`; a skipped error just lets \
               the loop go round again.",
    },
    Exercise {
        name: "ch05_timer_heap",
        title: "timers in a binary heap with lazy cancellation",
        hint: "Fields: `heap: BinaryHeap<Reverse<(Instant, TimerId)>>`, `live: HashSet<TimerId>` \
               and `next_id: TimerId`. Ids only grow, so (deadline, id) orders ties by \
               insertion. `cancel` is `live.remove(&id)`. Before peeking, pop entries from \
               the top whose id is not in `live` (a small `skip_dead` helper). \
               `pop_expired` peeks, returns None if the deadline is after `now`, else pops \
               and removes the id from `live`.",
    },
    Exercise {
        name: "ch05_slab",
        title: "a slab whose keys carry a generation, so stale keys find nothing",
        hint: "Keep `slots: Vec<Slot<T>>` where `Slot { generation: u32, value: Option<T> }`, \
               plus `free: Vec<usize>` and a `len`. insert: pop a free index and put the \
               value in (its generation is already the new one), or push a new slot with \
               generation 0. remove: check the index exists and the generations match, \
               `take()` the value, then bump the slot's generation (`wrapping_add(1)`) and \
               push the index on the free list. get: same checks, `as_ref()`.",
    },
    Exercise {
        name: "ch05_poll_timeout",
        title: "the poll timeout from the next deadline, rounded up to milliseconds",
        hint: "poll_timeout: queued ticks mean `Some(Duration::ZERO)`; otherwise map the \
               deadline with `deadline.saturating_duration_since(now)` (which is zero for a \
               deadline in the past). epoll_timeout_ms: None is -1; otherwise \
               `timeout.as_nanos().div_ceil(1_000_000)`, capped with `.min(i32::MAX as u128)` \
               before the `as i32`.",
    },
    Exercise {
        name: "ch05_next_tick",
        title: "next-tick callbacks: only those queued before the turn run, then the wait",
        hint: "Count before you run: the ticks queued when the turn begins are the ones this \
               turn runs. Pop each from the front before calling it (it needs `&mut self`, and \
               may push more behind the ones you counted). Decide the timeout only after they \
               have run, from whether the queue is empty then. Beware `while let Some(tick) = \
               pop_front()`: a tick that queues itself would keep that loop going for ever.",
    },
    Exercise {
        name: "ch06_join",
        title: "a hand-written Join of two futures",
        hint: "Keep each future as `Option<Pin<Box<_>>>` and each output as `Option<_>`. In \
               `poll`, take `let this = self.get_mut();` (Join is Unpin because the futures are \
               boxed). For each side: if the future is still there, poll it with \
               `f.as_mut().poll(cx)`; on Ready store the output and set the future to None so \
               it is never polled again. When both outputs are Some, take them and return \
               Ready((a, b)); otherwise Pending.",
    },
    Exercise {
        name: "ch06_timeout",
        title: "a Timeout future racing work against a deadline",
        hint: "`poll(mut self: Pin<&mut Self>, cx)`: first \
               `if let Poll::Ready(out) = self.work.as_mut().poll(cx) { return \
               Poll::Ready(Ok(out)) }`, then match `self.deadline.as_mut().poll(cx)`: Ready \
               means `Err(Elapsed)`, Pending means Pending. Work first, so work that finishes \
               on the deadline is kept.",
    },
    Exercise {
        name: "ch06_counting_waker",
        title: "a waker that counts wake-ups, vtable written by hand",
        hint: "`static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, \
               drop)` with four `unsafe fn(*const ())`. The data pointer is \
               `Arc::into_raw(counter).cast::<()>()`. clone: \
               `Arc::increment_strong_count` and return `RawWaker::new(data, &VTABLE)`. wake: \
               `Arc::from_raw` (takes the waker's reference back; it is dropped at the end), \
               then add 1. wake_by_ref: `&*data.cast::<AtomicUsize>()`, add 1, no count \
               change. drop: `Arc::decrement_strong_count`. Finally \
               `unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }`.",
    },
    Exercise {
        name: "ch06_state_machine",
        title: "the state machine the compiler builds for a two-await async fn",
        hint: "Start with `let this = self.get_mut();` and `loop { match this { .. } }`. In \
               AwaitingA, poll `a`; if Pending return Pending; if Ready(x), move `b` out with \
               `std::mem::replace(this, AddBoth::Done)` (a let-else on the old value gives \
               you b), then set `*this = AddBoth::AwaitingB { x, b }` and let the loop go \
               round. In AwaitingB, poll b; on Ready(y) set Done and return Ready(x + y). \
               Done panics with a message saying it was polled after completion.",
    },
    Exercise {
        name: "ch06_scheduled_flag",
        title: "find the lost wake-up in a waker's scheduled flag (a loom model)",
        hint: "Read `run` as a waker on another thread sees it. After `poll` has looked at \
               the future and before the flag is cleared, a wake swaps the flag, finds it \
               still set and queues nothing; then the flag is cleared and nobody polls the \
               task again. So when must the flag be clear? Once that is right, loom may \
               still fail: a plain store, even a Release one, may become visible after the \
               poll's reads (store buffering), so the poll reads stale state while the \
               waker still sees the flag set. Which kind of atomic operation always reads the \
               latest value of the flag, and can acquire what the waker wrote?",
    },
    Exercise {
        name: "ch07_wake_while_running",
        title: "the state-word transitions that make a wake during a poll safe",
        hint: "Both are `let mut current = state.load(Acquire); loop { ..decide next.. ; match \
               state.compare_exchange_weak(current, next, AcqRel, Acquire) { Ok(_) => return \
               action, Err(actual) => current = actual } }`. In wake_by_ref, return DoNothing \
               at once when `current & (COMPLETE | NOTIFIED) != 0`; when RUNNING, next is \
               `current | NOTIFIED`; when idle, `(current | NOTIFIED) + REF_ONE` and Submit. In \
               after_pending, next starts as `current & !RUNNING`; if NOTIFIED is set, Requeue \
               with the count unchanged, else subtract REF_ONE and check `next / REF_ONE == 0`.",
    },
    Exercise {
        name: "ch07_steal_half",
        title: "steal half of a ring (rounded up) into another, positions wrapping",
        hint: "Refuse when `thief.len() > CAPACITY / 2`. Let n = len - len / 2; if n is 0 \
               return None. Then `self.pop()` n - 1 times, pushing each into the thief (it \
               cannot be full: it had at most half a ring and n is at most half), and return \
               one more `self.pop()`. push and pop already wrap, so reusing them keeps you \
               safe near u32::MAX.",
    },
    Exercise {
        name: "ch07_lifo_slot",
        title: "the LIFO slot's policy: run the newest task next, at most three in a row",
        hint: "schedule: if `is_yield || self.lifo_disabled`, push_back to the ring; else \
               `if let Some(previous) = self.lifo.replace(task) { self.ring.push_back(previous) }`. \
               next: `if let Some(task) = self.lifo.take()` then count it, disable at \
               MAX_LIFO_POLLS, return (task, true); else pop_front the ring (`?` for None), \
               reset the count to 0, re-enable, return (task, false).",
    },
    Exercise {
        name: "ch07_wheel_slot",
        title: "the level and slot of a timer in a 6 x 64 timing wheel",
        hint: "Level: `let differing = (now ^ deadline) | 63;` then the highest set bit is \
               `63 - differing.leading_zeros()`; divide it by 6 (and cap at LEVELS - 1). Slot: \
               `(deadline >> (6 * level)) % 64`. For slot_start, a slot is `1 << (6 * level)` \
               ms wide and the level's turn 64 times that; clear now's bits below the turn \
               with `now & !(turn - 1)` and add `slot * width`.",
    },
    Exercise {
        name: "ch07_clear_readiness",
        title: "set and clear socket readiness with a tick, so no edge is lost",
        hint: "Both are `let mut current = word.load(Acquire); loop { ...; match \
               word.compare_exchange_weak(current, next, AcqRel, Acquire) { Ok(_) => return, \
               Err(actual) => current = actual } }`. set: next = `(u64::from(tick) << 16) | \
               u64::from(current as u16 | ready)`. clear: first `if (current >> 16) as u16 != \
               seen.tick { return; }` (a new edge came), then next = `current & \
               !u64::from(seen.ready)`.",
    },
    Exercise {
        name: "ch07_budget",
        title: "a wrapper future that spends the cooperative budget",
        hint: "Read `let before = budget_left();`. On `Some(0)`: `cx.waker().wake_by_ref()` and \
               return Pending without polling. On `Some(n)`: `set_budget(Some(n - 1))`. Then \
               poll `Pin::new(&mut self.inner)`; if the result is Pending, `set_budget(before)` \
               to give the unit back. Return the result.",
    },
    Exercise {
        name: "ch07_counter",
        title: "a single-writer counter and cache-line-aligned per-worker counters",
        hint: "incr: `self.0.store(self.0.load(Ordering::Relaxed) + 1, Ordering::Relaxed)`; get: \
               `self.0.load(Ordering::Relaxed)`. For the alignment, put `#[repr(align(128))]` on \
               `WorkerCounters` (under the derive).",
    },
    Exercise {
        name: "ch07_long_poll",
        title: "time one poll and report it if it took too long",
        hint: "`let start = Instant::now(); let result = Pin::new(&mut self.inner).poll(cx); let \
               duration = start.elapsed();` then, if `duration >= self.threshold`, push a \
               `LongPoll { task: self.name.clone(), duration }` to `self.reports.lock().unwrap()`. \
               Return `result`.",
    },
    Exercise {
        name: "ch07_join_waker",
        title: "find the lost wake-up in a JoinHandle's hand-over (a loom model)",
        hint: "Two orders matter. Once JOIN_WAKER is set, `complete` may take the waker from \
               the slot at any moment: what must already be there? And the load of COMPLETE \
               at the top is stale by the time the bit is set: the task may complete in \
               between, see no JOIN_WAKER and wake nobody, while the handle goes on to \
               return Pending. The read-modify-write that sets the bit also tells you what \
               the word held just before; what must the handle do if COMPLETE was in it?",
    },
    Exercise {
        name: "ch07_park_token",
        title: "find the lost wake-ups in a worker's parker (a loom model)",
        hint: "Two questions. What does `unpark` leave behind when the owner is not parked \
               yet (EMPTY)? A wake must be a state that the next `park` finds, not an event \
               that only a waiting thread can see. And when the owner is PARKED: it set \
               PARKED holding the mutex, and lets the mutex go only inside `wait`. What \
               becomes of a `notify_one` sent between those two moments, and what could make \
               the unparker wait until the owner really waits?",
    },
    Exercise {
        name: "ch08_rotating_join",
        title: "a join of two futures that takes turns at being polled first",
        hint: "Write a helper `poll_side(future: &mut Option<Pin<Box<F>>>, out: &mut \
               Option<F::Output>, cx)`: `if let Some(f) = future` and `f.as_mut().poll(cx)` is \
               Ready(v), set `*out = Some(v)` and `*future = None`. In `poll`, `let this = \
               self.get_mut();`, call it for a then b when `this.a_first`, else b then a; then \
               `this.a_first = !this.a_first`. If both outputs are Some, `take()` them and \
               return Ready((a, b)); otherwise Pending.",
    },
    Exercise {
        name: "ch08_select_two",
        title: "race two futures, report the winner and drop the loser at once",
        hint: "`let this = self.get_mut();` then `let (Some(a), Some(b)) = (this.a.as_mut(), \
               this.b.as_mut()) else { panic!(\"polled after completion\") };`. If \
               `Pin::new(a).poll(cx)` is Ready(out): set `this.a = None; this.b = None;` and \
               return Ready(Either::Left(out)). Then the same for b with Right. Otherwise \
               Pending.",
    },
    Exercise {
        name: "ch08_paused_timeout",
        title: "run a one-hour timeout on a paused runtime clock in no time",
        hint: "`let runtime = rt::runtime::Builder::new_current_thread().start_paused(true)\
               .build().unwrap();` then `runtime.block_on(async move { let start = \
               Instant::now(); let result = rt::time::timeout(limit, make()).await; (result, \
               start.elapsed()) })`. `Instant` is `rt::time::Instant`: the runtime's clock, \
               which auto-advance moves to the timer's deadline when nothing else can run.",
    },
    Exercise {
        name: "ch08_counting_semaphore",
        title: "a fair counting semaphore whose cancelled acquire gives back what it got",
        hint: "hand_out: `let mut left = n;` and `while let Some(front) = \
               self.queue.front_mut()`: stop when left is 0; give `left.min(front.wanted - \
               front.assigned)`; when the front has all it wanted, `pop_front` it, insert its \
               id in `granted` and keep its waker. Finally `self.available += left`. poll: on \
               the first poll take `available.min(wanted)`; Ready if that is all, else \
               push_back a Waiter. Later: `granted.remove(&id)` means Ready. drop: give back \
               `wanted` if granted, the entry's `assigned` if still queued (`position` then \
               `remove`), via `hand_out`; wake after the guard is dropped.",
    },
    Exercise {
        name: "ch08_notify_permit",
        title: "Notify's stored permit, so a notification before the wait is not lost",
        hint: "notify_one: `match state.waiters.pop_front() { Some((id, waker)) => { \
               state.notified.insert(id); drop(state); waker.wake(); } None => state.permit = \
               true }`. poll: with `self.id` None, if `state.permit` set it false and return \
               Ready; else push_back `(next_id, cx.waker().clone())`, bump next_id, remember \
               the id, Pending. With Some(id): `state.notified.remove(&id)` means Ready; else \
               find its entry and `clone_from` the new waker, Pending.",
    },
    Exercise {
        name: "ch08_joinset_fail_fast",
        title: "run work on a JoinSet: every output, or the first error with the rest aborted",
        hint: "Keep `outputs: Vec<Option<T>>`, one None per piece, and `set.spawn(async move \
               { (index, future.await) })` for each. `while let Some(joined) = \
               set.join_next().await`: `Err(e)` is a panic, `resume_unwind(e.into_panic())`; \
               `Ok((i, Ok(v)))` sets `outputs[i] = Some(v)`; `Ok((_, Err(e)))`: \
               `set.shutdown().await` (abort all, wait for them) and `return Err(e)`. At the \
               end, unwrap every output.",
    },
    Exercise {
        name: "ch09_hyper_read",
        title: "hyper's Read for a stream, given its AsyncRead: fill the cursor by exactly what arrived",
        hint: "`let len = buf.remaining().min(64 * 1024); let dst = \
               buf.initialize_unfilled_to(len);` gives you initialized room inside hyper's \
               buffer. `let n = std::task::ready!(Pin::new(&mut self.0).poll_read(cx, dst))?;` \
               returns early on Pending and on an error, before anything is marked. If `n > \
               len`, return `Err(io::Error::new(io::ErrorKind::InvalidData, ...))`; otherwise \
               `unsafe { buf.advance(n) }` (those bytes were initialized, then written) and \
               `Poll::Ready(Ok(()))`. `n == 0` needs nothing special: nothing filled is how \
               hyper sees the end. (Safe instead: read into `&mut mine[..len]` of a \
               `[u8; 8192]`, with `len = buf.remaining().min(8192)`, then \
               `buf.put_slice(&mine[..n])`.)",
    },
    Exercise {
        name: "ch09_hyper_write",
        title: "hyper's Write for a stream, given its AsyncWrite: pass every call on, and promise vectored writes only when they are real",
        hint: "Each method is `Pin::new(&mut self.stream)` and the matching `AsyncWrite` \
               method; hyper's `poll_shutdown` is `poll_close`. For the two writes, take the \
               count with `let n = std::task::ready!(...)?;` (that returns early on Pending and \
               on an error), then compare it with what you offered: `buf.len()`, or the sum of \
               `bufs`' lengths (`bufs.iter().map(|b| b.len()).sum()`). More than that is \
               `io::ErrorKind::InvalidData`; otherwise `Poll::Ready(Ok(n))`. A small helper \
               taking `(n, offered)` serves both. `is_write_vectored` reads the field.",
    },
    Exercise {
        name: "ch09_rt_timer",
        title: "hyper's Timer on rt's wheel: sleeps, a clock that may be paused, and a reset that moves the timer in place",
        hint: "`poll` forwards to `Pin::new(&mut self.0)`. `sleep` and `sleep_until` box and pin \
               an `RtSleep` around `rt::time::sleep` / `rt::time::sleep_until` (a std `Instant` \
               converts with `.into()`). `now` is not `std::time::Instant::now()`: read \
               `rt::time::Instant::now()` and convert it back. In `reset`, ask \
               `sleep.as_mut().downcast_mut_pin::<RtSleep>()`: `Some` gives you your own sleep, \
               pinned, whose inner `rt::time::Sleep` has a `reset`; `None` means another \
               timer's, so assign `*sleep` a new one from `self.sleep_until`.",
    },
    Exercise {
        name: "ch09_graceful",
        title: "stop an HTTP server gracefully: refuse new connections, finish the requests in flight",
        hint: "Loop on `futures::future::select` of `pin!(listener.accept())` and \
               `pin!(shutdown.wait_for(|&stop| stop))`, matched in the same statement so the \
               guard and the borrow of `shutdown` end there. The right side winning, `Ok` or \
               `Err`, means stop. For each stream, count it, clone the service and the \
               receiver, and `spawn` on a `JoinSet` a task that pins the connection and \
               selects it against its own `wait_for`; if the signal won, call \
               `graceful_shutdown()` on `connection.as_mut()` and then await the connection. \
               After the loop: `drop(listener)` first, then `join_next` until the set is empty.",
    },
    Exercise {
        name: "ch10_sqe_batch",
        title: "many reads, one io_uring_enter: queue them all, place each completion by its tag",
        hint: "Queue with `for (tag, &fd) in fds.iter().enumerate()`, and `while \
               !ring.queue_read(fd, len, tag as u64) { ring.enter(0)?; }`. Keep `results: \
               Vec<Option<io::Result<Vec<u8>>>>`, all `None`, and a count of the missing. Loop: \
               `while let Some((tag, result)) = ring.next_completion()`, find \
               `results.get_mut(tag as usize)` and require it to be `Some(None)` (else \
               InvalidData), store, count down; when none is missing return the results \
               flattened; otherwise `ring.enter(missing)?` and go round.",
    },
    Exercise {
        name: "ch10_owned_read",
        title: "the read future that owns its buffer: submit on the first poll, give the buffer back with the result",
        hint: "`let this = self.get_mut();` (the future is Unpin). Borrow the ring once. Take \
               `this.buf.as_mut()` and panic if it is `None` (polled after Ready). If \
               `this.user_data` is `None`, submit with the buffer's `as_mut_ptr()` and \
               `room()`, store the tag and return Pending. Otherwise \
               `ring.poll_completion(tag, cx.waker())`: `None` is Pending; `Some(r)`: take the \
               buffer; `r < 0` gives `io::Error::from_raw_os_error(-r)`; else `unsafe { \
               buf.set_filled(r as usize) }` and `Ok(r as usize)`.",
    },
    Exercise {
        name: "ch10_cancel_park",
        title: "drop a read in flight without freeing its buffer: park it until the completion",
        hint: "Drop: `if let (Some(tag), Some(buf)) = (self.user_data, self.buf.take())`, call \
               `self.ring.borrow_mut().park(tag, Box::new(buf))`. park: match \
               `self.slots.get(&tag)`: `Waiting` -> insert `Slot::Parked(buf)`; anything else \
               -> remove the slot and let `buf` drop. complete: match \
               `self.slots.remove(&tag)`: `Waiting(waker)` -> insert `Done(result)` and wake; \
               `Parked(buf)` -> drop it (the slot stays removed).",
    },
    Exercise {
        name: "ch10_short_write",
        title: "the completion write loop: resubmit from where a short write stopped, buffer always returned",
        hint: "`let mut offset = 0; while offset < buf.len() { let (result, back) = \
               writer.write_at(buf, offset).await; buf = back; match result { ... } }`, with \
               `Ok(0)` returning `io::ErrorKind::WriteZero.into()`, `Ok(n)` adding to the \
               offset, `Interrupted` going round, and any other error returned with the \
               buffer. Make the parameter `mut buf`.",
    },
];

/// The exercise called `name`.
pub fn find(name: &str) -> Option<&'static Exercise> {
    EXERCISES.iter().find(|e| e.name == name)
}
