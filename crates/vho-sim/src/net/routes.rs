//! Dense next-hop table: `next[node][dst]` is the link direction to send on.

use crate::spec::{LinkIdx, NodeIdx};
use std::collections::VecDeque;

pub use crate::config::DirIdx;
pub const NO_ROUTE: DirIdx = u32::MAX;

/// Index of a link's direction: `2·link` for a → b, `2·link + 1` for b → a.
pub fn dir_index(link: LinkIdx, a_to_b: bool) -> DirIdx {
    (2 * link + usize::from(!a_to_b)) as DirIdx
}

/// The link a direction belongs to.
pub fn dir_link(d: DirIdx) -> LinkIdx {
    d as usize / 2
}

/// Whether a direction runs from the link's `a` end to its `b` end.
pub fn dir_is_a_to_b(d: DirIdx) -> bool {
    d.is_multiple_of(2)
}

pub struct Routes {
    n: usize,
    next: Vec<DirIdx>,
    /// Whether the table routes addresses rather than nodes (`by_address`).
    by_address: bool,
}

impl Routes {
    /// Shortest paths (hops) over `links` = (a, b) pairs, using only those with `up[l]`.
    /// Ties break towards the lower link index, so the table is deterministic.
    pub fn compute(n_nodes: usize, links: &[(NodeIdx, NodeIdx)], up: &[bool]) -> Routes {
        let mut adj: Vec<Vec<(NodeIdx, DirIdx)>> = vec![Vec::new(); n_nodes];
        for (l, &(a, b)) in links.iter().enumerate() {
            if up[l] {
                adj[a].push((b, dir_index(l, true)));
                adj[b].push((a, dir_index(l, false)));
            }
        }
        let mut next = vec![NO_ROUTE; n_nodes * n_nodes];
        let mut first_hop = vec![NO_ROUTE; n_nodes];
        let mut queue = VecDeque::new();
        for src in 0..n_nodes {
            first_hop.iter_mut().for_each(|h| *h = NO_ROUTE);
            let mut seen = vec![false; n_nodes];
            seen[src] = true;
            queue.clear();
            for &(v, d) in &adj[src] {
                if !seen[v] {
                    seen[v] = true;
                    first_hop[v] = d;
                    queue.push_back(v);
                }
            }
            while let Some(u) = queue.pop_front() {
                for &(v, _) in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        first_hop[v] = first_hop[u];
                        queue.push_back(v);
                    }
                }
            }
            next[src * n_nodes..(src + 1) * n_nodes].copy_from_slice(&first_hop);
        }
        Routes {
            n: n_nodes,
            next,
            by_address: false,
        }
    }

    /// Marks the table as one over addresses, some of which are not nodes (a mobile's care-of
    /// addresses, `world::mip`): a packet in transit is then looked at where its destination's
    /// owner is, a node's functions may readdress it (and give a packet with no route one),
    /// and a mobile sends by its source address.
    pub fn route_by_address(&mut self) {
        self.by_address = true;
    }

    /// Whether the table is over addresses (`route_by_address`).
    #[inline(always)]
    pub fn by_address(&self) -> bool {
        self.by_address
    }

    /// Sends everything `node` originates or forwards over direction `d` (a mobile host still
    /// sending over its old link after a handover), until the table is recomputed.
    pub fn pin_node(&mut self, node: NodeIdx, d: DirIdx) {
        for dst in 0..self.n {
            if dst != node {
                self.next[node * self.n + dst] = d;
            }
        }
    }

    /// Routes address `dst` as `like` everywhere but at `like` itself, which has no route to
    /// it (a home address, routed to its home agent, whose binding cache decides).
    pub fn alias(&mut self, dst: NodeIdx, like: NodeIdx) {
        for node in 0..self.n {
            self.next[node * self.n + dst] = if node == like {
                NO_ROUTE
            } else {
                self.next[node * self.n + like]
            };
        }
    }

    /// Routes address `dst`, a node behind mobile router `router` (NEMO, RFC 3963), as
    /// `like` (its home agent) everywhere but at `like`, which has no route to it (its binding
    /// cache decides), and at the router, which keeps its own route.
    pub fn alias_behind(&mut self, dst: NodeIdx, like: NodeIdx, router: NodeIdx) {
        let keep = self.next[router * self.n + dst];
        self.alias(dst, like);
        self.next[router * self.n + dst] = keep;
    }

    /// Gives `node` direction `d` as its default route: every destination it has no route to
    /// (a node behind a mobile router reaches the world through it).
    pub fn default_route(&mut self, node: NodeIdx, d: DirIdx) {
        for dst in 0..self.n {
            let r = &mut self.next[node * self.n + dst];
            if *r == NO_ROUTE && dst != node {
                *r = d;
            }
        }
    }

    pub fn next_hop(&self, node: NodeIdx, dst: NodeIdx) -> Option<DirIdx> {
        let d = self.next[node * self.n + dst];
        (d != NO_ROUTE).then_some(d)
    }

    /// The link directions a packet crosses from `src` to `dst`, given each direction's
    /// receiving node.
    pub fn path(
        &self,
        src: NodeIdx,
        dst: NodeIdx,
        dir_to: impl Fn(DirIdx) -> NodeIdx,
    ) -> Option<Vec<DirIdx>> {
        let mut out = Vec::new();
        let mut at = src;
        while at != dst {
            let d = self.next_hop(at, dst)?;
            out.push(d);
            at = dir_to(d);
            if out.len() > self.n {
                return None;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_with_two_access_links_routes_over_the_active_one() {
        // ch(0) -0- ha(1) -1- mh(2), and ha(1) -2- mh(2) as a second access link.
        let links = [(0, 1), (1, 2), (1, 2)];
        let r = Routes::compute(3, &links, &[true, true, false]);
        assert_eq!(r.next_hop(0, 2), Some(dir_index(0, true)));
        assert_eq!(r.next_hop(1, 2), Some(dir_index(1, true)));
        assert_eq!(r.next_hop(2, 0), Some(dir_index(1, false)));
        let r = Routes::compute(3, &links, &[true, false, true]);
        assert_eq!(r.next_hop(1, 2), Some(dir_index(2, true)));
        assert_eq!(r.next_hop(2, 0), Some(dir_index(2, false)));
        let to = |d: DirIdx| {
            if d.is_multiple_of(2) {
                links[d as usize / 2].1
            } else {
                links[d as usize / 2].0
            }
        };
        assert_eq!(r.path(0, 2, to), Some(vec![0, 4]));
    }

    #[test]
    fn unreachable_has_no_route() {
        let r = Routes::compute(3, &[(0, 1)], &[true]);
        assert_eq!(r.next_hop(0, 2), None);
    }
}
