//! The mobile node: movement detection, registration, retransmission,
//! resynchronisation, smooth handoff, return home.

use airtcp_core::mobileip::{adv_flags, AgentAdvert, MipMsg, RegReply, ReplyCode};
use airtcp_core::{Icmp, IpPayload, Ipv4Header};

use super::*;
use crate::agent::{Hook, InjectAt, Injection, NodeEvent};
use airtcp_core::{SeqNum, TcpFlags};
use crate::mobileip::{MobileNode, MobileNodeConfig, MobileState};

fn mn_with(f: impl FnOnce(&mut MobileNodeConfig)) -> MobileNode {
    let mut cfg = MobileNodeConfig::new(MH, HA, WLAN);
    f(&mut cfg);
    MobileNode::new(cfg)
}

fn advert(from: [u8; 4], home: bool) -> Packet {
    let mut a = AgentAdvert { ra_lifetime: 3, router: Some((from, 0)), seq: 1, reg_lifetime: 300, ..Default::default() };
    if home {
        a.flags = adv_flags::H;
    } else {
        a.flags = adv_flags::R | adv_flags::F;
        a.push_coa(from);
    }
    let ip = Ipv4Header { src: from, dst: [255; 4], ttl: 1, ..Default::default() };
    Packet { ip, outer: None, payload: IpPayload::Icmp(Icmp::AgentAdvert(a)) }
}

/// The request(s) and other messages the mobile sent.
fn sent(m: &mut MobileNode) -> Vec<(MipMsg, [u8; 4])> {
    injected(m)
        .into_iter()
        .map(|i| {
            assert_eq!((i.at, i.pkt.ip.src), (InjectAt::Egress(WLAN), MH));
            (msg_of(&i), i.pkt.ip.dst)
        })
        .collect()
}

fn the_request(m: &mut MobileNode) -> (airtcp_core::mobileip::RegRequest, [u8; 4]) {
    match sent(m).as_slice() {
        [(MipMsg::RegRequest(r), dst)] => (*r, *dst),
        other => panic!("expected one request: {other:?}"),
    }
}

fn reply(code: ReplyCode, lifetime: u16, id: Ident) -> Packet {
    let r = RegReply { code, lifetime, home_addr: MH, home_agent: HA, id };
    mip_packet(FA1, MH, (434, 434), 1, MipMsg::RegReply(r))
}

#[test]
fn mobile_node_registers_through_the_first_foreign_agent_heard() {
    let mut m = mn_with(|_| {});
    assert_eq!(recv(&mut m, ms(11_600), WLAN, advert(FA1, false)), Verdict::Stolen);
    let (req, dst) = the_request(&mut m);
    assert_eq!(dst, FA1);
    assert_eq!((req.home_addr, req.home_agent, req.coa, req.lifetime), (MH, HA, FA1, 300), "min(1800, advertised 300)");
    assert_eq!(req.id, Ident { hi: 11, lo: 1 }, "timestamp above, counter below");
    assert_eq!(m.state(), MobileState::Registering { agent: FA1 });
    recv(&mut m, ms(11_650), WLAN, reply(ReplyCode::ACCEPTED, 300, req.id));
    assert_eq!(m.state(), MobileState::Registered { coa: FA1, until: ms(311_650) });
    assert_eq!(counter(&m, "registrations_accepted"), 1);
    // Renewal at 90 % of the lifetime, while the agent is still heard.
    for t in (12_000..=281_000).step_by(1000) {
        recv(&mut m, ms(t), WLAN, advert(FA1, false));
        run_timers(&mut m, ms(t));
    }
    assert!(sent(&mut m).is_empty());
    recv(&mut m, ms(281_650), WLAN, advert(FA1, false));
    run_timers(&mut m, ms(281_650));
    let (req, _) = the_request(&mut m);
    assert_eq!(req.coa, FA1);
}

#[test]
fn mobile_node_retransmits_with_doubling_timeout_then_gives_up() {
    let mut m = mn_with(|c| c.retx_max = 2);
    recv(&mut m, ms(1000), WLAN, advert(FA1, false));
    let (first, _) = the_request(&mut m);
    let mut times = Vec::new();
    while let Some(t) = m.poll_timeout().filter(|&t| t <= ms(20_000)) {
        // Keep the agent alive, so only the request timer matters.
        recv(&mut m, t, WLAN, advert(FA1, false));
        m.handle_timeout(t);
        for (msg, _) in sent(&mut m) {
            if let MipMsg::RegRequest(r) = msg {
                assert_ne!(r.id, first.id, "a fresh Identification each time");
                times.push(t);
            }
        }
    }
    assert_eq!(times, [ms(2000), ms(4000)]);
    assert_eq!(counter(&m, "retransmissions"), 2);
    assert_eq!(counter(&m, "gave_up"), 1);
    assert_eq!(m.state(), MobileState::Unknown);
}

#[test]
fn mobile_node_resynchronises_its_clock_after_identification_mismatch() {
    let mut m = mn_with(|c| c.clock_offset_s = 500);
    recv(&mut m, ms(2000), WLAN, advert(FA1, false));
    let (req, _) = the_request(&mut m);
    assert_eq!(req.id.hi, 502);
    recv(&mut m, ms(2050), WLAN, reply(ReplyCode::HA_ID_MISMATCH, 0, Ident { hi: 2, lo: req.id.lo }));
    let (again, _) = the_request(&mut m);
    assert_eq!(again.id.hi, 2, "the home agent's clock");
    assert_ne!(again.id.lo, req.id.lo);
    assert_eq!(counter(&m, "clock_resyncs"), 1);
}

#[test]
fn mobile_node_retries_with_the_lifetime_a_foreign_agent_offers() {
    let mut m = mn_with(|_| {});
    recv(&mut m, ms(2000), WLAN, advert(FA1, false));
    let (req, _) = the_request(&mut m);
    recv(&mut m, ms(2010), WLAN, reply(ReplyCode::FA_LIFETIME_TOO_LONG, 120, req.id));
    let (again, _) = the_request(&mut m);
    assert_eq!(again.lifetime, 120);
    // Any other refusal ends the attempt.
    recv(&mut m, ms(2020), WLAN, reply(ReplyCode::FA_INVALID_COA, 0, again.id));
    assert!(sent(&mut m).is_empty());
    assert_eq!(m.state(), MobileState::Unknown);
    assert_eq!(counter(&m, "registrations_denied"), 1);
}

#[test]
fn lazy_movement_detection_waits_for_the_link_or_the_lifetime() {
    let mut m = mn_with(|c| c.smooth_handoff = true);
    recv(&mut m, ms(1000), WLAN, advert(FA1, false));
    let (req, _) = the_request(&mut m);
    recv(&mut m, ms(1010), WLAN, reply(ReplyCode::ACCEPTED, 300, req.id));
    // Another agent while the first is heard: ignored.
    recv(&mut m, ms(1500), WLAN, advert(FA2, false));
    assert!(sent(&mut m).is_empty());
    // The link layer reports a new association: the next advertisement decides.
    m.on_node_event(ms(42_500), NodeEvent::Associated { iface: WLAN, ap: FA2 });
    recv(&mut m, ms(42_600), WLAN, advert(FA2, false));
    let msgs = sent(&mut m);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    let MipMsg::RegRequest(r) = msgs[0].0 else { panic!() };
    assert_eq!((r.coa, msgs[0].1), (FA2, FA2));
    let MipMsg::BindingUpdate(bu) = msgs[1].0 else { panic!() };
    assert_eq!((msgs[1].1, bu.home_addr, bu.coa, bu.lifetime), (FA1, MH, FA2, 10), "smooth handoff to the previous agent");
    assert_eq!(counter(&m, "movements"), 2);
}

#[test]
fn advertisement_lifetime_expiry_also_moves_on() {
    let mut m = mn_with(|_| {});
    recv(&mut m, ms(1000), WLAN, advert(FA1, false));
    let (req, _) = the_request(&mut m);
    recv(&mut m, ms(1010), WLAN, reply(ReplyCode::ACCEPTED, 300, req.id));
    run_timers(&mut m, ms(4000));
    assert_eq!(logs(&mut m).last().map(|l| l.kind), Some("mip_agent_lost"));
    recv(&mut m, ms(4500), WLAN, advert(FA2, false));
    assert_eq!(the_request(&mut m).1, FA2);
}

#[test]
fn back_home_the_mobile_deregisters_with_its_home_agent() {
    let mut m = mn_with(|c| c.smooth_handoff = true);
    // Starting at home sends nothing.
    recv(&mut m, ms(0), WLAN, advert(HA, true));
    assert!(sent(&mut m).is_empty());
    assert_eq!(m.state(), MobileState::AtHome);
    m.on_node_event(ms(11_500), NodeEvent::LinkLost { iface: WLAN });
    recv(&mut m, ms(11_600), WLAN, advert(FA1, false));
    let (req, _) = the_request(&mut m);
    recv(&mut m, ms(11_700), WLAN, reply(ReplyCode::ACCEPTED, 300, req.id));
    m.on_node_event(ms(15_600), NodeEvent::Associated { iface: WLAN, ap: HA });
    recv(&mut m, ms(15_700), WLAN, advert(HA, true));
    let msgs = sent(&mut m);
    let MipMsg::RegRequest(r) = msgs[0].0 else { panic!() };
    assert_eq!((msgs[0].1, r.lifetime, r.coa), (HA, 0, MH), "straight to the home agent");
    let MipMsg::BindingUpdate(bu) = msgs[1].0 else { panic!() };
    assert_eq!((msgs[1].1, bu.coa), (FA1, MH), "the old agent sends what still arrives home");
    let reply = RegReply { code: ReplyCode::ACCEPTED, lifetime: 0, home_addr: MH, home_agent: HA, id: r.id };
    recv(&mut m, ms(15_720), WLAN, mip_packet(HA, MH, (434, 434), 1, MipMsg::RegReply(reply)));
    assert_eq!(m.state(), MobileState::AtHome);
}

#[test]
fn replies_for_someone_else_pass() {
    let mut m = mn_with(|_| {});
    let mut p = reply(ReplyCode::ACCEPTED, 300, Ident::default());
    p.ip.dst = [10, 0, 1, 3];
    assert_eq!(recv(&mut m, ms(1), WLAN, p), Verdict::Accept);
    assert_eq!(recv(&mut m, ms(1), WLAN, data(0)), Verdict::Accept);
}

/// The packets a mobile with `ehn` injected besides Mobile IP messages.
fn notifications(m: &mut MobileNode) -> Vec<Injection> {
    injected(m).into_iter().filter(|i| i.pkt.mip().is_none()).collect()
}

#[test]
fn mobile_node_with_ehn_notifies_each_peer_when_it_hears_a_new_agent() {
    let mut m = mn_with(|c| c.ehn = true);
    // Starts at home: the first agent heard is no handover.
    recv(&mut m, ms(500), WLAN, advert(HA, true));
    let mut seg = data(3);
    m.on_packet(ms(600), Hook::LocalIn, WLAN, &mut seg);
    send(&mut m, ms(601), WLAN, ack(4));
    assert!(notifications(&mut m).is_empty());
    m.on_node_event(ms(11_500), NodeEvent::LinkLost { iface: WLAN });
    recv(&mut m, ms(12_100), WLAN, advert(FA1, false));
    let n = notifications(&mut m);
    assert_eq!(n.len(), 1);
    let (ip, s) = (n[0].pkt.ip, n[0].pkt.segment().expect("a TCP segment"));
    assert_eq!((n[0].at, ip.src, ip.dst), (InjectAt::Route, MH, CH));
    assert_eq!((s.src_port, s.dst_port, s.flags), (MH_PORT, CH_PORT, TcpFlags::ACK));
    assert_eq!((s.ack, s.seq, s.window), (SeqNum(1001 + 4000), SeqNum(7001), 30_000), "numbered from the host's last ACK");
    assert_eq!(s.witcp, Some(airtcp_core::WiTcp::Ehn));
    assert_eq!(counter(&m, "ehn_sent"), 1);
    assert!(logs(&mut m).iter().any(|l| l.kind == "ehn_sent"));
    // The same agent heard again is no new handover.
    recv(&mut m, ms(13_100), WLAN, advert(FA1, false));
    assert!(notifications(&mut m).is_empty());
}

#[test]
fn mobile_node_with_ehn_is_silent_when_its_own_agent_lapses_and_is_heard_again() {
    let mut m = mn_with(|c| c.ehn = true);
    recv(&mut m, ms(500), WLAN, advert(HA, true));
    send(&mut m, ms(601), WLAN, ack(4));
    m.on_node_event(ms(11_500), NodeEvent::LinkLost { iface: WLAN });
    recv(&mut m, ms(12_100), WLAN, advert(FA1, false));
    let out = injected(&mut m);
    assert_eq!(out.iter().filter(|i| i.pkt.mip().is_none()).count(), 1, "one notification for the handover");
    let id = out.iter().find_map(|i| match i.pkt.mip() {
        Some(MipMsg::RegRequest(r)) => Some(r.id),
        _ => None,
    });
    recv(&mut m, ms(12_130), WLAN, reply(ReplyCode::ACCEPTED, 300, id.expect("a registration request")));
    // Two advertisements lost on the air: the 3 s lifetime lapses, the
    // agent is forgotten, and the next one is heard as if new.
    m.handle_timeout(ms(15_100));
    assert!(logs(&mut m).iter().any(|l| l.kind == "mip_agent_lost"));
    recv(&mut m, ms(15_101), WLAN, advert(FA1, false));
    assert!(notifications(&mut m).is_empty(), "still registered through FA1: no handover to notify");
    assert_eq!(counter(&m, "ehn_sent"), 1);
}

#[test]
fn mobile_node_without_ehn_sends_no_notification() {
    let mut m = mn_with(|_| {});
    recv(&mut m, ms(500), WLAN, advert(HA, true));
    send(&mut m, ms(601), WLAN, ack(4));
    m.on_node_event(ms(11_500), NodeEvent::LinkLost { iface: WLAN });
    recv(&mut m, ms(12_100), WLAN, advert(FA1, false));
    assert!(notifications(&mut m).is_empty());
    assert_eq!(counter(&m, "ehn_sent"), 0);
}
