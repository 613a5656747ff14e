//! Exercise ch05_slab: registrations that cannot be confused after reuse.
//!
//! The event loop identifies each registered socket by a number the kernel
//! gives back with every event. Reusing numbers is necessary (or the table
//! grows forever) and dangerous: an event, a timer or a callback holding the
//! number of a closed connection would act on whatever connection took its
//! slot. The cure is a *generation* per slot, bumped whenever the slot is
//! freed: a [`Key`] names a slot *and* a generation, and a key whose
//! generation is old finds nothing.
//!
//! Write [`Slab`]:
//!
//! * [`Slab::insert`]: store a value, reusing a freed slot if there is one
//!   (any freed slot will do), and return its key;
//! * [`Slab::remove`]: take the value out if the key is current, and make
//!   the key (and every copy of it) stale;
//! * [`Slab::get`]: the value, if the key is current;
//! * [`Slab::len`]: how many values are stored.
//!
//! Check: `cargo run -p exercises -- check ch05_slab`. Hint:
//! `cargo run -p exercises -- hint ch05_slab`.

/// Which slot, and which of its occupants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// The slot.
    pub index: usize,
    /// The occupant: bumped each time the slot is freed.
    pub generation: u32,
}

/// Values by key, with slots reused safely.
#[derive(Debug)]
pub struct Slab<T> {
    // Your fields here.
    _values: Vec<T>,
}

impl<T> Default for Slab<T> {
    fn default() -> Slab<T> {
        Slab {
            _values: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    /// Stores `value`, reusing a freed slot if any.
    pub fn insert(&mut self, value: T) -> Key {
        let _ = value;
        todo!("find a slot")
    }

    /// Takes out the value of a current key; stale keys get `None`.
    pub fn remove(&mut self, key: Key) -> Option<T> {
        todo!("remove {key:?}")
    }

    /// The value of a current key.
    pub fn get(&self, key: Key) -> Option<&T> {
        todo!("look up {key:?}")
    }

    /// Values stored.
    pub fn len(&self) -> usize {
        todo!()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
