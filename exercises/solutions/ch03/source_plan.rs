//! Reference solution for ch03_source_plan.
//!
//! An IPv4 address is a `u32`, so "the next address" is `+ 1`, and
//! 127.0.0.0/8 is the range `0x7F00_0000..=0x7FFF_FFFF`.

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
    if per_source == 0 {
        return Err(PlanError::ZeroShare);
    }
    let wanted = connections.div_ceil(per_source).max(1);
    let mut next = u32::from(first);
    let mut addresses = Vec::with_capacity(wanted);
    while addresses.len() < wanted {
        let addr = Ipv4Addr::from(next);
        if !addr.is_loopback() {
            return Err(PlanError::OutOfLoopback);
        }
        let last = addr.octets()[3];
        if last != 0 && last != 255 {
            addresses.push(addr);
        }
        next = next.checked_add(1).ok_or(PlanError::OutOfLoopback)?;
    }
    Ok(addresses)
}

/// The address connection `index` binds to. `addresses` is not empty.
pub fn source_for(addresses: &[Ipv4Addr], index: usize) -> Ipv4Addr {
    addresses[index % addresses.len()]
}
