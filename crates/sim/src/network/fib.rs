//! A node's forwarding table: longest-prefix match over routes that name the
//! outgoing interface (global interface index).
//!
//! Routes are kept per prefix length, longest first, each length a sorted
//! vector searched by bisection: a host with one connected route and a
//! default does one or two comparisons, a router with thousands of routes
//! O(lengths × log routes), and nothing is hashed, so no iteration order can
//! leak into behaviour.

use super::addr::{mask, Prefix};

/// Where a route comes from: computed routes can be flushed and recomputed
/// without touching what the scenario or an agent installed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Origin {
    /// The subnet of one of the node's own interfaces.
    Connected,
    /// Installed by the routing computation (shortest path by hops).
    Computed,
    /// Installed at run time by a typed route change (association, flow-mod,
    /// binding update).
    Static,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Route {
    pub iface: u32,
    pub origin: Origin,
    /// Next-hop address on a shared medium (a WLAN), 0 when the destination
    /// is on-link or the interface is point-to-point (its peer is the hop).
    pub via: u32,
}

#[derive(Default, Clone, Debug)]
pub struct Fib {
    /// `(prefix length, routes of that length sorted by prefix address)`,
    /// longest length first.
    by_len: Vec<(u8, Vec<(u32, Route)>)>,
}

impl Fib {
    /// The route for `dst`, longest prefix first.
    #[inline]
    pub fn lookup(&self, dst: u32) -> Option<Route> {
        for (len, routes) in &self.by_len {
            let key = dst & mask(*len);
            if let Ok(i) = routes.binary_search_by_key(&key, |r| r.0) {
                return Some(routes[i].1);
            }
        }
        None
    }

    /// Install or replace the route for `p`. A computed route never replaces
    /// a connected or static one.
    pub fn insert(&mut self, p: Prefix, route: Route) {
        let li = match self.by_len.binary_search_by(|(l, _)| p.len.cmp(l)) {
            Ok(i) => i,
            Err(i) => {
                self.by_len.insert(i, (p.len, Vec::new()));
                i
            }
        };
        let routes = &mut self.by_len[li].1;
        match routes.binary_search_by_key(&p.addr, |r| r.0) {
            Ok(i) => {
                if route.origin != Origin::Computed || routes[i].1.origin == Origin::Computed {
                    routes[i].1 = route;
                }
            }
            Err(i) => routes.insert(i, (p.addr, route)),
        }
    }

    /// Remove the route for exactly `p`; returns it.
    pub fn remove(&mut self, p: Prefix) -> Option<Route> {
        let li = self.by_len.iter().position(|(l, _)| *l == p.len)?;
        let routes = &mut self.by_len[li].1;
        let i = routes.binary_search_by_key(&p.addr, |r| r.0).ok()?;
        let (_, r) = routes.remove(i);
        if routes.is_empty() {
            self.by_len.remove(li);
        }
        Some(r)
    }

    /// Drop every computed route (after a topology change they are recomputed on demand).
    pub fn flush_computed(&mut self) {
        for (_, routes) in &mut self.by_len {
            routes.retain(|(_, r)| r.origin != Origin::Computed);
        }
        self.by_len.retain(|(_, r)| !r.is_empty());
    }

    pub fn len(&self) -> usize {
        self.by_len.iter().map(|(_, r)| r.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.by_len.is_empty()
    }

    /// Every route, longest prefix first, for reports and tests.
    pub fn routes(&self) -> impl Iterator<Item = (Prefix, Route)> + '_ {
        self.by_len.iter().flat_map(|(len, rs)| rs.iter().map(move |&(a, r)| (Prefix { addr: a, len: *len }, r)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::addr::parse_addr;
    use super::*;

    fn r(iface: u32, origin: Origin) -> Route {
        Route { iface, origin, via: 0 }
    }
    fn p(s: &str) -> Prefix {
        Prefix::parse(s).unwrap()
    }
    fn a(s: &str) -> u32 {
        parse_addr(s).unwrap()
    }

    #[test]
    fn longest_prefix_wins() {
        let mut f = Fib::default();
        f.insert(Prefix::ANY, r(0, Origin::Static));
        f.insert(p("10.0.0.0/8"), r(1, Origin::Computed));
        f.insert(p("10.1.0.0/16"), r(2, Origin::Computed));
        f.insert(p("10.1.2.3/32"), r(3, Origin::Static));
        assert_eq!(f.lookup(a("10.1.2.3")).unwrap().iface, 3);
        assert_eq!(f.lookup(a("10.1.2.4")).unwrap().iface, 2);
        assert_eq!(f.lookup(a("10.2.0.0")).unwrap().iface, 1);
        assert_eq!(f.lookup(a("192.0.2.1")).unwrap().iface, 0);
        assert_eq!(f.len(), 4);
    }

    #[test]
    fn computed_route_does_not_override_static_or_connected() {
        let mut f = Fib::default();
        f.insert(p("10.0.0.0/30"), r(1, Origin::Connected));
        f.insert(p("10.0.0.0/30"), r(2, Origin::Computed));
        assert_eq!(f.lookup(a("10.0.0.1")), Some(r(1, Origin::Connected)));
        f.insert(p("10.0.0.0/30"), r(3, Origin::Static));
        assert_eq!(f.lookup(a("10.0.0.1")), Some(r(3, Origin::Static)));
    }

    #[test]
    fn flush_keeps_connected_and_static_routes() {
        let mut f = Fib::default();
        f.insert(p("10.0.0.0/30"), r(1, Origin::Connected));
        f.insert(p("10.0.0.4/30"), r(2, Origin::Computed));
        f.insert(p("10.9.0.0/16"), r(3, Origin::Static));
        f.flush_computed();
        assert_eq!(f.lookup(a("10.0.0.5")), None);
        assert_eq!(f.len(), 2);
        assert_eq!(f.remove(p("10.9.0.0/16")), Some(r(3, Origin::Static)));
        assert_eq!(f.remove(p("10.9.0.0/16")), None);
        assert_eq!(f.lookup(a("10.9.1.1")), None);
    }
}
