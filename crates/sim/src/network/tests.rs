//! The packet path driven directly: forwarding with TTL, ICMP echo, IP-in-IP
//! decapsulation, no route. A tiny loop stands in for the run loop.

use airtcp_core::{Icmp, Instant, IpPayload, Ipv4Header, Packet, Udp, UdpMsg};

use super::{Cx, LocalDelivery, Network};
use crate::engine::EventQueue;
use crate::events::{Ev, Raw};
use crate::scenario::Scenario;

/// n0 - n1 - n2 - n3, 1 ms per link.
fn chain() -> (Scenario, Network) {
    let mut text = String::from("[sim]\nduration = \"10s\"\n");
    for i in 0..4 {
        text += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for i in 0..3 {
        text += &format!("[[links]]\na = \"n{i}\"\nb = \"n{}\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n", i + 1);
    }
    let sc = Scenario::from_toml_str(&text, "chain.toml", &[]).unwrap();
    let net = Network::from_scenario(&sc, 1);
    (sc, net)
}

/// Send `pkt` from `node` and run the network until it is quiet; returns
/// what reached a node's own address, with its arrival time.
fn run(net: &mut Network, node: usize, pkt: Packet) -> Vec<(Instant, LocalDelivery, Packet)> {
    run_at(net, Instant::ZERO, node, pkt)
}

/// `run`, sending at `t0`.
fn run_at(net: &mut Network, t0: Instant, node: usize, pkt: Packet) -> Vec<(Instant, LocalDelivery, Packet)> {
    let mut q: EventQueue<Ev> = EventQueue::default();
    let mut log: Vec<(Instant, Raw)> = Vec::new();
    let mut got = Vec::new();
    {
        let mut cx = Cx { q: &mut q, log: &mut log };
        net.send_from(&mut cx, t0, node, pkt);
    }
    while let Some((now, ev)) = q.pop_until(Instant::MAX) {
        let mut cx = Cx { q: &mut q, log: &mut log };
        if let Ev::Medium { m } = ev {
            if net.begin_medium(&mut cx, now, m) {
                while let Some(d) = net.next_delivery(&mut cx, now, m) {
                    got.push((now, d, *net.local_packet(&d)));
                    net.free_local(&d);
                }
                net.end_medium(&mut cx, now, m);
            }
        }
        while let Some(d) = net.poll_local() {
            got.push((now, d, *net.local_packet(&d)));
            net.free_local(&d);
        }
    }
    got
}

fn udp(src: [u8; 4], dst: [u8; 4], ttl: u8) -> Packet {
    Packet {
        ip: Ipv4Header { src, dst, ttl, ip_id: 1, ..Default::default() },
        outer: None,
        payload: IpPayload::Udp(Udp { src_port: 5000, dst_port: 434, msg: UdpMsg::Opaque { len: 100 } }),
    }
}

#[test]
fn forwarded_packet_arrives_with_ttl_decremented_per_router() {
    let (_, mut net) = chain();
    let (src, dst) = (net.primary_addr(0).unwrap(), net.primary_addr(3).unwrap());
    let got = run(&mut net, 0, udp(src, dst, 64));
    assert_eq!(got.len(), 1);
    let (t, d, p) = got[0];
    assert_eq!(d.node, 3);
    assert_eq!(p.ip.ttl, 62, "two routers (n1, n2) each take one");
    // 3 links x (128 bytes of IP + 2 of PPP at 100 Mb/s = 10.4 us, + 1 ms).
    assert_eq!(t, Instant::ZERO + airtcp_core::Duration::from_nanos(3 * (1_000_000 + 10_400)));
    assert_eq!(net.frames_live(), 0, "every frame freed");
}

#[test]
fn ttl_running_out_drops_at_the_router() {
    let (_, mut net) = chain();
    let (src, dst) = (net.primary_addr(0).unwrap(), net.primary_addr(3).unwrap());
    assert!(run(&mut net, 0, udp(src, dst, 2)).is_empty());
    assert_eq!(net.stats.ttl_expired, 1);
    assert_eq!(net.frames_live(), 0);
}

#[test]
fn echo_request_is_answered_from_the_address_it_was_sent_to() {
    let (_, mut net) = chain();
    let (src, dst) = (net.primary_addr(0).unwrap(), net.primary_addr(3).unwrap());
    let mut req = udp(src, dst, 64);
    req.payload = IpPayload::Icmp(Icmp::EchoRequest { id: 7, seq: 3, len: 56 });
    let got = run(&mut net, 0, req);
    assert_eq!(got.len(), 1);
    let (_, d, p) = got[0];
    assert_eq!(d.node, 0);
    assert_eq!((p.ip.src, p.ip.dst), (dst, src));
    assert_eq!(p.payload, IpPayload::Icmp(Icmp::EchoReply { id: 7, seq: 3, len: 56 }));
    assert_eq!(net.stats.echo_replies, 1);
}

#[test]
fn tunnelled_packet_is_decapsulated_at_the_outer_destination_then_forwarded() {
    let (_, mut net) = chain();
    let a0 = net.primary_addr(0).unwrap();
    let a1 = net.primary_addr(1).unwrap();
    let a3 = net.primary_addr(3).unwrap();
    // Inner: n0 -> n3; tunnelled to n1, which strips the outer header and forwards.
    let mut p = udp(a0, a3, 64);
    p.encapsulate(Ipv4Header { src: a0, dst: a1, ttl: 64, ip_id: 9, ..Default::default() }).unwrap();
    let got = run(&mut net, 0, p);
    assert_eq!(got.len(), 1);
    let (_, d, inner) = got[0];
    assert_eq!(d.node, 3);
    assert_eq!(inner.outer, None);
    // The outer header's TTL was spent in the tunnel; the inner packet is then
    // forwarded by n1 (as Linux forwards what its ipip device received) and n2.
    assert_eq!(inner.ip.ttl, 62);
}

#[test]
fn unknown_destination_counts_as_no_route() {
    let (_, mut net) = chain();
    let src = net.primary_addr(0).unwrap();
    assert!(run(&mut net, 0, udp(src, [192, 0, 2, 1], 64)).is_empty());
    assert_eq!(net.stats.no_route, 1);
    assert_eq!(net.frames_live(), 0);
}

/// A router's remembered egress follows a route change: n0 reaches n3 over
/// n1 (1 ms links) until a host route sends it over n2 (5 ms to n2).
#[test]
fn remembered_hops_follow_a_route_change() {
    let mut text = String::from("[sim]\nduration = \"10s\"\n");
    for i in 0..4 {
        text += &format!("[[nodes]]\nname = \"n{i}\"\n");
    }
    for (a, b, delay) in [(0, 1, 1), (1, 3, 1), (0, 2, 5), (2, 3, 1)] {
        text += &format!("[[links]]\na = \"n{a}\"\nb = \"n{b}\"\nrate = \"100Mbps\"\ndelay = \"{delay}ms\"\n");
    }
    let sc = Scenario::from_toml_str(&text, "diamond.toml", &[]).unwrap();
    let mut net = Network::from_scenario(&sc, 1);
    let (src, dst) = (net.primary_addr(0).unwrap(), net.primary_addr(3).unwrap());
    // Sent once a second; 128 bytes of IP + 2 of PPP at 100 Mb/s: 10.4 us per link.
    let at = |s: u64| Instant::ZERO + airtcp_core::Duration::from_secs(s);
    let delay = |got: &[(Instant, LocalDelivery, Packet)], s: u64| {
        assert_eq!((got.len(), got[0].1.node), (1, 3));
        (got[0].0 - at(s)).as_nanos() as u64 - 2 * 10_400
    };
    for s in 0..2 {
        assert_eq!(delay(&run_at(&mut net, at(s), 0, udp(src, dst, 64)), s), 2_000_000, "over n1");
    }
    let host = super::Prefix::new(u32::from_be_bytes(dst), 32);
    net.change_routes(super::RouteChange::Add { node: 0, prefix: host, iface: 1 }).unwrap();
    assert_eq!(delay(&run_at(&mut net, at(2), 0, udp(src, dst, 64)), 2), 6_000_000, "over n2");
    net.change_routes(super::RouteChange::Remove { node: 0, prefix: host }).unwrap();
    assert_eq!(delay(&run_at(&mut net, at(3), 0, udp(src, dst, 64)), 3), 2_000_000, "over n1 again");
}
