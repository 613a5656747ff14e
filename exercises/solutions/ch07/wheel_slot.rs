//! Reference solution for ch07_wheel_slot.

/// Levels in the wheel.
pub const LEVELS: u32 = 6;
/// Slots per level.
pub const SLOTS: u64 = 64;

/// The level and slot of a timer for `deadline` when the time is `now`.
pub fn level_and_slot(now: u64, deadline: u64) -> (u32, u64) {
    let differing = (now ^ deadline) | (SLOTS - 1);
    let highest = 63 - differing.leading_zeros();
    let level = (highest / 6).min(LEVELS - 1);
    (level, (deadline >> (6 * level)) % SLOTS)
}

/// When slot `slot` of level `level` starts, in the level's turn containing `now`.
pub fn slot_start(now: u64, level: u32, slot: u64) -> u64 {
    let slot_width = 1u64 << (6 * level);
    let turn = slot_width * SLOTS;
    (now & !(turn - 1)) + slot * slot_width
}
