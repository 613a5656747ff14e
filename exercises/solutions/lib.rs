//! Every reference solution, listed in one place for mutation testing.
//!
//! `cargo run -p exercises -- mutants` checks that each exercise's tests
//! reject slightly wrong solutions: cargo-mutants changes one thing in a
//! reference solution (`<` for `<=`, `+` for `-`, a body replaced by
//! `Default::default()`), runs that exercise's tests, and counts the change
//! as *caught* if a test fails. cargo-mutants finds the files to change by
//! following the `mod` items of a package's library and binaries; the
//! solutions are otherwise reached only from the test files (through their
//! `#[path]` attributes, which depend on the `solutions` feature), so this
//! library names each one with a plain `#[path]`.
//!
//! The library is never compiled (`cfg(any())` is never true): each solution
//! is built and tested by its own test target, as in `verify`, and nothing
//! here is code anyone calls. `src/mutants.rs` drives the tool. (It lives
//! beside the solutions so that cargo-mutants names them by their own
//! paths, `exercises/solutions/chNN/topic.rs`.)
#![cfg(any())]

#[path = "ch01/echo_loop.rs"]
mod ch01_echo_loop;
#[path = "ch01/fork_wait.rs"]
mod ch01_fork_wait;
#[path = "ch01/proc_status.rs"]
mod ch01_proc_status;
#[path = "ch01/thread_pool.rs"]
mod ch01_thread_pool;
#[path = "ch02/green_yield.rs"]
mod ch02_green_yield;
#[path = "ch02/pin.rs"]
mod ch02_pin;
#[path = "ch02/sattolo.rs"]
mod ch02_sattolo;
#[path = "ch02/switch_cost.rs"]
mod ch02_switch_cost;
#[path = "ch03/conn_cap.rs"]
mod ch03_conn_cap;
#[path = "ch03/histogram.rs"]
mod ch03_histogram;
#[path = "ch03/source_plan.rs"]
mod ch03_source_plan;
#[path = "ch03/verify_echo.rs"]
mod ch03_verify_echo;
#[path = "ch04/accept_all.rs"]
mod ch04_accept_all;
#[path = "ch04/drain.rs"]
mod ch04_drain;
#[path = "ch04/interest.rs"]
mod ch04_interest;
#[path = "ch04/outbox.rs"]
mod ch04_outbox;
#[path = "ch05/next_tick.rs"]
mod ch05_next_tick;
#[path = "ch05/poll_timeout.rs"]
mod ch05_poll_timeout;
#[path = "ch05/slab.rs"]
mod ch05_slab;
#[path = "ch05/timer_heap.rs"]
mod ch05_timer_heap;
#[path = "ch06/counting_waker.rs"]
mod ch06_counting_waker;
#[path = "ch06/join.rs"]
mod ch06_join;
#[path = "ch06/scheduled_flag.rs"]
mod ch06_scheduled_flag;
#[path = "ch06/state_machine.rs"]
mod ch06_state_machine;
#[path = "ch06/timeout.rs"]
mod ch06_timeout;
#[path = "ch07/budget.rs"]
mod ch07_budget;
#[path = "ch07/clear_readiness.rs"]
mod ch07_clear_readiness;
#[path = "ch07/counter.rs"]
mod ch07_counter;
#[path = "ch07/join_waker.rs"]
mod ch07_join_waker;
#[path = "ch07/lifo_slot.rs"]
mod ch07_lifo_slot;
#[path = "ch07/long_poll.rs"]
mod ch07_long_poll;
#[path = "ch07/park_token.rs"]
mod ch07_park_token;
#[path = "ch07/steal_half.rs"]
mod ch07_steal_half;
#[path = "ch07/wake_while_running.rs"]
mod ch07_wake_while_running;
#[path = "ch07/wheel_slot.rs"]
mod ch07_wheel_slot;
#[path = "ch08/counting_semaphore.rs"]
mod ch08_counting_semaphore;
#[path = "ch08/joinset_fail_fast.rs"]
mod ch08_joinset_fail_fast;
#[path = "ch08/notify_permit.rs"]
mod ch08_notify_permit;
#[path = "ch08/paused_timeout.rs"]
mod ch08_paused_timeout;
#[path = "ch08/rotating_join.rs"]
mod ch08_rotating_join;
#[path = "ch08/select_two.rs"]
mod ch08_select_two;
#[path = "ch09/graceful.rs"]
mod ch09_graceful;
#[path = "ch09/hyper_read.rs"]
mod ch09_hyper_read;
#[path = "ch09/hyper_write.rs"]
mod ch09_hyper_write;
#[path = "ch09/rt_timer.rs"]
mod ch09_rt_timer;
#[path = "ch10/cancel_park.rs"]
mod ch10_cancel_park;
#[path = "ch10/owned_read.rs"]
mod ch10_owned_read;
#[path = "ch10/short_write.rs"]
mod ch10_short_write;
#[path = "ch10/sqe_batch.rs"]
mod ch10_sqe_batch;
