//! Reference solution for ch04_interest.

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
    if state.peer_closed && state.backlog == 0 {
        return Decision::Close;
    }
    Decision::Watch {
        readable: !state.peer_closed && state.reading,
        writable: state.backlog > 0,
    }
}

/// Whether to read, given the backlog and whether we were reading.
pub fn update_reading(backlog: usize, was_reading: bool) -> bool {
    if backlog >= HIGH {
        false
    } else if backlog < LOW {
        true
    } else {
        was_reading
    }
}
