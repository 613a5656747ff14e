//! Where client connections come from: spreading them over loopback
//! addresses so ephemeral ports never run out.
//!
//! A TCP connection is named by four numbers: source address and port,
//! destination address and port. To a single server address, every client
//! connection from one source address needs its own source port, taken
//! from the ephemeral range (32768-60999 by default: 28,232 ports). And a
//! closed connection keeps its port in TIME_WAIT for a minute, so a few
//! back-to-back runs of 10,000 connections would exhaust one address.
//!
//! On Linux the whole of 127.0.0.0/8 is loopback, so a load generator can
//! bind each client socket to its own choice of 127.x.y.z before
//! connecting, and give each source address only a modest share of the
//! connections. We use at least [`MIN_SOURCES`] addresses and at most
//! [`CONNECTIONS_PER_SOURCE`] connections on each, and move to a different
//! block of addresses for each run (picked from the process id), so
//! consecutive runs do not meet each other's TIME_WAIT sockets.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// At most this many connections share one source address: a fraction of
/// the ephemeral range, leaving room for TIME_WAIT from earlier runs.
pub const CONNECTIONS_PER_SOURCE: usize = 2_000;

/// Even small runs spread over a few addresses.
pub const MIN_SOURCES: usize = 4;

/// The source addresses for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePlan {
    addresses: Vec<Ipv4Addr>,
}

impl SourcePlan {
    /// Enough loopback addresses for `connections` to a loopback server,
    /// in a block chosen by `run_id` (the process id, say). For a server
    /// that is not on loopback, the kernel's own choice is used.
    pub fn for_run(target: SocketAddr, connections: usize, run_id: u32) -> SourcePlan {
        let loopback = matches!(target.ip(), IpAddr::V4(ip) if ip.is_loopback());
        if !loopback {
            return SourcePlan {
                addresses: Vec::new(),
            };
        }
        let count = connections
            .div_ceil(CONNECTIONS_PER_SOURCE)
            .max(MIN_SOURCES);
        // 127.B.C.1 ... with B.C from the run id: 250 x 250 blocks of up to
        // 250 addresses. 127.0.0.x is left to the rest of the machine.
        let block = run_id as usize % (250 * 250);
        let (b, c) = (1 + block / 250, 1 + block % 250);
        let addresses = (0..count)
            .map(|i| {
                let (extra_c, d) = (i / 250, 1 + i % 250);
                Ipv4Addr::new(127, b as u8, ((c + extra_c - 1) % 250 + 1) as u8, d as u8)
            })
            .collect();
        SourcePlan { addresses }
    }

    /// The source address for connection number `index`, or `None` to let
    /// the kernel choose.
    pub fn source_for(&self, index: usize) -> Option<SocketAddr> {
        if self.addresses.is_empty() {
            return None;
        }
        let ip = self.addresses[index % self.addresses.len()];
        Some(SocketAddr::new(IpAddr::V4(ip), 0))
    }

    /// How many addresses the plan uses.
    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    /// Whether the kernel picks the source address.
    pub fn is_empty(&self) -> bool {
        self.addresses.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn local() -> SocketAddr {
        "127.0.0.1:7000".parse().unwrap()
    }

    #[test]
    fn no_address_carries_more_than_its_share() {
        let plan = SourcePlan::for_run(local(), 19_000, 42);
        assert_eq!(plan.len(), 10);
        let mut per_source: HashMap<SocketAddr, usize> = HashMap::new();
        for i in 0..19_000 {
            *per_source.entry(plan.source_for(i).unwrap()).or_default() += 1;
        }
        assert!(per_source.values().all(|&n| n <= CONNECTIONS_PER_SOURCE));
    }

    #[test]
    fn addresses_are_loopback_and_distinct() {
        let plan = SourcePlan::for_run(local(), 600_000, 62_499);
        let mut seen = std::collections::HashSet::new();
        for i in 0..plan.len() {
            let addr = plan.source_for(i).unwrap();
            assert!(addr.ip().is_loopback(), "{addr}");
            assert_eq!(addr.port(), 0);
            assert!(seen.insert(addr), "{addr} twice");
        }
    }

    #[test]
    fn consecutive_runs_use_different_blocks() {
        let a = SourcePlan::for_run(local(), 100, 1000);
        let b = SourcePlan::for_run(local(), 100, 1001);
        assert_ne!(a.source_for(0), b.source_for(0));
    }

    #[test]
    fn a_remote_server_leaves_the_choice_to_the_kernel() {
        let plan = SourcePlan::for_run("192.0.2.1:80".parse().unwrap(), 100, 1);
        assert!(plan.is_empty());
        assert_eq!(plan.source_for(3), None);
    }
}
