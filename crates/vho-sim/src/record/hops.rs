//! The TTL (IPv4) or hop limit (IPv6) a capture shows: a packet leaves its host with
//! [`INITIAL_TTL`], and every router that forwards it takes one off (RFC 791 §3.2 "Time to
//! Live": "even if no other useful information is available ... the time to live must be
//! decreased by at least one" per module that processes it; RFC 8200 §3 "Hop Limit":
//! "Decremented by 1 by each node that forwards the packet"). The world carries no TTL in its
//! packets (none of its models reads one); the recorder works it out from the topology: the
//! routers between the packet's source and the node where it is captured, on a shortest path
//! in hops, as vho routes (`world::routes`: by hops over the links).
//!
//! Every bundled topology reaches a mobile over each of its access links in the same number
//! of hops, so the count does not depend on which link is up.

use crate::spec::{NodeIdx, Spec};
use std::collections::VecDeque;

/// The TTL and hop limit a host gives the packets it sends: 64, Linux's default
/// (`net.ipv4.ip_default_ttl`, `net.ipv6.conf.*.hop_limit`; RFC 1700's recommended 64).
pub const INITIAL_TTL: u8 = 64;

/// Routers between every pair of nodes.
#[derive(Clone, Debug)]
pub struct Hops {
    nodes: usize,
    /// `routers[from * nodes + to]`: the nodes strictly between `from` and `to` on a shortest
    /// path (0 for neighbours and for a node and itself); `u8::MAX` when none connects them.
    routers: Vec<u8>,
}

impl Hops {
    /// Breadth-first from every node over the spec's links (the recorder's set-up, once a run).
    pub fn of(spec: &Spec) -> Hops {
        let links: Vec<(NodeIdx, NodeIdx)> = spec.links.iter().map(|l| (l.a, l.b)).collect();
        Hops::over(spec.nodes.len(), &links)
    }

    /// The same over `nodes` nodes joined by `links` (each a pair of nodes).
    pub fn over(n: usize, links: &[(NodeIdx, NodeIdx)]) -> Hops {
        let mut next: Vec<Vec<NodeIdx>> = vec![Vec::new(); n];
        for &(a, b) in links {
            next[a].push(b);
            next[b].push(a);
        }
        let mut routers = vec![u8::MAX; n * n];
        for from in 0..n {
            let mut dist = vec![usize::MAX; n];
            dist[from] = 0;
            let mut queue = VecDeque::from([from]);
            while let Some(u) = queue.pop_front() {
                for &v in &next[u] {
                    if dist[v] == usize::MAX {
                        dist[v] = dist[u] + 1;
                        queue.push_back(v);
                    }
                }
            }
            for (to, d) in dist.into_iter().enumerate() {
                if d != usize::MAX {
                    routers[from * n + to] = d.saturating_sub(1).min(u8::MAX as usize - 1) as u8;
                }
            }
        }
        Hops { nodes: n, routers }
    }

    /// Routers a packet from `from` has passed when it is captured at `at`: those strictly
    /// between the two (a capture at a router on the path shows the packet as it arrived).
    pub fn routers(&self, from: NodeIdx, at: NodeIdx) -> u8 {
        match self.routers.get(from * self.nodes + at) {
            Some(&r) if r != u8::MAX => r,
            _ => 0,
        }
    }

    /// The TTL of a packet that left `from` with [`INITIAL_TTL`], captured at `at`.
    pub fn ttl(&self, from: NodeIdx, at: NodeIdx) -> u8 {
        INITIAL_TTL - self.routers(from, at).min(INITIAL_TTL - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load, PresetSet};

    fn spec(text: &str) -> Spec {
        let presets = PresetSet::builtin().expect("presets");
        load("t.toml", text, &[], &presets).expect("valid")
    }

    const COMMON: &str = r#"
[access.wlan]
preset = "dk-wlan"
[access.gprs]
preset = "dk-gprs"
[mobile]
start = "wlan"
[[flow]]
from = "ch"
to = "mh"
size = "1 KB"
"#;

    #[test]
    fn each_router_on_the_path_takes_one_off() {
        // RFC 8200 §3: "Decremented by 1 by each node that forwards the packet".
        // The common form: ch - ha - mh over either access link.
        let s = spec(COMMON);
        let h = Hops::of(&s);
        let at = |name: &str| s.nodes.iter().position(|n| n.name == name).expect(name);
        let (ch, ha, mh) = (at("ch"), at("ha"), at("mh"));
        assert_eq!(h.ttl(ch, ch), 64, "as sent");
        assert_eq!(h.ttl(ch, ha), 64, "arriving at the first router");
        assert_eq!(h.ttl(ch, mh), 63, "through the home agent");
        assert_eq!(h.ttl(mh, ch), 63, "the ACKs alike");
    }

    #[test]
    fn a_longer_chain_takes_one_off_per_router() {
        // n1 - n2 - n3 - n4: two routers between the ends.
        let s = spec(
            r#"
[[node]]
name = "n1"
kind = "host"
[[node]]
name = "n2"
kind = "router"
[[node]]
name = "n3"
kind = "router"
[[node]]
name = "n4"
kind = "host"
[[link]]
name = "a"
preset = "lan-100m"
between = ["n1", "n2"]
[[link]]
name = "b"
preset = "lan-100m"
between = ["n2", "n3"]
[[link]]
name = "c"
preset = "lan-100m"
between = ["n3", "n4"]
[[flow]]
from = "n1"
to = "n4"
size = "1 KB"
"#,
        );
        let h = Hops::of(&s);
        assert_eq!(h.ttl(0, 3), 62);
        assert_eq!(h.ttl(3, 0), 62);
        assert_eq!(
            h.ttl(0, 2),
            63,
            "at the second router: the first forwarded it"
        );
    }
}
