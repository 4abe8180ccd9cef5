//! Event ordering and routing.

use airtcp_core::Instant;
use airtcp_sim::engine::{class, EventQueue};
use airtcp_sim::network::{Network, Prefix, RouteChange};
use airtcp_sim::Scenario;

#[test]
fn ties_break_by_class_then_insertion() {
    // Events are one word in the queue (`EventCode`): push indices into `NAMES`.
    const NAMES: [&str; 7] = ["timer-1", "packet-1", "earlier-sample", "timer-2", "packet-2", "link", "later-link"];
    let mut q: EventQueue<u32> = EventQueue::default();
    let t = Instant::from_millis(5);
    q.push(t, class::TIMER, 0);
    q.push(t, class::PACKET, 1);
    q.push(Instant::from_millis(4), class::SAMPLE, 2);
    q.push(t, class::TIMER, 3);
    q.push(t, class::PACKET, 4);
    q.push(t, class::LINK_STATE, 5);
    q.push(Instant::from_millis(6), class::LINK_STATE, 6);
    let mut order = Vec::new();
    while let Some((_, e)) = q.pop_until(Instant::MAX) {
        order.push(NAMES[e as usize]);
    }
    assert_eq!(order, ["earlier-sample", "link", "packet-1", "packet-2", "timer-1", "timer-2", "later-link"]);
    assert_eq!(q.executed(), 7);
}

#[test]
fn pop_until_stops_at_the_limit() {
    let mut q: EventQueue<u32> = EventQueue::default();
    for i in 0..10 {
        q.push(Instant::from_millis(i), class::APP, i as u32);
    }
    let mut n = 0;
    while q.pop_until(Instant::from_millis(4)).is_some() {
        n += 1;
    }
    assert_eq!(n, 5, "events at 0..=4 ms run, the limit is inclusive");
    assert_eq!(q.len(), 5);
    assert_eq!(q.peek_time(), Some(Instant::from_millis(5)));
}

/// A scenario with nodes n0..n{n-1} and the given links (a, b).
fn net(n: usize, links: &[(usize, usize)]) -> (Scenario, Network) {
    let mut text = String::from("[sim]\nduration = \"1s\"\n");
    for i in 0..n {
        text += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for (i, (a, b)) in links.iter().enumerate() {
        text += &format!("[[links]]\nname = \"l{i}\"\na = \"n{a}\"\nb = \"n{b}\"\nrate = \"1Mbps\"\n");
    }
    let sc = Scenario::from_toml_str(&text, "t.toml", &[]).unwrap();
    let net = Network::from_scenario(&sc, 1);
    (sc, net)
}

#[test]
fn shortest_paths_across_a_chain_and_a_shortcut() {
    // 0 - 1 - 2 - 3, plus a shortcut 0 - 3 (link 3) and a parallel 1 - 2 (link 4).
    let links = [(0, 1), (1, 2), (2, 3), (0, 3), (1, 2)];
    let (_, mut net) = net(5, &links);
    // Node 2's primary address is on link 1 (1-2), node 3's on link 2 (2-3).
    let n2 = net.primary_addr(2).unwrap();
    let n3 = net.primary_addr(3).unwrap();
    let n1 = net.primary_addr(1).unwrap();
    assert_eq!(net.path(0, n2), Some(vec![0, 1, 2]));
    // Link 2's subnet is one hop from 0 through the shortcut's far end 3.
    assert_eq!(net.path(0, n3), Some(vec![0, 3]));
    assert_eq!(net.path(3, n1), Some(vec![3, 0, 1]));
    // Node 4 is isolated.
    assert_eq!(net.primary_addr(4), None);
    assert_eq!(net.path(4, n1), None);
}

#[test]
fn hop_count_tie_breaks_by_link_order() {
    // Square 0-1-3 and 0-2-3: both two hops; the path via link 0 (0-1) is listed first.
    let links = [(0, 1), (0, 2), (1, 3), (2, 3)];
    let (_, mut net) = net(4, &links);
    let n3 = net.primary_addr(3).unwrap();
    let n0 = net.primary_addr(0).unwrap();
    assert_eq!(n3, [10, 0, 0, 10], "node 3's first interface is link 2's b end (10.0.0.8/30)");
    assert_eq!(net.path(0, n3), Some(vec![0, 1, 3]));
    assert_eq!(net.path(3, n0), Some(vec![3, 1, 0]));
}

#[test]
fn routes_are_per_subnet_and_computed_on_demand() {
    // A chain of 4: each node starts with its connected /30s only.
    let (_, mut net) = net(4, &[(0, 1), (1, 2), (2, 3)]);
    assert_eq!(net.routes(0).len(), 1);
    assert_eq!(net.routes(1).len(), 2);
    let far = net.primary_addr(3).unwrap(); // 10.0.0.10 on link 2
    assert_eq!(net.path(0, far), Some(vec![0, 1, 2, 3]));
    // One search installed link 2's subnet everywhere it reached (0 and 1), nothing else.
    let r0: Vec<String> = net.routes(0).iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(r0, ["10.0.0.0/30", "10.0.0.8/30"]);
    assert_eq!(net.routes(1).len(), 3);
}

#[test]
fn static_route_and_interface_down_change_forwarding() {
    // Square: 0-1 (l0), 0-2 (l1), 1-3 (l2), 2-3 (l3).
    let (_, mut net) = net(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let n3 = net.primary_addr(3).unwrap();
    assert_eq!(net.path(0, n3), Some(vec![0, 1, 3]));
    // Take node 1's link to 3 down: computed routes are flushed and recomputed around it.
    net.change_routes(RouteChange::IfaceState { node: 1, iface: 1, up: false }).unwrap();
    let n3_on_l3 = [10, 0, 0, 14];
    assert_eq!(net.path(0, n3_on_l3), Some(vec![0, 2, 3]));
    net.change_routes(RouteChange::IfaceState { node: 1, iface: 1, up: true }).unwrap();
    // A static host route at 0 toward 10.0.0.14 through link l0 (interface 0) wins by length.
    let p = Prefix::parse("10.0.0.14/32").unwrap();
    net.change_routes(RouteChange::Add { node: 0, prefix: p, iface: 0 }).unwrap();
    assert_eq!(net.path(0, n3_on_l3), Some(vec![0, 1, 3]));
    net.change_routes(RouteChange::Remove { node: 0, prefix: p }).unwrap();
    assert_eq!(net.path(0, n3_on_l3), Some(vec![0, 2, 3]));
    assert_eq!(net.change_routes(RouteChange::Remove { node: 0, prefix: p }).unwrap_err(), "node 0 has no route for 10.0.0.14/32");
    assert_eq!(net.change_routes(RouteChange::Add { node: 0, prefix: p, iface: 9 }).unwrap_err(), "node 0 has no interface 9");
}
