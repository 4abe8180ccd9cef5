//! Event ordering and routing.

use airtcp_core::Instant;
use airtcp_sim::engine::{class, EventQueue};
use airtcp_sim::network::{addr_node, node_addr, Hop, Routes};

#[test]
fn ties_break_by_class_then_insertion() {
    let mut q: EventQueue<&'static str> = EventQueue::default();
    let t = Instant::from_millis(5);
    q.push(t, class::TIMER, "timer-1");
    q.push(t, class::PACKET, "packet-1");
    q.push(Instant::from_millis(4), class::SAMPLE, "earlier-sample");
    q.push(t, class::TIMER, "timer-2");
    q.push(t, class::PACKET, "packet-2");
    q.push(t, class::LINK_STATE, "link");
    q.push(Instant::from_millis(6), class::LINK_STATE, "later-link");
    let mut order = Vec::new();
    while let Some((_, e)) = q.pop_until(Instant::MAX) {
        order.push(e);
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

#[test]
fn shortest_paths_across_a_chain_and_a_shortcut() {
    // 0 - 1 - 2 - 3, plus a shortcut 0 - 3 (link 3) and a parallel 1 - 2 (link 4).
    let links = [(0, 1), (1, 2), (2, 3), (0, 3), (1, 2)];
    let r = Routes::compute(5, &links);
    assert_eq!(r.path(0, 2, &links), Some(vec![0, 1, 2]));
    assert_eq!(r.path(0, 3, &links), Some(vec![0, 3]));
    // Two 2-hop paths from 3: via link 2 (to node 2) beats via link 3 (to node 0).
    assert_eq!(r.path(3, 1, &links), Some(vec![3, 2, 1]));
    // Tie between links 1 and 4 (both 1 -> 2): the lower index wins.
    assert_eq!(r.next_hop(1, 2), Some(Hop { link: 1, dir: 0 }));
    assert_eq!(r.next_hop(2, 1), Some(Hop { link: 1, dir: 1 }));
    // Node 4 is isolated.
    assert!(!r.reachable(0, 4));
    assert_eq!(r.next_hop(4, 0), None);
}

#[test]
fn hop_count_tie_breaks_by_link_order() {
    // Square 0-1-3 and 0-2-3: both two hops; the path via link 0 (0-1) is listed first.
    let links = [(0, 1), (0, 2), (1, 3), (2, 3)];
    let r = Routes::compute(4, &links);
    assert_eq!(r.path(0, 3, &links), Some(vec![0, 1, 3]));
    assert_eq!(r.path(3, 0, &links), Some(vec![3, 1, 0]));
}

#[test]
fn node_addresses_round_trip() {
    assert_eq!(node_addr(0), [10, 0, 0, 1]);
    assert_eq!(node_addr(2), [10, 0, 2, 1]);
    assert_eq!(node_addr(300), [10, 1, 44, 1]);
    for i in [0, 1, 255, 256, 65_535] {
        assert_eq!(addr_node(node_addr(i)), i);
    }
}
