//! Tests for exercise ch05_slab (`exercises/ch05/slab.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch05/slab.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch05/slab.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod slab;

mod ch05_slab {
    use super::slab::{Key, Slab};

    #[test]
    fn values_come_back_by_key() {
        let mut slab = Slab::default();
        let a = slab.insert("a");
        let b = slab.insert("b");
        assert_ne!(a, b);
        assert_eq!(slab.get(a), Some(&"a"));
        assert_eq!(slab.get(b), Some(&"b"));
        assert_eq!(slab.len(), 2);
        assert!(!slab.is_empty());
    }

    #[test]
    fn a_freed_slot_is_reused_under_a_new_generation() {
        let mut slab = Slab::default();
        let old = slab.insert("closed connection");
        assert_eq!(slab.remove(old), Some("closed connection"));
        let new = slab.insert("new connection");
        assert_eq!(new.index, old.index, "the slot should be reused");
        assert_ne!(new.generation, old.generation);
        assert_eq!(slab.get(old), None, "a stale key found the new occupant");
        assert_eq!(slab.remove(old), None);
        assert_eq!(slab.get(new), Some(&"new connection"));
        assert_eq!(slab.len(), 1);
    }

    #[test]
    fn removing_twice_or_with_a_made_up_key_does_nothing() {
        let mut slab = Slab::default();
        let key = slab.insert(1);
        assert!(!slab.is_empty());
        assert_eq!(slab.remove(key), Some(1));
        assert_eq!(slab.remove(key), None);
        assert_eq!(
            slab.remove(Key {
                index: 99,
                generation: 0
            }),
            None
        );
        assert_eq!(
            slab.get(Key {
                index: 99,
                generation: 0
            }),
            None
        );
        assert!(slab.is_empty());
    }

    #[test]
    fn the_table_does_not_grow_when_slots_are_recycled() {
        let mut slab = Slab::default();
        let mut max_index = 0;
        for i in 0..10_000 {
            let key = slab.insert(i);
            max_index = max_index.max(key.index);
            assert_eq!(slab.remove(key), Some(i));
        }
        assert_eq!(max_index, 0);
    }
}
