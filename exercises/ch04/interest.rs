//! Exercise ch04_interest: what to ask epoll for, from a connection's state.
//!
//! After every event, the epoll server recomputes what it wants to hear
//! about a connection, and changes the registration (`EPOLL_CTL_MOD`) only
//! when that changes. Asking for too little loses events; asking for too
//! much wakes the loop for nothing (`EPOLLOUT` on a socket with nothing to
//! write is reported on *every* level-triggered wait).
//!
//! Write [`decide`], which maps a [`State`] to [`Decision`]:
//!
//! * if the peer has closed its side and nothing is left to write: `Close`;
//! * otherwise `Watch` with
//!   - `readable` (`EPOLLIN | EPOLLRDHUP`) when the peer has not closed and
//!     we are reading;
//!   - `writable` (`EPOLLOUT`) exactly when bytes wait to be written;
//! * and [`update_reading`], the back-pressure switch with hysteresis: stop
//!   reading when the backlog reaches `HIGH` bytes, start again when it has
//!   fallen below `LOW`, and in between keep doing what we were doing.
//!
//! Check: `cargo run -p exercises -- check ch04_interest`. Hint:
//! `cargo run -p exercises -- hint ch04_interest`.

/// Stop reading at this backlog.
pub const HIGH: usize = 256 * 1024;
/// Read again below this backlog.
pub const LOW: usize = 64 * 1024;

/// What the server knows about a connection after handling an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// The peer shut down its sending side (read returned 0).
    pub peer_closed: bool,
    /// Bytes waiting to be written.
    pub backlog: usize,
    /// Whether we are reading from it (false while throttled).
    pub reading: bool,
}

/// What to do with the registration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Keep watching for these.
    Watch {
        /// `EPOLLIN | EPOLLRDHUP`.
        readable: bool,
        /// `EPOLLOUT`.
        writable: bool,
    },
    /// Deregister and close.
    Close,
}

/// The registration a connection in `state` needs.
pub fn decide(state: State) -> Decision {
    todo!("{state:?}")
}

/// Whether to read, given the backlog and whether we were reading.
pub fn update_reading(backlog: usize, was_reading: bool) -> bool {
    todo!("{backlog} {was_reading}")
}
