//! The foreign agent: advertisements, relaying, refusals, delivery, smooth
//! handoff and Wi-TCP for visitors.

use airtcp_core::mobileip::{adv_flags, BindingUpdate, MipMsg, RegReply, ReplyCode};
use airtcp_core::{Icmp, IpPayload, Ipv4Header, WiTcp};

use super::*;
use crate::agent::{InjectAt, NodeEvent};
use crate::mobileip::{ForeignAgent, ForeignAgentConfig};

fn fa_with(f: impl FnOnce(&mut ForeignAgentConfig)) -> ForeignAgent {
    let mut cfg = ForeignAgentConfig::new(FA1, WLAN);
    cfg.reg_lifetime = 300;
    f(&mut cfg);
    ForeignAgent::new(cfg)
}

fn fa() -> ForeignAgent {
    fa_with(|_| {})
}

const ID: Ident = Ident { hi: 5, lo: 42 };
const MOBILE_PORT: u16 = 49_200;

/// The mobile's request arriving on the wireless link.
fn from_mobile(req: airtcp_core::mobileip::RegRequest) -> Packet {
    mip(MH, FA1, MOBILE_PORT, MipMsg::RegRequest(req))
}

fn ha_reply(code: ReplyCode, lifetime: u16, id: Ident) -> Packet {
    let r = RegReply { code, lifetime, home_addr: MH, home_agent: HA, id };
    mip_packet(HA, FA1, (434, 434), 3, MipMsg::RegReply(r))
}

/// A visitor since 5 s, registered for 300 s.
fn with_visitor(f: impl FnOnce(&mut ForeignAgentConfig)) -> ForeignAgent {
    let mut a = fa_with(f);
    assert_eq!(recv(&mut a, ms(5000), WLAN, from_mobile(request(FA1, 300, ID))), Verdict::Stolen);
    assert_eq!(recv(&mut a, ms(5020), WIRED, ha_reply(ReplyCode::ACCEPTED, 300, ID)), Verdict::Stolen);
    injected(&mut a);
    a
}

fn tunnelled(from: [u8; 4], to: [u8; 4], p: Packet) -> Packet {
    let mut p = p;
    p.encapsulate(Ipv4Header { src: from, dst: to, ttl: 60, ip_id: 1, ..Default::default() }).unwrap();
    p
}

#[test]
fn foreign_agent_advertises_every_interval() {
    let mut a = fa();
    assert_eq!(a.poll_timeout(), Some(ms(0)));
    a.handle_timeout(ms(0));
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1);
    assert_eq!(inj[0].at, InjectAt::Egress(WLAN));
    let p = inj[0].pkt;
    assert_eq!((p.ip.src, p.ip.dst, p.ip.ttl), (FA1, [255; 4], 1), "RFC 5944 §2.1: TTL 1");
    let IpPayload::Icmp(Icmp::AgentAdvert(adv)) = p.payload else { panic!("{p:?}") };
    assert_eq!((adv.seq, adv.reg_lifetime, adv.ra_lifetime, adv.coas()), (0, 300, 3, &[FA1][..]));
    assert_eq!(adv.flags, adv_flags::R | adv_flags::F);
    assert_eq!(a.poll_timeout(), Some(ms(1000)));
    a.handle_timeout(ms(1000));
    let IpPayload::Icmp(Icmp::AgentAdvert(adv)) = injected(&mut a)[0].pkt.payload else { panic!() };
    assert_eq!(adv.seq, 1);
}

#[test]
fn foreign_agent_relays_the_request_and_the_reply() {
    let mut a = fa();
    assert_eq!(recv(&mut a, ms(5000), WLAN, from_mobile(request(FA1, 300, ID))), Verdict::Stolen);
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1);
    assert_eq!((inj[0].at, inj[0].pkt.ip.src, inj[0].pkt.ip.dst), (InjectAt::Route, FA1, HA));
    assert_eq!(msg_of(&inj[0]), MipMsg::RegRequest(request(FA1, 300, ID)));
    assert_eq!(recv(&mut a, ms(5020), WIRED, ha_reply(ReplyCode::ACCEPTED, 300, ID)), Verdict::Stolen);
    let inj = injected(&mut a);
    assert_eq!((inj[0].at, inj[0].pkt.ip.src, inj[0].pkt.ip.dst), (InjectAt::Egress(WLAN), FA1, MH));
    match inj[0].pkt.payload {
        IpPayload::Udp(u) => assert_eq!((u.src_port, u.dst_port), (434, MOBILE_PORT)),
        _ => panic!(),
    }
    assert_eq!(a.visitor(MH, ms(5020)).map(|v| v.home_agent), Some(HA));
    assert_eq!(a.visitor(MH, ms(305_020)), None, "the granted lifetime");
    assert_eq!((counter(&a, "requests_relayed"), counter(&a, "replies_relayed")), (1, 1));
}

#[test]
fn foreign_agent_refuses_too_long_a_lifetime_with_69() {
    let mut a = fa();
    recv(&mut a, ms(5000), WLAN, from_mobile(request(FA1, 301, ID)));
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1, "answered on the spot, not relayed");
    assert_eq!(inj[0].at, InjectAt::Egress(WLAN));
    let MipMsg::RegReply(r) = msg_of(&inj[0]) else { panic!() };
    assert_eq!((r.code, r.lifetime, r.id), (ReplyCode::FA_LIFETIME_TOO_LONG, 300, ID));
    assert_eq!(counter(&a, "requests_denied"), 1);
}

#[test]
fn foreign_agent_refuses_another_care_of_address_with_77() {
    let mut a = fa();
    recv(&mut a, ms(5000), WLAN, from_mobile(request(FA2, 300, ID)));
    let MipMsg::RegReply(r) = msg_of(&injected(&mut a)[0]) else { panic!() };
    assert_eq!(r.code, ReplyCode::FA_INVALID_COA);
}

#[test]
fn unanswered_request_times_out_with_78() {
    let mut a = fa();
    a.handle_timeout(ms(0));
    injected(&mut a);
    recv(&mut a, ms(5000), WLAN, from_mobile(request(FA1, 300, ID)));
    injected(&mut a);
    run_timers(&mut a, ms(11_999));
    assert!(injected(&mut a).iter().all(|i| i.pkt.mip().is_none()), "only advertisements before 12 s");
    run_timers(&mut a, ms(12_000));
    let inj = injected(&mut a);
    let reply = inj.iter().find_map(|i| match i.pkt.mip() {
        Some(MipMsg::RegReply(r)) => Some(*r),
        _ => None,
    });
    assert_eq!(reply.map(|r| r.code), Some(ReplyCode::FA_REGISTRATION_TIMEOUT));
    assert_eq!(counter(&a, "registration_timeouts"), 1);
    // A late reply no longer matches anything.
    recv(&mut a, ms(12_100), WIRED, ha_reply(ReplyCode::ACCEPTED, 300, ID));
    assert_eq!(counter(&a, "unmatched_replies"), 1);
    assert_eq!(a.visitor(MH, ms(12_100)), None);
}

#[test]
fn reply_with_another_identification_is_not_relayed() {
    let mut a = fa();
    recv(&mut a, ms(5000), WLAN, from_mobile(request(FA1, 300, ID)));
    injected(&mut a);
    recv(&mut a, ms(5010), WIRED, ha_reply(ReplyCode::ACCEPTED, 300, Ident { hi: 5, lo: 43 }));
    assert!(injected(&mut a).is_empty());
    assert_eq!(counter(&a, "unmatched_replies"), 1);
}

#[test]
fn foreign_agent_decapsulates_and_delivers_to_its_visitor() {
    let mut a = with_visitor(|_| {});
    assert_eq!(recv(&mut a, ms(6000), WIRED, tunnelled(HA, FA1, data(0))), Verdict::Stolen);
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1);
    assert_eq!(inj[0].at, InjectAt::Egress(WLAN));
    let mut want = data(0);
    want.ip.ttl -= 1;
    assert_eq!(inj[0].pkt, want);
    assert_eq!(counter(&a, "delivered"), 1);
}

#[test]
fn tunnelled_packet_for_a_stranger_is_dropped_and_counted() {
    let mut a = with_visitor(|_| {});
    let mut p = data(0);
    p.ip.dst = [10, 0, 1, 77];
    assert_eq!(recv(&mut a, ms(6000), WIRED, tunnelled(HA, FA1, p)), Verdict::Drop);
    assert_eq!(counter(&a, "tunnel_dropped"), 1);
    // Someone else's tunnel passes by.
    assert_eq!(recv(&mut a, ms(6000), WIRED, tunnelled(HA, FA2, data(0))), Verdict::Accept);
}

fn moved_to_fa2(a: &mut ForeignAgent, t: Instant) {
    let bu = BindingUpdate { flags: 0, lifetime: 10, home_addr: MH, coa: FA2, id: Ident { hi: 40, lo: 1 } };
    assert_eq!(recv(a, t, WIRED, mip(MH, FA1, 434, MipMsg::BindingUpdate(bu))), Verdict::Stolen);
}

#[test]
fn smooth_handoff_forwards_what_still_arrives_and_warns_the_home_agent() {
    let mut a = with_visitor(|c| c.route_opt = true);
    moved_to_fa2(&mut a, ms(40_000));
    assert_eq!(a.visitor(MH, ms(40_000)), None);
    assert_eq!(a.forwarding(MH, ms(40_000)).map(|f| f.coa), Some(FA2));
    // From the home agent's tunnel: re-tunnelled, no warning (it knows).
    assert_eq!(recv(&mut a, ms(40_010), WIRED, tunnelled(HA, FA1, data(0))), Verdict::Stolen);
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1);
    assert_eq!((inj[0].at, inj[0].pkt.outer.map(|o| (o.src, o.dst))), (InjectAt::Route, Some((FA1, FA2))));
    assert_eq!(inj[0].pkt.ip.ttl, 62);
    // From a correspondent with a stale binding: forwarded, and a warning.
    recv(&mut a, ms(40_020), WIRED, tunnelled(CH, FA1, data(1)));
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 2);
    assert_eq!(inj[1].pkt.ip.dst, HA);
    assert_eq!(
        msg_of(&inj[1]),
        MipMsg::BindingWarning(airtcp_core::mobileip::BindingWarning { home_addr: MH, correspondent: CH })
    );
    recv(&mut a, ms(40_030), WIRED, tunnelled(CH, FA1, data(2)));
    assert_eq!(injected(&mut a).len(), 1, "one warning a second");
    assert_eq!((counter(&a, "forwarded"), counter(&a, "binding_warnings_sent")), (3, 1));
    // The pointer lapses after its lifetime; then packets are dropped.
    run_timers(&mut a, ms(50_000));
    injected(&mut a);
    assert_eq!(recv(&mut a, ms(50_001), WIRED, tunnelled(HA, FA1, data(3))), Verdict::Drop);
}

#[test]
fn without_route_optimisation_a_binding_update_is_not_taken() {
    let mut a = with_visitor(|_| {});
    let bu = BindingUpdate { flags: 0, lifetime: 10, home_addr: MH, coa: FA2, id: ID };
    assert_eq!(recv(&mut a, ms(40_000), WIRED, mip(MH, FA1, 434, MipMsg::BindingUpdate(bu))), Verdict::Accept);
    assert!(a.visitor(MH, ms(40_000)).is_some());
}

#[test]
fn foreign_agent_sends_eho_ack_on_tx_failure_and_ehc_ack_on_binding_update() {
    let mut a = with_visitor(|c| {
        c.route_opt = true;
        c.witcp = true;
    });
    for i in 0..3 {
        recv(&mut a, ms(6000 + i), WIRED, tunnelled(HA, FA1, data(i as u32)));
    }
    recv(&mut a, ms(6010), WLAN, ack(1));
    injected(&mut a);
    // Not a visitor, or another interface: nothing.
    a.on_node_event(ms(7000), NodeEvent::TxFailed { iface: WLAN, dst: [10, 0, 1, 99] });
    a.on_node_event(ms(7000), NodeEvent::TxFailed { iface: WIRED, dst: MH });
    assert!(injected(&mut a).is_empty());
    a.on_node_event(ms(7000), NodeEvent::TxFailed { iface: WLAN, dst: MH });
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1);
    let s = *inj[0].pkt.segment().unwrap();
    assert_eq!((inj[0].pkt.ip.src, inj[0].pkt.ip.dst), (MH, CH));
    assert_eq!((s.seq, s.ack, s.witcp), (SeqNum(7001), SeqNum(2001), Some(WiTcp::Eho)));
    moved_to_fa2(&mut a, ms(9000));
    let inj = injected(&mut a);
    assert_eq!(inj.len(), 1);
    assert_eq!(inj[0].pkt.segment().unwrap().witcp, Some(WiTcp::Ehc));
    assert_eq!((counter(&a, "eho_sent"), counter(&a, "ehc_sent")), (1, 1));
}

#[test]
fn new_foreign_agent_notifies_the_previous_one_on_the_mobiles_behalf() {
    let mut a = fa_with(|c| c.route_opt = true);
    let bu = BindingUpdate { flags: 0, lifetime: 10, home_addr: MH, coa: FA1, id: ID };
    assert_eq!(recv(&mut a, ms(1), WLAN, mip(MH, FA2, 434, MipMsg::BindingUpdate(bu))), Verdict::Stolen);
    let inj = injected(&mut a);
    assert_eq!((inj[0].at, inj[0].pkt.ip.src, inj[0].pkt.ip.dst), (InjectAt::Route, FA1, FA2));
    assert_eq!(msg_of(&inj[0]), MipMsg::BindingUpdate(bu));
    assert_eq!(counter(&a, "previous_agents_notified"), 1);
    // Without route optimisation the mobile's packet is just routed.
    let mut a = fa();
    assert_eq!(recv(&mut a, ms(1), WLAN, mip(MH, FA2, 434, MipMsg::BindingUpdate(bu))), Verdict::Accept);
}
