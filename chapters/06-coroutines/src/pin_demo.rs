//! Why a future that borrows from itself must not move: shown with
//! addresses, never with a dangling pointer.
//!
//! An `async fn` that holds a reference to one of its own locals across an
//! `.await` becomes a state machine that contains both the local and a
//! pointer to it. Move that state machine to another address after it has
//! started, and the pointer still points at the old address: a use of it
//! would read freed or reused memory. `Pin<&mut F>` is the promise that the
//! value will not move again; `Future::poll` takes `self: Pin<&mut Self>`,
//! so a future can only be polled once it is pinned, and the compiler
//! refuses to hand out `&mut` to a pinned future that is not `Unpin` (which
//! a future borrowing from itself is not). This is checked at compile time:
//!
//! ```compile_fail
//! fn needs_unpin<T: Unpin>(_: &T) {}
//! let future = async {
//!     let local = [0u8; 16];
//!     let borrowed = &local;          // a reference into the state machine
//!     chapter_06::yield_now().await;  // ... held across a suspension
//!     borrowed[0]
//! };
//! needs_unpin(&future); // error: the async block is not Unpin
//! ```
//!
//! [`SelfReferential`] builds the hazard by hand, with the pointer kept as
//! a plain address so the demonstration never dereferences it:
//! [`moved_pointer_is_stale`] returns whether, after a move, the stored
//! address still points into the value (it does not). And
//! [`pinned_addresses`] polls an async block twice while pinned and records
//! the address of its local each time: the same both times.
//!
//! Book: Chapter 6, "Pin".

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

// ANCHOR: self_referential
/// A value that stores the address of one of its own fields.
#[derive(Debug)]
pub struct SelfReferential {
    buffer: [u8; 32],
    /// The address of `buffer[8]`, once `init` has run.
    cursor: usize,
}

impl SelfReferential {
    /// A value with no cursor yet.
    pub fn new() -> SelfReferential {
        SelfReferential {
            buffer: [0; 32],
            cursor: 0,
        }
    }

    /// Points the cursor into the buffer, at the value's current address.
    pub fn init(&mut self) {
        self.cursor = &self.buffer[8] as *const u8 as usize;
    }

    /// Whether the cursor still points into this very value.
    pub fn cursor_is_valid(&self) -> bool {
        self.cursor == &self.buffer[8] as *const u8 as usize
    }
}
// ANCHOR_END: self_referential

impl Default for SelfReferential {
    fn default() -> SelfReferential {
        SelfReferential::new()
    }
}

/// Initialises a value, moves it (into a box), and says whether its
/// pointer went stale: true, every time.
pub fn moved_pointer_is_stale() -> bool {
    let mut value = SelfReferential::new();
    value.init();
    assert!(value.cursor_is_valid());
    let moved = Box::new(value); // a move: new address, old cursor
    !moved.cursor_is_valid()
}

// ANCHOR: pinned
/// Polls an async block that keeps a reference to its own local across an
/// `.await`, twice, while pinned; returns the local's address at each poll.
pub fn pinned_addresses() -> (usize, usize) {
    let mut seen = Vec::new();
    {
        let future = async {
            let local = [7u8; 16];
            let borrowed = &local; // lives in the state machine, across the await
            seen.push(borrowed.as_ptr() as usize);
            crate::executor::yield_now().await;
            seen.push(borrowed.as_ptr() as usize);
        };
        let mut future = pin!(future); // pinned: it cannot move from here
        let mut cx = Context::from_waker(Waker::noop());
        assert!(future.as_mut().poll(&mut cx).is_pending());
        assert_eq!(future.as_mut().poll(&mut cx), Poll::Ready(()));
    }
    (seen[0], seen[1])
}
// ANCHOR_END: pinned

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_referential_value_breaks_when_moved() {
        assert!(moved_pointer_is_stale());
    }

    #[test]
    fn a_pinned_future_keeps_its_address_across_polls() {
        let (first, second) = pinned_addresses();
        assert_eq!(first, second);
    }
}
