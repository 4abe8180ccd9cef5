//! Any sequence of packets, node events and timeouts, however wrong (forged
//! replies, stray bindings, tunnels to strangers, zero lifetimes, TTL 1),
//! leaves every Mobile IP agent panic-free with its timers in the future.

use proptest::prelude::*;

use airtcp_core::mobileip::{
    AgentAdvert, BindingAck, BindingRequest, BindingUpdate, BindingWarning, RegReply, RegRequest, ReplyCode,
};
use airtcp_core::{Duration, Icmp, IpPayload, Ipv4Header, WiTcp};

use super::*;
use crate::agent::NodeEvent;
use crate::mobileip::*;

const ADDRS: [[u8; 4]; 7] = [CH, HA, MH, FA1, FA2, [255, 255, 255, 255], [10, 0, 1, 3]];

fn addr() -> impl Strategy<Value = [u8; 4]> {
    (0usize..ADDRS.len()).prop_map(|i| ADDRS[i])
}

fn msg() -> impl Strategy<Value = MipMsg> {
    (0u8..6, addr(), addr(), any::<u16>(), any::<u8>(), (0u32..20, 0u32..4), any::<bool>()).prop_map(
        |(k, a, b, lifetime, byte, (hi, lo), flag)| {
            let id = Ident { hi, lo };
            match k {
                0 => MipMsg::RegRequest(RegRequest { flags: byte, lifetime, home_addr: MH, home_agent: a, coa: b, id }),
                1 => MipMsg::RegReply(RegReply { code: ReplyCode(byte), lifetime, home_addr: a, home_agent: b, id }),
                2 => MipMsg::BindingWarning(BindingWarning { home_addr: a, correspondent: b }),
                3 => MipMsg::BindingRequest(BindingRequest { home_addr: a, id }),
                4 => MipMsg::BindingUpdate(BindingUpdate { flags: byte, lifetime: lifetime % 20, home_addr: a, coa: b, id }),
                _ => MipMsg::BindingAck(BindingAck { nack: flag, home_addr: a, coa: b, id }),
            }
        },
    )
}

fn packet() -> impl Strategy<Value = Packet> {
    let payload = prop_oneof![
        msg().prop_map(|m| mip_packet(CH, CH, (434, 434), 0, m).payload),
        (0u32..50, any::<bool>(), 0u8..3).prop_map(|(i, up, sig)| {
            let mut p = if up { ack(i) } else { data(i) };
            if let Some(s) = p.segment_mut() {
                s.witcp = [None, Some(WiTcp::Eho), Some(WiTcp::Ehc)][sig as usize];
            }
            p.payload
        }),
        (addr(), 0u16..5).prop_map(|(coa, life)| {
            let mut a = AgentAdvert { ra_lifetime: life, flags: (life as u8) << 4, ..Default::default() };
            a.push_coa(coa);
            IpPayload::Icmp(Icmp::AgentAdvert(a))
        }),
    ];
    (addr(), addr(), payload, proptest::option::of((addr(), addr())), 0u8..3).prop_map(|(src, dst, payload, outer, ttl)| {
        let ip = Ipv4Header { src, dst, ttl, ..Default::default() };
        let outer = outer.map(|(s, d)| Ipv4Header { src: s, dst: d, ttl: 9, ..Default::default() });
        Packet { ip, outer, payload }
    })
}

#[derive(Clone, Debug)]
enum Step {
    Packet(u8, bool, Packet),
    Event(u8, [u8; 4]),
    Wait(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u8..4, any::<bool>(), packet()).prop_map(|(h, w, p)| Step::Packet(h, w, p)),
        1 => (0u8..3, addr()).prop_map(|(k, a)| Step::Event(k, a)),
        1 => (0u64..20_000).prop_map(Step::Wait),
    ]
}

fn drive(a: &mut dyn Agent, steps: &[Step]) {
    let mut now = Instant::ZERO;
    for s in steps {
        match s {
            Step::Wait(dt) => {
                let until = now + Duration::from_millis(*dt);
                while let Some(t) = a.poll_timeout().filter(|&t| t <= until) {
                    now = now.max(t);
                    a.handle_timeout(now);
                    assert!(a.poll_timeout().map_or(true, |n| n > now), "a timer due now stays due");
                }
                now = until;
            }
            Step::Packet(h, wlan, p) => {
                let hook = [Hook::Ingress, Hook::LocalIn, Hook::Forward, Hook::Egress][*h as usize];
                let mut p = *p;
                a.on_packet(now, hook, if *wlan { WLAN } else { WIRED }, &mut p);
            }
            Step::Event(k, addr) => {
                let ev = match k {
                    0 => NodeEvent::TxFailed { iface: WLAN, dst: *addr },
                    1 => NodeEvent::Associated { iface: WLAN, ap: *addr },
                    _ => NodeEvent::LinkLost { iface: WLAN },
                };
                a.on_node_event(now, ev);
            }
        }
        while a.poll_injection().is_some() {}
        while a.poll_log().is_some() {}
        let _ = a.counters();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn no_input_sequence_panics_an_agent(steps in proptest::collection::vec(step(), 1..60)) {
        let mut hcfg = HomeAgentConfig::new(HA, WLAN, vec![MH]);
        hcfg.route_opt = true;
        hcfg.witcp = true;
        let mut fcfg = ForeignAgentConfig::new(FA1, WLAN);
        fcfg.route_opt = true;
        fcfg.witcp = true;
        fcfg.max_visitors = 1;
        let mut mcfg = MobileNodeConfig::new(MH, HA, WLAN);
        mcfg.smooth_handoff = true;
        let agents: [Box<dyn Agent>; 4] = [
            Box::new(HomeAgent::new(hcfg)),
            Box::new(ForeignAgent::new(fcfg)),
            Box::new(MobileNode::new(mcfg)),
            Box::new(Correspondent::new(CorrespondentConfig::new(CH))),
        ];
        for mut a in agents {
            drive(a.as_mut(), &steps);
        }
    }
}
