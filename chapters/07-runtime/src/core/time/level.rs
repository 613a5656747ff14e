//! One level of the timing wheel: 64 slots, each the head of a list of
//! timers, and a 64-bit map of which slots are occupied.
//!
//! Level `n` covers `64^(n+1)` milliseconds in slots of `64^n` ms each: level
//! 0 has one slot per millisecond for the next 64 ms, level 1 one slot per
//! 64 ms for the next 4.1 s, and so on up to level 5 (slots of 12.4 days,
//! 2.2 years in all). Finding the next occupied slot is a rotate and a
//! count of trailing zeros on the bitmap: one instruction each, however many
//! timers there are.
//!
//! Book: Chapter 7, "The timing wheel".

/// Slots per level.
pub(crate) const SLOTS: usize = 64;
/// Bits of a deadline that pick the slot within a level.
pub(crate) const SLOT_BITS: u32 = 6;
/// "No entry" in the intrusive lists.
pub(crate) const NIL: u32 = u32::MAX;

/// The slot a deadline falls in at level `level`: its six bits there.
pub(crate) fn slot_for(level: u32, deadline: u64) -> usize {
    ((deadline >> (SLOT_BITS * level)) as usize) % SLOTS
}

/// One level of the wheel.
pub(crate) struct Level {
    /// Which level this is (0 = milliseconds).
    pub(crate) level: u32,
    /// Bit `s` set: slot `s` holds at least one timer.
    pub(crate) occupied: u64,
    /// The first entry of each slot's list (an index into the wheel's
    /// entries), or NIL.
    pub(crate) heads: [u32; SLOTS],
}

/// When the next occupied slot of a level comes due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Expiration {
    /// The level.
    pub(crate) level: u32,
    /// The slot within it.
    pub(crate) slot: usize,
    /// The millisecond at which the slot starts.
    pub(crate) deadline: u64,
}

impl Level {
    pub(crate) fn new(level: u32) -> Level {
        Level {
            level,
            occupied: 0,
            heads: [NIL; SLOTS],
        }
    }

    /// Milliseconds covered by one slot of this level.
    pub(crate) fn slot_range(&self) -> u64 {
        1 << (SLOT_BITS * self.level)
    }

    /// Milliseconds covered by the whole level.
    pub(crate) fn level_range(&self) -> u64 {
        self.slot_range() << SLOT_BITS
    }

    /// The slot a deadline falls in, at this level.
    pub(crate) fn slot_for(&self, deadline: u64) -> usize {
        slot_for(self.level, deadline)
    }

    /// The next occupied slot at or after `now`, and when it starts.
    // ANCHOR: next_expiration
    pub(crate) fn next_expiration(&self, now: u64) -> Option<Expiration> {
        if self.occupied == 0 {
            return None;
        }
        let now_slot = self.slot_for(now);
        // Rotate so that the current slot is bit 0; the first set bit is the
        // next occupied slot, counting forward with wrap-around.
        let distance = self.occupied.rotate_right(now_slot as u32).trailing_zeros() as usize;
        let slot = (now_slot + distance) % SLOTS;
        let level_start = now & !(self.level_range() - 1);
        let mut deadline = level_start + slot as u64 * self.slot_range();
        if slot < now_slot {
            // Behind the current slot: the level's next turn. (The wheel
            // links every timer within the current turn of its level, so
            // this is a safety net, not a path it takes.)
            deadline += self.level_range();
        }
        Some(Expiration {
            level: self.level,
            slot,
            deadline,
        })
    }
    // ANCHOR_END: next_expiration
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(Level::new(0).slot_range(), 1);
        assert_eq!(Level::new(0).level_range(), 64);
        assert_eq!(Level::new(1).slot_range(), 64);
        assert_eq!(Level::new(1).level_range(), 4096);
        // Level 5: slots of 2^30 ms (12.4 days), 2^36 ms in all (2.2 years).
        assert_eq!(Level::new(5).level_range(), 1 << 36);
    }

    #[test]
    fn the_next_occupied_slot_wraps_around() {
        let mut level = Level::new(0);
        level.occupied = 1 << 3;
        // At ms 10, slot 3 is next in the following turn: ms 64 + 3.
        assert_eq!(level.next_expiration(10).unwrap().deadline, 67);
        level.occupied |= 1 << 20;
        assert_eq!(level.next_expiration(10).unwrap().deadline, 20);
        let mut level1 = Level::new(1);
        level1.occupied = 1 << 2;
        // At ms 100 (level-1 slot 1), slot 2 starts at 128.
        assert_eq!(level1.next_expiration(100).unwrap().deadline, 128);
    }
}
