//! Registrations that cannot be confused after reuse: a slab with
//! generations.
//!
//! The event loop hands the kernel a number with every registration (mio's
//! `Token`) and gets it back with every event. Chapter 4 used the slot index
//! and reused a freed slot only after the current batch of events. That
//! closes one hole but not all of them: a timer or a callback can hold a
//! connection's id long after the connection closed, and by then its slot
//! may hold a different connection. Every slot therefore carries a
//! *generation*, bumped each time the slot is freed, and an id is the pair
//! (index, generation). An id whose generation no longer matches refers to
//! something that is gone, and every lookup with it simply finds nothing.
//!
//! The pair packs into one `usize` for mio's `Token`: index in the low 32
//! bits, generation in the high 32 (on 64-bit targets).
//!
//! Book: Chapter 5, "Tokens that cannot lie".

// A key packs into a `usize` token: index and generation need 64 bits.
const _: () = assert!(usize::BITS >= 64, "tokens pack two u32s into a usize");

/// An id into a [`Slab`]: where, and which occupant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    index: u32,
    generation: u32,
}

impl Key {
    /// Packs the key into a mio token value.
    pub fn to_usize(self) -> usize {
        ((self.generation as u64) << 32 | self.index as u64) as usize
    }

    /// Unpacks a token value made by [`Key::to_usize`].
    pub fn from_usize(value: usize) -> Key {
        let value = value as u64;
        Key {
            index: value as u32,
            generation: (value >> 32) as u32,
        }
    }

    /// The slot index.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

#[derive(Debug)]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Values stored by key; freed slots are reused with a new generation.
#[derive(Debug)]
pub struct Slab<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    len: usize,
}

impl<T> Default for Slab<T> {
    fn default() -> Slab<T> {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Slab<T> {
    /// An empty slab.
    pub fn new() -> Slab<T> {
        Slab::default()
    }

    /// The key the next [`Slab::insert`] will return (to register a
    /// source with the kernel before storing it).
    pub fn next_key(&self) -> Key {
        match self.free.last() {
            Some(&index) => Key {
                index,
                generation: self.slots[index as usize].generation,
            },
            None => Key {
                index: self.slots.len() as u32,
                generation: 0,
            },
        }
    }

    // ANCHOR: insert
    /// Stores `value` and returns its key.
    pub fn insert(&mut self, value: T) -> Key {
        self.len += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.value = Some(value);
            return Key {
                index,
                generation: slot.generation,
            };
        }
        let index = u32::try_from(self.slots.len()).expect("fewer than 2^32 registrations");
        self.slots.push(Slot {
            generation: 0,
            value: Some(value),
        });
        Key {
            index,
            generation: 0,
        }
    }

    /// Removes and returns the value of `key`, if it is still there. The
    /// slot's generation moves on, so `key` (and every copy of it) is dead.
    pub fn remove(&mut self, key: Key) -> Option<T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        let value = slot.value.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(key.index);
        self.len -= 1;
        Some(value)
    }

    /// The value of `key`, if it is still there.
    pub fn get_mut(&mut self, key: Key) -> Option<&mut T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        slot.value.as_mut()
    }
    // ANCHOR_END: insert

    /// The value of `key`, if it is still there.
    pub fn get(&self, key: Key) -> Option<&T> {
        let slot = self.slots.get(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        slot.value.as_ref()
    }

    /// Whether `key` still refers to a value.
    pub fn contains(&self, key: Key) -> bool {
        self.get(key).is_some()
    }

    /// Values stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every live key.
    pub fn keys(&self) -> Vec<Key> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.value.is_some())
            .map(|(i, s)| Key {
                index: i as u32,
                generation: s.generation,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_key_finds_nothing_even_after_reuse() {
        let mut slab = Slab::new();
        let old = slab.insert("first connection");
        assert_eq!(slab.remove(old), Some("first connection"));
        let new = slab.insert("second connection");
        assert_eq!(new.index(), old.index(), "the slot is reused");
        assert_ne!(new, old);
        assert_eq!(slab.get(old), None);
        assert_eq!(slab.remove(old), None);
        assert_eq!(slab.get(new), Some(&"second connection"));
        assert_eq!(slab.len(), 1);
    }

    #[test]
    fn next_key_predicts_insert() {
        let mut slab = Slab::new();
        let a = slab.insert(1);
        slab.insert(2);
        slab.remove(a);
        let predicted = slab.next_key();
        assert_eq!(slab.insert(3), predicted);
        let predicted = slab.next_key();
        assert_eq!(slab.insert(4), predicted);
    }

    #[test]
    fn keys_survive_the_trip_through_a_token() {
        let mut slab = Slab::new();
        for _ in 0..5 {
            let key = slab.insert(());
            slab.remove(key);
        }
        let key = slab.insert(());
        assert_eq!(Key::from_usize(key.to_usize()), key);
        assert_eq!(key.generation, 5);
    }
}
