//! Exercise ch03_source_plan: spread client connections over loopback
//! source addresses.
//!
//! Every connection from one source address to one server needs its own
//! ephemeral port, and there are only about 28,000 of them (and closed
//! connections hold theirs for a minute in TIME_WAIT). Linux treats all of
//! 127.0.0.0/8 as loopback, so a load generator can bind its sockets to
//! 127.0.0.1, 127.0.0.2, ... and give each address a modest share.
//!
//! Write [`plan`]: the list of source addresses for `connections`
//! connections, at most `per_source` on each:
//!
//! * `ceil(connections / per_source)` addresses, and at least one;
//! * consecutive addresses from `first` upwards (127.0.0.254 is followed by
//!   127.0.1.1), skipping every address whose last byte is 0 or 255 (they
//!   read like network and broadcast addresses, which confuses tools);
//! * every address must stay inside 127.0.0.0/8: if `first` is outside it,
//!   or the plan would run past 127.255.255.254, return
//!   [`PlanError::OutOfLoopback`];
//! * `per_source == 0` is [`PlanError::ZeroShare`].
//!
//! And [`source_for`]: connection `index` uses address `index % len`, so the
//! connections are dealt round-robin and no address exceeds its share.
//!
//! Check: `cargo run -p exercises -- check ch03_source_plan`. Hint:
//! `cargo run -p exercises -- hint ch03_source_plan`.

use std::net::Ipv4Addr;

/// Why no plan could be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// An address would fall outside 127.0.0.0/8.
    OutOfLoopback,
    /// `per_source` was zero.
    ZeroShare,
}

/// The source addresses for `connections`, at most `per_source` each,
/// counting up from `first`.
pub fn plan(
    connections: usize,
    per_source: usize,
    first: Ipv4Addr,
) -> Result<Vec<Ipv4Addr>, PlanError> {
    todo!("{connections} connections, {per_source} per address, from {first}")
}

/// The address connection `index` binds to. `addresses` is not empty.
pub fn source_for(addresses: &[Ipv4Addr], index: usize) -> Ipv4Addr {
    todo!("address for connection {index} of {}", addresses.len())
}
