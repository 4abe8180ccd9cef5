//! Every role together, no simulator: a correspondent host CH (a real
//! Wi-TCP sender with a binding cache), a home agent, two foreign agents and
//! a mobile node (a real receiver) joined by a toy network with fixed
//! delays. The mobile leaves home (the home agent's MAC fails: EHO-ACK),
//! registers through FA1 (the home agent thaws the sender: EHC-ACK), leaves
//! FA1 (EHO-ACK from FA1) and registers through FA2 (the Binding Update FA2
//! sends FA1 on its behalf makes FA1 send the EHC-ACK and forward what
//! still arrives; FA1's
//! Binding Warning makes the home agent update the correspondent).

use std::collections::BTreeMap;

use airtcp_core::{Duration, IpPayload};
use airtcp_tcp::{Endpoint, TcpConfig};

use super::*;
use crate::agent::{InjectAt, NodeEvent};
use crate::mobileip::*;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Node {
    Ch,
    Ha,
    Fa1,
    Fa2,
    Mn,
}

/// Where the mobile is attached: the base station of its cell, or nowhere.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Home,
    Fa1,
    Fa2,
    None,
}

const WIRED_DELAY: Duration = Duration::from_millis(5);
const RADIO_DELAY: Duration = Duration::from_millis(2);

struct Net {
    now: Instant,
    /// (arrival, order) → (node, interface, packet)
    q: BTreeMap<(Instant, u64), (Node, IfaceId, Packet)>,
    order: u64,
    cell: Cell,
    ch: Endpoint,
    cn: Correspondent,
    ha: HomeAgent,
    fa1: ForeignAgent,
    fa2: ForeignAgent,
    mn: MobileNode,
    mh: Endpoint,
    delivered: u64,
    ip_id: u16,
}

impl Net {
    fn new() -> Net {
        Net::with(true, true)
    }

    /// `witcp`: the sender and the agents; `route_opt`: agents, mobile and binding cache.
    fn with(witcp: bool, route_opt: bool) -> Net {
        let sender = TcpConfig { witcp, ..TcpConfig::default() };
        let mut ch = Endpoint::new(sender, CH_PORT, MH_PORT, SeqNum(1000)).unwrap();
        let mut mh = Endpoint::new(TcpConfig::default(), MH_PORT, CH_PORT, SeqNum(7000)).unwrap();
        mh.listen();
        ch.connect(Instant::ZERO);
        ch.send(1 << 30);
        let mut hcfg = HomeAgentConfig::new(HA, WLAN, vec![MH]);
        hcfg.route_opt = route_opt;
        hcfg.witcp = witcp;
        let fa = |addr| {
            let mut c = ForeignAgentConfig::new(addr, WLAN);
            c.route_opt = route_opt;
            c.witcp = witcp;
            ForeignAgent::new(c)
        };
        let mut mcfg = MobileNodeConfig::new(MH, HA, WLAN);
        mcfg.smooth_handoff = route_opt;
        Net {
            now: Instant::ZERO,
            q: BTreeMap::new(),
            order: 0,
            cell: Cell::Home,
            ch,
            cn: Correspondent::new(CorrespondentConfig::new(CH)),
            ha: HomeAgent::new(hcfg),
            fa1: fa(FA1),
            fa2: fa(FA2),
            mn: MobileNode::new(mcfg),
            mh,
            delivered: 0,
            ip_id: 0,
        }
    }

    fn push(&mut self, delay: Duration, node: Node, iface: IfaceId, pkt: Packet) {
        self.order += 1;
        self.q.insert((self.now + delay, self.order), (node, iface, pkt));
    }

    /// The wired network: by the routing header's destination.
    fn route(&mut self, pkt: Packet) {
        let dst = pkt.net_header().dst;
        let node = match dst {
            CH => Node::Ch,
            FA1 => Node::Fa1,
            FA2 => Node::Fa2,
            [10, 0, 1, _] => Node::Ha,
            _ => return,
        };
        self.push(WIRED_DELAY, node, WIRED, pkt);
    }

    /// A base station's radio: to the mobile if it is in that cell, else
    /// the MAC gives up on unicast frames (TxFailed) and broadcasts vanish.
    fn radio_to_mobile(&mut self, from: Cell, pkt: Packet) {
        if self.cell == from {
            self.push(RADIO_DELAY, Node::Mn, WLAN, pkt);
        } else if pkt.ip.dst != [255; 4] {
            let ev = NodeEvent::TxFailed { iface: WLAN, dst: pkt.ip.dst };
            match from {
                Cell::Home => self.ha.on_node_event(self.now, ev),
                Cell::Fa1 => self.fa1.on_node_event(self.now, ev),
                Cell::Fa2 => self.fa2.on_node_event(self.now, ev),
                Cell::None => {}
            }
        }
    }

    /// The mobile's radio: to the base station of its cell.
    fn radio_from_mobile(&mut self, pkt: Packet) {
        let node = match self.cell {
            Cell::Home => Node::Ha,
            Cell::Fa1 => Node::Fa1,
            Cell::Fa2 => Node::Fa2,
            Cell::None => return,
        };
        self.push(RADIO_DELAY, node, WLAN, pkt);
    }

    fn agent(&mut self, node: Node) -> &mut dyn Agent {
        match node {
            Node::Ch => &mut self.cn,
            Node::Ha => &mut self.ha,
            Node::Fa1 => &mut self.fa1,
            Node::Fa2 => &mut self.fa2,
            Node::Mn => &mut self.mn,
        }
    }

    fn drain_agent(&mut self, node: Node) {
        while let Some(inj) = self.agent(node).poll_injection() {
            match (node, inj.at) {
                (Node::Mn, _) => self.radio_from_mobile(inj.pkt),
                (Node::Ha, InjectAt::Egress(_)) => self.radio_to_mobile(Cell::Home, inj.pkt),
                (Node::Fa1, InjectAt::Egress(_)) => self.radio_to_mobile(Cell::Fa1, inj.pkt),
                (Node::Fa2, InjectAt::Egress(_)) => self.radio_to_mobile(Cell::Fa2, inj.pkt),
                _ => self.route(inj.pkt),
            }
        }
        while self.agent(node).poll_log().is_some() {}
    }

    fn arrive(&mut self, node: Node, iface: IfaceId, mut pkt: Packet) {
        let now = self.now;
        let v = self.agent(node).on_packet(now, Hook::Ingress, iface, &mut pkt);
        self.drain_agent(node);
        if v != Verdict::Accept {
            return;
        }
        match node {
            Node::Ch | Node::Mn => {
                let v = self.agent(node).on_packet(now, Hook::LocalIn, iface, &mut pkt);
                self.drain_agent(node);
                if let (Verdict::Accept, IpPayload::Tcp(seg)) = (v, pkt.payload) {
                    let ep = if node == Node::Ch { &mut self.ch } else { &mut self.mh };
                    ep.handle_segment(now, &seg);
                }
            }
            // The home network: deliver to the mobile over the home radio.
            Node::Ha if pkt.ip.dst == MH => {
                self.ha.on_packet(now, Hook::Egress, WLAN, &mut pkt);
                self.radio_to_mobile(Cell::Home, pkt);
            }
            Node::Ha | Node::Fa1 | Node::Fa2 if iface == WLAN => self.route(pkt),
            _ => {}
        }
    }

    fn pump_endpoints(&mut self) {
        self.ch.send(1 << 30);
        while let Some(seg) = self.ch.poll_transmit(self.now) {
            self.ip_id = self.ip_id.wrapping_add(1);
            let mut pkt = Packet::tcp(CH, MH, 64, self.ip_id, seg);
            if self.cn.on_packet(self.now, Hook::Egress, WIRED, &mut pkt) == Verdict::Accept {
                self.route(pkt);
            }
            self.drain_agent(Node::Ch);
        }
        while let Some(seg) = self.mh.poll_transmit(self.now) {
            self.radio_from_mobile(Packet::tcp(MH, CH, 64, 0, seg));
        }
        while self.mh.recv(u64::MAX).is_some() {}
        while self.ch.poll_event().is_some() {}
        while self.mh.poll_event().is_some() {}
        self.delivered = self.mh.stats().bytes_delivered;
    }

    fn next_time(&self) -> Option<Instant> {
        let agents = [Node::Ch, Node::Ha, Node::Fa1, Node::Fa2, Node::Mn];
        let timers = agents.iter().filter_map(|&n| match n {
            Node::Ch => self.cn.poll_timeout(),
            Node::Ha => self.ha.poll_timeout(),
            Node::Fa1 => self.fa1.poll_timeout(),
            Node::Fa2 => self.fa2.poll_timeout(),
            Node::Mn => self.mn.poll_timeout(),
        });
        let eps = [self.ch.poll_timeout(), self.mh.poll_timeout()].into_iter().flatten();
        self.q.keys().next().map(|k| k.0).into_iter().chain(timers).chain(eps).min()
    }

    fn run_until(&mut self, until: Instant) {
        loop {
            self.pump_endpoints();
            let Some(t) = self.next_time().filter(|&t| t <= until) else { break };
            self.now = t;
            while let Some((&k, _)) = self.q.iter().next().filter(|(k, _)| k.0 <= t) {
                let (node, iface, pkt) = self.q.remove(&k).unwrap();
                self.arrive(node, iface, pkt);
            }
            for node in [Node::Ch, Node::Ha, Node::Fa1, Node::Fa2, Node::Mn] {
                if self.agent(node).poll_timeout().is_some_and(|d| d <= t) {
                    self.agent(node).handle_timeout(t);
                    self.drain_agent(node);
                }
            }
            for ep in [&mut self.ch, &mut self.mh] {
                if ep.poll_timeout().is_some_and(|d| d <= t) {
                    ep.handle_timeout(t);
                }
            }
        }
        self.now = until;
    }

    fn move_to(&mut self, cell: Cell) {
        self.cell = cell;
        let ev = match cell {
            Cell::None => NodeEvent::LinkLost { iface: WLAN },
            _ => NodeEvent::Associated { iface: WLAN, ap: [0; 4] },
        };
        self.mn.on_node_event(self.now, ev);
    }
}

#[test]
fn wi_tcp_freezes_across_both_handoffs_and_route_optimisation_takes_over() {
    let mut net = Net::new();
    net.run_until(ms(2000));
    let before = net.delivered;
    assert!(before > 1_000_000, "bulk transfer at home: {before}");
    assert_eq!(net.ch.stats().witcp_freezes, 0);

    // Home → no cell: the home agent's MAC fails, EHO-ACK freezes the sender.
    net.move_to(Cell::None);
    net.run_until(ms(3000));
    assert_eq!(net.ch.stats().witcp_freezes, 1);
    let frozen = net.ch.witcp_frozen().expect("frozen");
    assert!(frozen.since < ms(2100), "within a round trip: {:?}", frozen.since);
    assert_eq!(net.ch.stats().timeouts, 0);

    // Into FA1's cell: advertisement, registration via FA1, EHC-ACK from the HA.
    net.move_to(Cell::Fa1);
    net.run_until(ms(6000));
    assert_eq!(net.ch.stats().witcp_resumes, 1);
    assert_eq!(counter(&net.ha, "registrations_accepted"), 1);
    assert_eq!(net.fa1.visitor(MH, net.now).map(|v| v.home_agent), Some(HA));
    assert_eq!(net.cn.binding(MH, net.now), Some(FA1), "the home agent's Binding Update");
    assert!(counter(&net.cn, "tunnelled") > 0);
    let at_fa1 = net.delivered;
    assert!(at_fa1 > before + 500_000, "transfer resumed through FA1: {at_fa1}");

    // FA1 → no cell → FA2: EHO-ACK from FA1, then FA1's EHC-ACK on the
    // mobile's Binding Update; FA1 forwards and warns, the CH learns FA2.
    net.move_to(Cell::None);
    net.run_until(ms(7000));
    assert_eq!(net.ch.stats().witcp_freezes, 2);
    assert_eq!(counter(&net.fa1, "eho_sent"), 1);
    net.move_to(Cell::Fa2);
    net.run_until(ms(12_000));
    assert_eq!(counter(&net.fa1, "ehc_sent"), 1);
    assert_eq!(counter(&net.fa2, "previous_agents_notified"), 1, "FA2 told FA1");
    assert_eq!(net.ch.stats().witcp_resumes, 2);
    assert!(counter(&net.fa1, "forwarded") > 0);
    assert_eq!(counter(&net.fa1, "binding_warnings_sent"), 1);
    assert_eq!(net.cn.binding(MH, net.now), Some(FA2));
    assert!(counter(&net.fa2, "delivered") > 0);
    assert!(net.delivered > at_fa1 + 500_000, "transfer resumed through FA2: {}", net.delivered);
    assert_eq!(net.ch.stats().timeouts, 0, "no retransmission timeout in either handoff");
    assert_eq!(net.ch.stats().witcp_forced_thaws, 0);
}

#[test]
fn plain_mobile_ip_recovers_by_timeout_through_the_home_agent_tunnel() {
    let mut net = Net::with(false, false);
    net.run_until(ms(2000));
    net.move_to(Cell::None);
    net.run_until(ms(3000));
    net.move_to(Cell::Fa1);
    net.run_until(ms(9000));
    assert!(net.ch.stats().timeouts >= 1, "the handoff costs the sender a timeout");
    assert_eq!(net.ch.stats().witcp_freezes, 0);
    assert_eq!((counter(&net.ha, "eho_sent"), counter(&net.ha, "registrations_accepted")), (0, 1));
    let via_tunnel = counter(&net.ha, "tunnelled");
    assert!(via_tunnel > 100, "triangular routing: everything through the home agent ({via_tunnel})");
    assert_eq!(counter(&net.fa1, "delivered"), via_tunnel);
    assert_eq!(counter(&net.cn, "bindings_cached"), 0);
    assert_eq!(counter(&net.ha, "binding_updates_sent"), 0);
    let after = net.delivered;
    net.run_until(ms(10_000));
    assert!(net.delivered > after, "data still flows");
}
