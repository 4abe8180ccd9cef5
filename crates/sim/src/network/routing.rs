//! Static shortest-path routing by hop count. Ties are broken by link index
//! (links are explored in the order the scenario lists them), so the chosen
//! path never depends on anything but the scenario text.

use std::collections::VecDeque;

/// A first hop: which link, and which of its directions (0 = a->b, 1 = b->a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub link: u32,
    pub dir: u8,
}

/// `next[src * n + dst]`: first hop from `src` towards `dst`.
pub struct Routes {
    n: usize,
    next: Vec<Option<Hop>>,
}

impl Routes {
    /// `links[i] = (a, b)` node indices of link `i`.
    pub fn compute(n_nodes: usize, links: &[(usize, usize)]) -> Routes {
        // Adjacency lists in link order: (neighbour, hop to it).
        let mut adj: Vec<Vec<(usize, Hop)>> = vec![Vec::new(); n_nodes];
        for (i, &(a, b)) in links.iter().enumerate() {
            adj[a].push((b, Hop { link: i as u32, dir: 0 }));
            adj[b].push((a, Hop { link: i as u32, dir: 1 }));
        }
        let mut next = vec![None; n_nodes * n_nodes];
        let mut queue = VecDeque::new();
        for src in 0..n_nodes {
            // BFS from src; remember the first hop through which each node was reached.
            let mut first: Vec<Option<Hop>> = vec![None; n_nodes];
            let mut seen = vec![false; n_nodes];
            seen[src] = true;
            queue.clear();
            queue.push_back(src);
            while let Some(u) = queue.pop_front() {
                for &(v, hop) in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        first[v] = if u == src { Some(hop) } else { first[u] };
                        queue.push_back(v);
                    }
                }
            }
            next[src * n_nodes..(src + 1) * n_nodes].copy_from_slice(&first);
        }
        Routes { n: n_nodes, next }
    }

    #[inline]
    pub fn next_hop(&self, src: usize, dst: usize) -> Option<Hop> {
        self.next[src * self.n + dst]
    }

    pub fn reachable(&self, src: usize, dst: usize) -> bool {
        src == dst || self.next_hop(src, dst).is_some()
    }

    /// Node sequence from `src` to `dst` (both included), for reports and tests.
    pub fn path(&self, src: usize, dst: usize, links: &[(usize, usize)]) -> Option<Vec<usize>> {
        let mut path = vec![src];
        let mut u = src;
        while u != dst {
            let hop = self.next_hop(u, dst)?;
            let (a, b) = links[hop.link as usize];
            u = if hop.dir == 0 { b } else { a };
            path.push(u);
            if path.len() > self.n {
                return None;
            }
        }
        Some(path)
    }
}

/// IPv4 address of node `i`: 10.<hi>.<lo>.1 (10.0.<i>.1 for the first 256 nodes).
pub fn node_addr(i: usize) -> [u8; 4] {
    [10, (i >> 8) as u8, (i & 0xff) as u8, 1]
}

/// Node index of an address made by [`node_addr`].
#[inline]
pub fn addr_node(a: [u8; 4]) -> usize {
    (a[1] as usize) << 8 | a[2] as usize
}
