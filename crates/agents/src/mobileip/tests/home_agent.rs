//! The home agent: registration with its refusals, the binding table,
//! tunnelling, route optimisation and Wi-TCP for mobiles at home.

use airtcp_core::mobileip::{BindingRequest, BindingWarning, MipMsg, RegReply, ReplyCode};
use airtcp_core::{Ipv4Header, WiTcp};

use super::*;
use crate::agent::{InjectAt, NodeEvent};
use crate::mobileip::{HomeAgent, HomeAgentConfig};

fn ha_with(f: impl FnOnce(&mut HomeAgentConfig)) -> HomeAgent {
    let mut cfg = HomeAgentConfig::new(HA, WLAN, vec![MH]);
    f(&mut cfg);
    HomeAgent::new(cfg)
}

fn ha() -> HomeAgent {
    ha_with(|_| {})
}

/// A request relayed by foreign agent 1 at time `t` with a good timestamp.
fn relayed(t: Instant, lifetime: u16, lo: u32) -> Packet {
    let id = Ident { hi: (t.as_millis() / 1000) as u32, lo };
    mip(FA1, HA, MIP_PORT, MipMsg::RegRequest(request(FA1, lifetime, id)))
}

fn reply_of(inj: &[Injection]) -> RegReply {
    assert_eq!(inj.len(), 1, "{inj:?}");
    assert_eq!((inj[0].at, inj[0].pkt.ip.src, inj[0].pkt.ip.dst), (InjectAt::Route, HA, FA1));
    match msg_of(&inj[0]) {
        MipMsg::RegReply(r) => r,
        m => panic!("not a reply: {m:?}"),
    }
}

/// Registered with care-of address FA1 at 5 s for 300 s.
fn registered() -> HomeAgent {
    let mut h = ha();
    assert_eq!(recv(&mut h, ms(5000), WIRED, relayed(ms(5000), 300, 1)), Verdict::Stolen);
    assert_eq!(reply_of(&injected(&mut h)).code, ReplyCode::ACCEPTED);
    h
}

#[test]
fn home_agent_accepts_registration_and_replies_to_the_relaying_agent() {
    let mut h = ha();
    assert_eq!(recv(&mut h, ms(5000), WIRED, relayed(ms(5000), 300, 9)), Verdict::Stolen);
    let inj = injected(&mut h);
    let r = reply_of(&inj);
    assert_eq!(r, RegReply { code: ReplyCode::ACCEPTED, lifetime: 300, home_addr: MH, home_agent: HA, id: Ident { hi: 5, lo: 9 } });
    let udp = match inj[0].pkt.payload {
        airtcp_core::IpPayload::Udp(u) => u,
        _ => unreachable!(),
    };
    assert_eq!((udp.src_port, udp.dst_port), (434, 434));
    let (b, until) = h.binding(MH, ms(5000)).unwrap();
    assert_eq!((b.coa, until), (FA1, ms(305_000)));
    assert_eq!(counter(&h, "registrations_accepted"), 1);
    assert_eq!(logs(&mut h)[0].kind, "mip_registered");
}

#[test]
fn home_agent_tunnels_packets_for_the_home_address_to_the_care_of_address() {
    let mut h = registered();
    assert_eq!(recv(&mut h, ms(6000), WIRED, data(0)), Verdict::Stolen);
    let inj = injected(&mut h);
    assert_eq!(inj.len(), 1);
    let p = inj[0].pkt;
    assert_eq!(inj[0].at, InjectAt::Route);
    assert_eq!(p.outer.map(|o| (o.src, o.dst, o.ttl)), Some((HA, FA1, 64)));
    assert_eq!(p.ip.ttl, 62, "the inner TTL pays for the hop into the tunnel");
    assert_eq!((p.ip.src, p.ip.dst, p.payload), (CH, MH, data(0).payload));
    assert_eq!(p.ip_len(), data(0).ip_len() + 20);
    assert_eq!(counter(&h, "tunnelled"), 1);
    // No route optimisation by default: no Binding Update.
    assert_eq!(counter(&h, "binding_updates_sent"), 0);
}

#[test]
fn home_agent_refuses_wrong_identification() {
    let mut h = ha();
    // The mobile's clock is 100 s ahead of the agent's (max skew 7 s).
    let id = Ident { hi: 105, lo: 77 };
    recv(&mut h, ms(5000), WIRED, mip(FA1, HA, 434, MipMsg::RegRequest(request(FA1, 300, id))));
    let r = reply_of(&injected(&mut h));
    assert_eq!(r.code, ReplyCode::HA_ID_MISMATCH);
    assert_eq!(r.id, Ident { hi: 5, lo: 77 }, "§5.7.1: the agent's time above, the request's low half below");
    assert_eq!(h.binding(MH, ms(5000)), None);
    assert_eq!(counter(&h, "denied_id_mismatch"), 1);
    let l = logs(&mut h);
    assert_eq!((l[0].kind, l[0].value), ("mip_reg_denied", 133));
}

#[test]
fn home_agent_refuses_a_replayed_identification() {
    let mut h = registered();
    recv(&mut h, ms(5500), WIRED, relayed(ms(5000), 300, 1));
    assert_eq!(reply_of(&injected(&mut h)).code, ReplyCode::HA_ID_MISMATCH);
    recv(&mut h, ms(5600), WIRED, relayed(ms(5000), 300, 2));
    assert_eq!(reply_of(&injected(&mut h)).code, ReplyCode::ACCEPTED, "a larger Identification is fresh");
}

#[test]
fn home_agent_grants_at_most_its_longest_lifetime() {
    let mut h = ha();
    recv(&mut h, ms(1000), WIRED, relayed(ms(1000), 0xffff, 1));
    let r = reply_of(&injected(&mut h));
    assert_eq!((r.code, r.lifetime), (ReplyCode::ACCEPTED, 1800));
    assert_eq!(h.binding(MH, ms(1000)).unwrap().1, ms(1_801_000));
}

#[test]
fn home_agent_refuses_strangers_and_requests_for_another_agent() {
    let mut h = ha_with(|c| c.mobiles = vec![[10, 0, 1, 3]]);
    recv(&mut h, ms(1000), WIRED, relayed(ms(1000), 300, 1));
    assert_eq!(reply_of(&injected(&mut h)).code, ReplyCode::HA_ADMIN_PROHIBITED);
    let mut h = ha();
    let mut req = request(FA1, 300, Ident { hi: 1, lo: 1 });
    req.home_agent = [10, 0, 1, 9];
    recv(&mut h, ms(1000), WIRED, mip(FA1, HA, 434, MipMsg::RegRequest(req)));
    assert_eq!(reply_of(&injected(&mut h)).code, ReplyCode::HA_UNKNOWN_HOME_AGENT);
    assert_eq!(counter(&h, "denied_other"), 1);
}

#[test]
fn binding_expires_and_packets_stay_home() {
    let mut h = registered();
    assert_eq!(h.poll_timeout(), Some(ms(305_000)));
    h.handle_timeout(ms(305_000));
    assert_eq!(h.binding(MH, ms(305_000)), None);
    assert_eq!(counter(&h, "bindings_expired"), 1);
    assert_eq!(recv(&mut h, ms(305_001), WIRED, data(0)), Verdict::Accept);
    assert!(injected(&mut h).is_empty());
}

#[test]
fn deregistration_ends_the_tunnel() {
    let mut h = registered();
    let id = Ident { hi: 9, lo: 5 };
    recv(&mut h, ms(9000), WLAN, mip(MH, HA, 434, MipMsg::RegRequest(request(MH, 0, id))));
    let inj = injected(&mut h);
    assert_eq!(inj[0].pkt.ip.dst, MH, "the reply goes back to the request's source");
    assert_eq!(h.binding(MH, ms(9000)), None);
    assert_eq!(counter(&h, "deregistrations"), 1);
    assert_eq!(recv(&mut h, ms(9001), WIRED, data(0)), Verdict::Accept);
}

#[test]
fn expired_ttl_is_dropped_at_the_tunnel_entry() {
    let mut h = registered();
    let mut p = data(0);
    p.ip.ttl = 1;
    assert_eq!(recv(&mut h, ms(6000), WIRED, p), Verdict::Drop);
    assert_eq!(counter(&h, "tunnel_ttl_dropped"), 1);
}

fn bu_of(inj: &Injection) -> (airtcp_core::mobileip::BindingUpdate, [u8; 4]) {
    match msg_of(inj) {
        MipMsg::BindingUpdate(bu) => (bu, inj.pkt.ip.dst),
        m => panic!("not a binding update: {m:?}"),
    }
}

#[test]
fn route_optimisation_updates_the_correspondent_at_most_once_a_second() {
    let mut h = ha_with(|c| c.route_opt = true);
    recv(&mut h, ms(5000), WIRED, relayed(ms(5000), 300, 1));
    injected(&mut h);
    recv(&mut h, ms(6000), WIRED, data(0));
    let inj = injected(&mut h);
    assert_eq!(inj.len(), 2, "the tunnelled packet, then a Binding Update");
    let (bu, to) = bu_of(&inj[1]);
    assert_eq!((to, bu.home_addr, bu.coa, bu.lifetime, bu.id), (CH, MH, FA1, 10, Ident { hi: 5, lo: 1 }));
    recv(&mut h, ms(6500), WIRED, data(1));
    assert_eq!(injected(&mut h).len(), 1, "rate-limited");
    recv(&mut h, ms(7000), WIRED, data(2));
    assert_eq!(injected(&mut h).len(), 2);
}

#[test]
fn home_agent_answers_binding_requests_and_warnings() {
    let mut h = ha_with(|c| c.route_opt = true);
    recv(&mut h, ms(5000), WIRED, relayed(ms(5000), 300, 1));
    injected(&mut h);
    // A Binding Request sent to the home address is intercepted and answered.
    let br = BindingRequest { home_addr: MH, id: Ident { hi: 6, lo: 1 } };
    assert_eq!(recv(&mut h, ms(6000), WIRED, mip(CH, MH, 434, MipMsg::BindingRequest(br))), Verdict::Stolen);
    let inj = injected(&mut h);
    assert_eq!(inj.len(), 1);
    assert_eq!(bu_of(&inj[0]).1, CH);
    // A warning from an old foreign agent names another correspondent.
    let w = BindingWarning { home_addr: MH, correspondent: [10, 0, 9, 9] };
    assert_eq!(recv(&mut h, ms(6001), WIRED, mip(FA1, HA, 434, MipMsg::BindingWarning(w))), Verdict::Stolen);
    let inj = injected(&mut h);
    assert_eq!((bu_of(&inj[0]).1, bu_of(&inj[0]).0.coa), ([10, 0, 9, 9], FA1));
    // Without a binding the update says "at home": lifetime 0.
    let mut h = ha_with(|c| c.route_opt = true);
    recv(&mut h, ms(1), WIRED, mip(CH, MH, 434, MipMsg::BindingRequest(br)));
    let (bu, _) = bu_of(&injected(&mut h)[0]);
    assert_eq!((bu.lifetime, bu.coa), (0, MH));
}

#[test]
fn tunnelled_packets_pass_untouched() {
    let mut h = registered();
    let mut p = data(0);
    p.encapsulate(Ipv4Header { src: CH, dst: MH, ttl: 9, ..Default::default() }).unwrap();
    assert_eq!(recv(&mut h, ms(6000), WIRED, p), Verdict::Accept);
}

#[test]
fn home_agent_freezes_senders_when_its_mac_loses_the_mobile_and_thaws_on_registration() {
    let mut h = ha_with(|c| c.witcp = true);
    // The mobile at home: data leaves by the home interface, ACKs come back.
    for i in 0..4 {
        assert_eq!(send(&mut h, ms(100 + i), WLAN, data(i as u32)), Verdict::Accept);
    }
    recv(&mut h, ms(110), WLAN, ack(2));
    assert_eq!(h.witcp().connections(MH), 1);
    h.on_node_event(ms(200), NodeEvent::TxFailed { iface: WLAN, dst: MH });
    let inj = injected(&mut h);
    assert_eq!(inj.len(), 1);
    assert_eq!(inj[0].at, InjectAt::Route);
    let p = inj[0].pkt;
    let s = p.segment().unwrap();
    assert_eq!((p.ip.src, p.ip.dst, s.src_port, s.dst_port), (MH, CH, MH_PORT, CH_PORT));
    assert_eq!((s.seq, s.ack, s.window, s.flags), (SeqNum(7001), SeqNum(3001), 30_000, TcpFlags::ACK));
    assert_eq!(s.witcp, Some(WiTcp::Eho));
    h.on_node_event(ms(201), NodeEvent::TxFailed { iface: WLAN, dst: MH });
    assert!(injected(&mut h).is_empty(), "one EHO-ACK per disappearance");
    // Registration through foreign agent 1: the EHC-ACK, then the reply.
    recv(&mut h, ms(3000), WIRED, relayed(ms(3000), 300, 1));
    let inj = injected(&mut h);
    assert_eq!(inj.len(), 2);
    assert_eq!(inj[0].pkt.segment().unwrap().witcp, Some(WiTcp::Ehc));
    assert_eq!(inj[0].pkt.segment().unwrap().ack, SeqNum(3001));
    assert_eq!((counter(&h, "eho_sent"), counter(&h, "ehc_sent")), (1, 1));
    let kinds: Vec<&str> = logs(&mut h).iter().map(|l| l.kind).collect();
    assert_eq!(kinds, ["witcp_eho", "mip_registered", "witcp_ehc"]);
}
