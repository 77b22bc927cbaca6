//! Static shortest-path routing: the first hop a breadth-first search from the source, in
//! declaration order, chooses towards each destination (deterministic routes).
//!
//! An all-pairs table costs nodes squared (8002 nodes: 1.1 GB). Most nodes of a wireless
//! scenario are leaves (a station's one link to its AP, a server's to its router), and every
//! path from a leaf starts at its one neighbour, so only nodes with several neighbours keep
//! a table, built when they first send: memory and set-up time grow with the network times
//! its few forwarding nodes, not with its square.
//!
//! A mobile host's links to base stations it is not attached to are switched off
//! (`set_pair`): routes then go through its current cell only. Every switch forgets the
//! tables, which are rebuilt when next needed (handoffs are rare).

/// How a node reaches a neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    Unreachable,
    /// A wired channel (one direction of a link).
    Channel(u32),
    /// Over a BSS from MAC `mac` to MAC `to`.
    Wlan {
        bss: u32,
        mac: u32,
        to: u32,
    },
}

pub struct Routes {
    /// Per node, its neighbours and the hop to each, in declaration order: those switched on
    /// (what routes use), and all of them, kept from the first switch on.
    adjacency: Vec<Vec<(usize, Hop)>>,
    declared: Vec<Vec<(usize, Hop)>>,
    /// Node pairs (smaller first) whose links are switched off.
    off: std::collections::BTreeSet<(usize, usize)>,
    /// Connected component of each node.
    component: Vec<u32>,
    /// First-hop tables of nodes with more than one neighbour, built when first needed.
    tables: Vec<Option<Box<[Hop]>>>,
}

impl Routes {
    pub fn new(adjacency: Vec<Vec<(usize, Hop)>>) -> Routes {
        let component = components(&adjacency);
        let tables = vec![None; adjacency.len()];
        Routes {
            adjacency,
            declared: Vec::new(),
            off: std::collections::BTreeSet::new(),
            component,
            tables,
        }
    }

    /// Switches the links between `a` and `b` on or off.
    pub fn set_pair(&mut self, a: usize, b: usize, on: bool) {
        let pair = (a.min(b), a.max(b));
        let changed = if on {
            self.off.remove(&pair)
        } else {
            self.off.insert(pair)
        };
        if !changed {
            return;
        }
        if self.declared.is_empty() {
            // Nothing was off before this switch: what routes used is what was declared.
            self.declared = self.adjacency.clone();
        }
        for node in [a, b] {
            self.adjacency[node] = self.declared[node]
                .iter()
                .copied()
                .filter(|&(peer, _)| !self.off.contains(&(node.min(peer), node.max(peer))))
                .collect();
        }
        self.component = components(&self.adjacency);
        self.tables.fill(None);
    }

    /// The hop `from` takes towards `to` (an address may name a node that does not exist).
    pub fn first_hop(&mut self, from: usize, to: usize) -> Hop {
        if from == to || self.component.get(to) != Some(&self.component[from]) {
            return Hop::Unreachable;
        }
        if let Some(neighbour) = self.only_neighbour(from) {
            // Everything lies behind the one neighbour; the first entry is the one a search
            // would take.
            return self.adjacency[from]
                .iter()
                .find(|&&(node, _)| node == neighbour)
                .map_or(Hop::Unreachable, |&(_, hop)| hop);
        }
        let adjacency = &self.adjacency;
        self.tables[from].get_or_insert_with(|| first_hops(from, adjacency))[to]
    }

    /// The one node adjacent to `node`, if it has exactly one (over one or several links).
    fn only_neighbour(&self, node: usize) -> Option<usize> {
        let (&(first, _), rest) = self.adjacency[node].split_first()?;
        rest.iter().all(|&(n, _)| n == first).then_some(first)
    }
}

/// Breadth-first search from `source`: the hop to take towards every node.
pub fn first_hops(source: usize, adjacency: &[Vec<(usize, Hop)>]) -> Box<[Hop]> {
    let mut first = vec![Hop::Unreachable; adjacency.len()].into_boxed_slice();
    let mut seen = vec![false; adjacency.len()];
    seen[source] = true;
    let mut queue = std::collections::VecDeque::new();
    for &(neighbour, hop) in &adjacency[source] {
        if !seen[neighbour] {
            seen[neighbour] = true;
            first[neighbour] = hop;
            queue.push_back(neighbour);
        }
    }
    while let Some(node) = queue.pop_front() {
        for &(neighbour, _) in &adjacency[node] {
            if !seen[neighbour] {
                seen[neighbour] = true;
                first[neighbour] = first[node];
                queue.push_back(neighbour);
            }
        }
    }
    first
}

/// Labels each node with its connected component (links and BSSs work both ways).
fn components(adjacency: &[Vec<(usize, Hop)>]) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let mut component = vec![NONE; adjacency.len()];
    let mut stack = Vec::new();
    for start in 0..adjacency.len() {
        if component[start] != NONE {
            continue;
        }
        let label = start as u32;
        component[start] = label;
        stack.push(start);
        while let Some(node) = stack.pop() {
            for &(neighbour, _) in &adjacency[node] {
                if component[neighbour] == NONE {
                    component[neighbour] = label;
                    stack.push(neighbour);
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A random network: `edges` pairs, each a link both ways (parallel links allowed),
    /// numbered in order so that hops tell which link was taken.
    fn network(nodes: usize, edges: &[(usize, usize)]) -> Vec<Vec<(usize, Hop)>> {
        let mut adjacency = vec![Vec::new(); nodes];
        for (i, &(a, b)) in edges.iter().enumerate() {
            let (a, b) = (a % nodes, b % nodes);
            if a != b {
                adjacency[a].push((b, Hop::Channel(2 * i as u32)));
                adjacency[b].push((a, Hop::Channel(2 * i as u32 + 1)));
            }
        }
        adjacency
    }

    proptest! {
        #[test]
        fn routes_equal_an_all_pairs_breadth_first_search(
            nodes in 1usize..40,
            edges in proptest::collection::vec((0usize..40, 0usize..40), 0..60),
        ) {
            let adjacency = network(nodes, &edges);
            let mut routes = Routes::new(adjacency.clone());
            for from in 0..nodes {
                let reference = first_hops(from, &adjacency);
                for to in 0..nodes {
                    let expected = if to == from { Hop::Unreachable } else { reference[to] };
                    prop_assert_eq!(routes.first_hop(from, to), expected, "{} -> {}", from, to);
                }
            }
        }
    }

    #[test]
    fn switching_a_pair_off_reroutes_through_the_other_cell() {
        // 0 - 1 and 0 - 2 wired; the mobile 3 linked to 1 and to 2.
        let adjacency = network(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let mut routes = Routes::new(adjacency);
        routes.set_pair(2, 3, false);
        assert_eq!(routes.first_hop(0, 3), Hop::Channel(0), "through 1");
        assert_eq!(routes.first_hop(3, 0), Hop::Channel(2 * 2 + 1));
        routes.set_pair(1, 3, false);
        assert_eq!(routes.first_hop(0, 3), Hop::Unreachable, "detached");
        routes.set_pair(3, 2, true);
        assert_eq!(routes.first_hop(0, 3), Hop::Channel(2), "through 2");
        assert_eq!(routes.first_hop(3, 0), Hop::Channel(2 * 3 + 1));
        assert_eq!(routes.first_hop(1, 3), Hop::Channel(1), "1 goes round by 0");
    }

    #[test]
    fn a_star_keeps_tables_only_at_its_centre() {
        // A station-like star: node 0 with 500 leaves.
        let edges: Vec<_> = (1..=500).map(|leaf| (0, leaf)).collect();
        let mut routes = Routes::new(network(501, &edges));
        for from in 0..=500 {
            for to in [0, 1, 250, 500, 501] {
                routes.first_hop(from, to);
            }
        }
        let tables = routes.tables.iter().filter(|t| t.is_some()).count();
        assert_eq!(tables, 1);
        assert_eq!(routes.first_hop(0, 501), Hop::Unreachable);
        assert_eq!(routes.first_hop(3, 7), Hop::Channel(2 * 2 + 1));
        assert_eq!(routes.first_hop(0, 7), Hop::Channel(2 * 6));
    }
}
