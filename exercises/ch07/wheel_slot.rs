//! Exercise ch07_wheel_slot: where a timer goes in the timing wheel.
//!
//! The wheel (Chapter 7, "The timing wheel") has 6 levels of 64 slots.
//! Times are milliseconds. Level `n` has slots `64^n` ms wide, so level 0
//! covers one millisecond per slot, level 1 64 ms per slot, and so on.
//!
//! A timer for `deadline` when the wheel's time is `now` (with
//! `now < deadline < now | (2^36 - 1)`, i.e. within the current turn of the
//! top level) goes to:
//!
//! * level: the index of the highest bit in which `now` and `deadline`
//!   differ, divided by 6, where differences in the lowest 6 bits count as
//!   bit 5 (anything in the same 64 ms block as `now` is level 0);
//! * slot: the 6 bits of `deadline` that belong to that level:
//!   `(deadline >> (6 * level)) % 64`.
//!
//! Write [`level_and_slot`], and [`slot_start`]: the millisecond at which
//! slot `slot` of level `level` begins in the turn of that level that
//! contains `now` (the level's turn is `64^(level+1)` ms long and starts at
//! `now` with its low `6 * (level + 1)` bits cleared).
//!
//! Check: `cargo run -p exercises -- check ch07_wheel_slot`. Hint:
//! `cargo run -p exercises -- hint ch07_wheel_slot`.

/// Levels in the wheel.
pub const LEVELS: u32 = 6;
/// Slots per level.
pub const SLOTS: u64 = 64;

/// The level and slot of a timer for `deadline` when the time is `now`.
pub fn level_and_slot(now: u64, deadline: u64) -> (u32, u64) {
    todo!(
        "the highest differing bit (at least bit 5) / 6, then the deadline's 6 bits at that level"
    )
}

/// When slot `slot` of level `level` starts, in the level's turn containing `now`.
pub fn slot_start(now: u64, level: u32, slot: u64) -> u64 {
    todo!("clear now's low 6*(level+1) bits, add slot * 64^level")
}
