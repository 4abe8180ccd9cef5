//! Which nodes can reach each other at all: connected components of the
//! link graph, for scenario validation before any network is built. A leaf.

/// Connected component of each node over `links` (pairs of node indices),
/// numbered by their smallest node: whether two nodes can reach each other
/// at all, for scenario validation. Union-find, linear in nodes + links.
pub fn components(n_nodes: usize, links: &[(usize, usize)]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..n_nodes).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for &(a, b) in links {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            parent[hi] = lo;
        }
    }
    (0..n_nodes).map(|x| find(&mut parent, x)).collect()
}
