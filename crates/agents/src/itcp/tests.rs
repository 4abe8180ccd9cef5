//! I-TCP driven with real endpoints standing in for the fixed and mobile
//! hosts: first by hand (every injected packet looped back through the
//! agent as the real peer's answer), then on the tiny test network.

use super::*;
use crate::agent::InjectAt;
use crate::testwire::{Host, Net, Node, F_ADDR, M_ADDR, WIRED, WLAN};
use crate::AnyAgent;
use airtcp_core::{Duration, TcpFlags};
use airtcp_tcp::State;

const F_PORT: u16 = 40_000;
const M_PORT: u16 = 80;

fn fixed_tcp() -> TcpConfig {
    TcpConfig { max_retries: 60, syn_retries: 60, max_rto: Duration::from_secs(8), ..TcpConfig::default() }
}

/// The wireless half uses a small MSS so tests can tell the halves apart.
fn wireless_tcp() -> TcpConfig {
    TcpConfig { mss: 536, ..fixed_tcp() }
}

fn itcp(relay_bytes: u64) -> Itcp {
    let cfg = ItcpConfig { wireless: WLAN, relay_bytes, fixed_tcp: fixed_tcp(), wireless_tcp: wireless_tcp() };
    Itcp::new(cfg, RngStream::new(1, "itcp"))
}

/// The download connection as the fixed host opens it.
const DOWN: ConnKey = ConnKey { src: F_ADDR, dst: M_ADDR, src_port: F_PORT, dst_port: M_PORT };

fn counter(a: &dyn Agent, name: &str) -> u64 {
    a.counters().into_iter().find(|c| c.0 == name).unwrap().1
}

/// A segment from `ep`, as its host would put it on the wire towards the proxy.
fn forward(a: &mut Itcp, t: Instant, src: [u8; 4], dst: [u8; 4], ep: &mut Endpoint) -> Vec<Verdict> {
    let mut v = Vec::new();
    while let Some(seg) = ep.poll_transmit(t) {
        let out = if dst == M_ADDR { WLAN } else { WIRED };
        v.push(a.on_packet(t, Hook::Forward, out, &mut Packet::tcp(src, dst, 63, 0, seg)));
    }
    v
}

fn injections(a: &mut Itcp) -> Vec<Injection> {
    std::iter::from_fn(|| a.poll_injection()).collect()
}

#[test]
fn handshake_is_split_and_each_half_impersonates_the_other_host() {
    let t = Instant::ZERO;
    let mut a = itcp(64_000);
    let mut fh = Endpoint::new(fixed_tcp(), F_PORT, M_PORT, SeqNum(111)).unwrap();
    let mut mh = Endpoint::new(wireless_tcp(), M_PORT, F_PORT, SeqNum(999)).unwrap();
    fh.connect(t);
    mh.listen();
    assert_eq!(forward(&mut a, t, F_ADDR, M_ADDR, &mut fh), vec![Verdict::Stolen]);
    let inj = injections(&mut a);
    assert_eq!(inj.len(), 2, "{inj:?}");
    assert!(inj.iter().all(|i| i.at == InjectAt::Route));
    // To the initiator: a SYN-ACK "from the mobile".
    let (to_f, to_m) = (inj[0].pkt, inj[1].pkt);
    assert_eq!((to_f.ip.src, to_f.ip.dst), (M_ADDR, F_ADDR));
    let s = to_f.segment().unwrap();
    assert_eq!((s.flags, s.ack, s.src_port, s.dst_port), (TcpFlags::SYN | TcpFlags::ACK, SeqNum(112), M_PORT, F_PORT));
    // To the destination: a SYN "from the fixed host", with the proxy's own ISS.
    assert_eq!((to_m.ip.src, to_m.ip.dst), (F_ADDR, M_ADDR));
    let s = to_m.segment().unwrap();
    assert_eq!((s.flags, s.src_port, s.dst_port), (TcpFlags::SYN, F_PORT, M_PORT));
    assert_ne!(s.seq, SeqNum(111), "not the initiator's sequence space");
    assert_eq!(s.mss, Some(536), "the mobile's half uses wireless_tcp");
    // Loop the answers back as the real peers would.
    fh.handle_segment(t, to_f.segment().unwrap());
    mh.handle_segment(t, to_m.segment().unwrap());
    assert_eq!(forward(&mut a, t, F_ADDR, M_ADDR, &mut fh), vec![Verdict::Stolen]);
    assert_eq!(forward(&mut a, t, M_ADDR, F_ADDR, &mut mh), vec![Verdict::Stolen]);
    for i in injections(&mut a) {
        assert_eq!(i.pkt.ip.dst, M_ADDR, "only the final ACK of the far handshake is left");
        mh.handle_segment(t, i.pkt.segment().unwrap());
    }
    assert_eq!((fh.state(), mh.state()), (State::Established, State::Established));
    let (ea, eb) = a.endpoints(&DOWN).unwrap();
    assert_eq!((ea.state(), eb.state()), (State::Established, State::Established));
    assert_eq!((ea.config().mss, eb.config().mss), (1460, 536));
    assert_eq!(a.mobile_is_destination(&DOWN), Some(true));
    assert_eq!(counter(&a, "connections"), 1);
}

#[test]
fn unknown_segments_and_other_hooks_pass_untouched() {
    let mut a = itcp(64_000);
    let seg = airtcp_core::Segment { src_port: 1, dst_port: 2, flags: TcpFlags::ACK, payload_len: 100, ..Default::default() };
    let mut pkt = Packet::tcp(F_ADDR, M_ADDR, 64, 0, seg);
    assert_eq!(a.on_packet(Instant::ZERO, Hook::Forward, WLAN, &mut pkt), Verdict::Accept);
    pkt.segment_mut().unwrap().flags = TcpFlags::SYN | TcpFlags::ACK;
    assert_eq!(a.on_packet(Instant::ZERO, Hook::Forward, WLAN, &mut pkt), Verdict::Accept);
    pkt.segment_mut().unwrap().flags = TcpFlags::SYN;
    assert_eq!(a.on_packet(Instant::ZERO, Hook::Egress, WLAN, &mut pkt), Verdict::Accept);
    assert_eq!((a.hooks(), a.active_connections(), a.poll_timeout()), (HookMask::FORWARD, 0, None));
}

/// F and M with the proxy at the base station; `initiator` connects and
/// sends `bytes`, the other listens.
fn network(initiator: Node, bytes: u64, relay_bytes: u64) -> Net {
    let (mut f, mut m) =
        (Host::new(Node::F, fixed_tcp(), F_PORT, M_PORT, 111), Host::new(Node::M, wireless_tcp(), M_PORT, F_PORT, 999));
    let (init, other) = if initiator == Node::F { (&mut f, &mut m) } else { (&mut m, &mut f) };
    init.ep.connect(Instant::ZERO);
    init.to_send = bytes;
    other.ep.listen();
    Net::new(vec![f, m], Node::B, vec![AnyAgent::Itcp(itcp(relay_bytes))])
}

fn proxy(net: &Net) -> &Itcp {
    match &net.agents[0] {
        AnyAgent::Itcp(i) => i,
        _ => unreachable!(),
    }
}

/// Hosts closed and the proxy's halves through TIME-WAIT.
fn all_done(n: &Net) -> bool {
    n.all_closed() && proxy(n).active_connections() == 0
}

#[test]
fn initiator_connects_even_if_the_destination_never_answers() {
    let mut net = network(Node::F, 0, 64_000);
    net.host(Node::M).mute = true;
    net.run(Instant::from_secs(5), |n| n.hosts[0].connected);
    assert!(net.host(Node::F).connected, "the proxy completed the initiator's handshake");
    assert!(!net.host(Node::M).connected);
    let (_, b) = proxy(&net).endpoints(&DOWN).unwrap();
    assert_eq!(b.state(), State::SynSent);
}

#[test]
fn transfer_of_n_bytes_arrives_complete_at_the_far_endpoint() {
    const N: u64 = 300_000;
    let mut net = network(Node::F, N, 64_000);
    net.run(Instant::from_secs(600), all_done);
    assert!(all_done(&net));
    assert!(net.host(Node::M).read_in_order_exactly_once(N));
    assert_eq!(net.host(Node::F).closed, Some(false));
    assert_eq!(net.host(Node::M).closed, Some(false), "the FIN was relayed after the data");
    let a = &net.agents[0];
    assert_eq!(counter(a, "connections"), 1);
    assert_eq!(counter(a, "bytes_from_initiator"), N);
    assert_eq!(counter(a, "bytes_acked_by_destination"), N);
    assert_eq!(counter(a, "acked_not_delivered"), 0);
    assert!(counter(a, "relay_max_bytes") > 0);
    assert_eq!(a.gauge(), Some(0));
}

#[test]
fn upload_from_the_mobile_uses_wireless_tcp_towards_the_initiator() {
    const N: u64 = 50_000;
    let up = DOWN.reversed();
    let mut net = network(Node::M, N, 64_000);
    net.run(Instant::from_secs(1), |n| proxy(n).active_connections() == 1);
    assert_eq!(proxy(&net).mobile_is_destination(&up), Some(false));
    let (a, b) = proxy(&net).endpoints(&up).unwrap();
    assert_eq!((a.config().mss, b.config().mss), (536, 1460));
    net.run(Instant::from_secs(600), all_done);
    assert!(net.host(Node::F).read_in_order_exactly_once(N));
    assert_eq!(counter(&net.agents[0], "bytes_from_initiator"), N);
}

#[test]
fn acked_not_delivered_counts_what_the_mobile_never_acknowledged() {
    let mut net = network(Node::F, 200_000, 64_000);
    net.run(Instant::from_millis(400), |_| false);
    net.host(Node::M).mute = true;
    net.run(Instant::from_secs(20), |_| false);
    let f_acked = net.host(Node::F).ep.stats().bytes_acked;
    let a = &net.agents[0];
    let (lost, dest_acked) = (counter(a, "acked_not_delivered"), counter(a, "bytes_acked_by_destination"));
    assert!(f_acked > dest_acked, "the sender believes {f_acked} delivered, the mobile confirmed {dest_acked}");
    assert!(lost >= f_acked - dest_acked && lost > 0, "{lost}");
}

#[test]
fn relay_bound_is_respected() {
    const RELAY: u64 = 8_000;
    const N: u64 = 200_000;
    let mut net = network(Node::F, N, RELAY);
    net.set_wireless(Duration::from_millis(5), 500_000);
    net.run(Instant::from_secs(600), all_done);
    assert!(net.host(Node::M).read_in_order_exactly_once(N));
    let relay_max = counter(&net.agents[0], "relay_max_bytes");
    assert!(relay_max > RELAY / 2 && relay_max <= RELAY, "{relay_max}");
    assert!(net.gauge_max[0] <= RELAY);
}

#[test]
fn concurrent_splits_are_independent() {
    let mut hosts = Vec::new();
    for k in 0..3u16 {
        let mut f = Host::new(Node::F, fixed_tcp(), F_PORT + k, M_PORT + k, 100 + k as u32);
        f.ep.connect(Instant::ZERO);
        f.to_send = 20_000 * (k as u64 + 1);
        let mut m = Host::new(Node::M, wireless_tcp(), M_PORT + k, F_PORT + k, 900 + k as u32);
        m.ep.listen();
        hosts.extend([f, m]);
    }
    let mut net = Net::new(hosts, Node::B, vec![AnyAgent::Itcp(itcp(32_000))]);
    net.run(Instant::from_secs(600), all_done);
    for k in 0..3 {
        assert!(net.hosts[2 * k + 1].read_in_order_exactly_once(20_000 * (k as u64 + 1)));
    }
    assert_eq!(counter(&net.agents[0], "connections"), 3);
    assert_eq!(counter(&net.agents[0], "bytes_acked_by_destination"), 120_000);
}

#[test]
fn same_seed_same_run() {
    let run = || {
        let mut net = network(Node::F, 100_000, 16_000);
        net.run(Instant::from_secs(600), all_done);
        (net.now, net.agents[0].counters())
    };
    assert_eq!(run(), run());
}

#[test]
fn wireless_losses_are_recovered_by_the_wireless_half_alone() {
    const N: u64 = 150_000;
    let mut net = network(Node::F, N, 64_000);
    let peg = crate::config::PegConfig { send_drop_rate: 0.2, recv_drop_rate: 0.2, data_only: false, iface: Some(WLAN) };
    net.agents.push(AnyAgent::Peg(crate::peg::Peg::new(peg, RngStream::new(9, "peg"))));
    net.gauge_max.push(0);
    net.run(Instant::from_secs(600), all_done);
    assert!(net.host(Node::M).read_in_order_exactly_once(N));
    assert!(counter(&net.agents[1], "send_dropped") > 0);
    assert_eq!(net.host(Node::F).ep.stats().retransmissions, 0, "the fixed sender never sees a wireless loss");
}
