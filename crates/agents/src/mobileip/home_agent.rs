//! The home agent (RFC 5944 §3.8, §4): registrations, the binding table,
//! proxy reception of the home addresses it serves and IP-in-IP tunnelling
//! (RFC 2003) to the care-of address; with route optimisation
//! (draft-ietf-mobileip-optim-11) Binding Updates to correspondents.
//!
//! Hooks: `Ingress` on every interface sees registrations addressed to the
//! agent and packets for a served home address before the node routes them
//! (the effect of the proxy ARP of RFC 5944 §4.6); a packet for a mobile
//! away from home is stolen and re-injected encapsulated at
//! `InjectAt::Route` (outer source the agent, destination the care-of
//! address). `LocalIn` handles Mobile IP messages that reached the node
//! another way. With Wi-TCP, `Egress` and `Ingress` on the home interface
//! follow the connections of mobiles at home.
//!
//! Registration checks, in order, each refused with the RFC's code: the Home
//! Agent field is not this agent (136, §3.8.2.1), the home address is not
//! one it serves (129, §3.8.2.1), the Identification is replayed or its
//! timestamp further than `max_skew` from the agent's clock (133, §5.7.1:
//! the reply then carries the agent's time in its high 32 bits so the mobile
//! can resynchronise, the low 32 bits copied from the request, §3.8.3).
//! A lifetime above `max_lifetime` is granted as `max_lifetime` (§3.8.3);
//! lifetime 0, or a care-of address equal to the home address, deregisters
//! (§3.8.2.2). Replies go back to the request's source address and port.

use std::collections::BTreeMap;

use airtcp_core::mobileip::{adv_flags, AgentAdvert, BindingUpdate, Ident, MipMsg, RegReply, RegRequest, ReplyCode, MIP_PORT};
use airtcp_core::{Duration, Icmp, Instant, IpPayload, Ipv4Header, Packet};

use super::bindings::Table;
use super::config::HomeAgentConfig;
use super::out::{addr_value, Out};
use super::witcp::WitcpServer;
use super::{clock_secs, mip_of, mip_packet, secs};
use crate::agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, NodeEvent, Verdict};

/// One mobility binding (RFC 5944 §3.8.3: home address, care-of address,
/// Identification, remaining lifetime — the last is the table's expiry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub coa: [u8; 4],
    pub id: Ident,
}

#[derive(Default)]
struct Counters {
    accepted: u64,
    deregistered: u64,
    denied_id_mismatch: u64,
    denied_other: u64,
    tunnelled: u64,
    ttl_dropped: u64,
    expired: u64,
    binding_updates: u64,
    max_bindings: u64,
}

/// A home agent (see the module docs): registrations, bindings, proxy
/// reception and tunnelling to care-of addresses.
pub struct HomeAgent {
    cfg: HomeAgentConfig,
    out: Out,
    bindings: Table<Binding>,
    /// Last accepted Identification per mobile (replay protection, §5.7).
    last_id: BTreeMap<[u8; 4], Ident>,
    /// Last unsolicited Binding Update per (home address, correspondent):
    /// when, and with which care-of address.
    bu_sent: BTreeMap<([u8; 4], [u8; 4]), (Instant, [u8; 4])>,
    witcp: WitcpServer,
    n: Counters,
    /// Next agent advertisement (with `advert_interval`), and its sequence number.
    next_advert: Option<Instant>,
    advert_seq: u16,
    adverts: u64,
}

impl HomeAgent {
    /// A home agent with no binding; its first advertisement (if
    /// `advert_interval` is set) goes out at time 0.
    pub fn new(cfg: HomeAgentConfig) -> HomeAgent {
        HomeAgent {
            next_advert: cfg.advert_interval.map(|_| Instant::ZERO),
            advert_seq: 0,
            adverts: 0,
            cfg,
            out: Out::default(),
            bindings: Table::default(),
            last_id: BTreeMap::new(),
            bu_sent: BTreeMap::new(),
            witcp: WitcpServer::new(),
            n: Counters::default(),
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &HomeAgentConfig {
        &self.cfg
    }

    /// The live binding of `home`, and when it expires.
    pub fn binding(&self, home: [u8; 4], now: Instant) -> Option<(Binding, Instant)> {
        let b = *self.bindings.get(&home, now)?;
        Some((b, self.bindings.expiry(&home)?))
    }

    /// The Wi-TCP state of its mobiles' connections while they are at home.
    pub fn witcp(&self) -> &WitcpServer {
        &self.witcp
    }

    fn serves(&self, home: [u8; 4]) -> bool {
        self.cfg.mobiles.contains(&home)
    }

    /// An agent advertisement with the H bit (RFC 5944 §2.1.1) on the home
    /// interface: no care-of address, the home agent as the router.
    fn advertise(&mut self, now: Instant, interval: Duration) {
        let interval_s = interval.as_nanos().div_ceil(1_000_000_000);
        let adv = AgentAdvert {
            mobility_only: false,
            ra_lifetime: (3 * interval_s).clamp(1, u16::MAX as u64) as u16,
            router: Some((self.cfg.addr, 0)),
            seq: self.advert_seq,
            reg_lifetime: self.cfg.max_lifetime,
            flags: adv_flags::R | adv_flags::H,
            ..Default::default()
        };
        self.advert_seq = if self.advert_seq == u16::MAX { 256 } else { self.advert_seq + 1 };
        let ip = Ipv4Header { src: self.cfg.addr, dst: self.cfg.advert_dst, ttl: 1, ip_id: self.out.next_ip_id(), ..Default::default() };
        let p = Packet { ip, outer: None, payload: IpPayload::Icmp(Icmp::AgentAdvert(adv)) };
        self.out.inject(InjectAt::Egress(self.cfg.home_iface), p);
        self.adverts += 1;
        self.next_advert = Some(now + interval);
    }

    fn send(&mut self, dst: [u8; 4], dport: u16, msg: MipMsg) {
        let id = self.out.next_ip_id();
        self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, dst, (MIP_PORT, dport), id, msg));
    }

    /// The reply code and granted lifetime for `req` (a code above 1 refuses).
    fn judge(&self, now: Instant, req: &RegRequest) -> (ReplyCode, u16) {
        if req.home_agent != self.cfg.addr {
            return (ReplyCode::HA_UNKNOWN_HOME_AGENT, 0);
        }
        if !self.serves(req.home_addr) {
            return (ReplyCode::HA_ADMIN_PROHIBITED, 0);
        }
        let clock = clock_secs(now, self.cfg.clock_offset_s) as i64;
        let skew = (req.id.hi as i64 - clock).unsigned_abs();
        let replayed = self.last_id.get(&req.home_addr).is_some_and(|last| req.id <= *last);
        if Duration::from_secs(skew) > self.cfg.max_skew || replayed {
            return (ReplyCode::HA_ID_MISMATCH, 0);
        }
        (ReplyCode::ACCEPTED, req.lifetime.min(self.cfg.max_lifetime))
    }

    fn on_reg_request(&mut self, now: Instant, from: [u8; 4], sport: u16, req: RegRequest) {
        let (code, lifetime) = self.judge(now, &req);
        let mut id = req.id;
        if code == ReplyCode::HA_ID_MISMATCH {
            id.hi = clock_secs(now, self.cfg.clock_offset_s);
            self.n.denied_id_mismatch += 1;
        } else if !code.accepted() {
            self.n.denied_other += 1;
        }
        if !code.accepted() {
            self.out.log("mip_reg_denied", code.0 as u64);
        } else {
            self.last_id.insert(req.home_addr, req.id);
            if lifetime == 0 || req.coa == req.home_addr {
                self.bindings.remove(&req.home_addr);
                self.n.deregistered += 1;
                self.out.log("mip_deregistered", addr_value(req.home_addr));
            } else {
                let b = Binding { coa: req.coa, id: req.id };
                self.bindings.insert(req.home_addr, now + secs(lifetime), b);
                self.n.accepted += 1;
                self.n.max_bindings = self.n.max_bindings.max(self.bindings.len() as u64);
                self.out.log("mip_registered", addr_value(req.coa));
            }
            // The host is reachable again: thaw what this agent froze.
            self.witcp.host_back(req.home_addr, &mut self.out);
        }
        let reply = RegReply { code, lifetime, home_addr: req.home_addr, home_agent: self.cfg.addr, id };
        self.send(from, sport, MipMsg::RegReply(reply));
    }

    /// A Binding Update telling `cn` where `home` is (lifetime 0 and the
    /// home address as care-of address when it is at home).
    fn binding_update(&mut self, now: Instant, home: [u8; 4], cn: [u8; 4]) {
        let bu = match self.binding(home, now) {
            Some((b, exp)) => {
                let left = exp.saturating_since(now).as_nanos() / 1_000_000_000;
                let lifetime = (self.cfg.bu_lifetime as u64).min(left) as u16;
                BindingUpdate { flags: 0, lifetime, home_addr: home, coa: b.coa, id: b.id }
            }
            None => BindingUpdate { flags: 0, lifetime: 0, home_addr: home, coa: home, id: Ident::default() },
        };
        self.bu_sent.insert((home, cn), (now, bu.coa));
        self.n.binding_updates += 1;
        self.out.log("mip_binding_update", addr_value(cn));
        self.send(cn, MIP_PORT, MipMsg::BindingUpdate(bu));
    }

    /// Rate-limited unsolicited update after tunnelling a packet from `cn`.
    fn maybe_update(&mut self, now: Instant, home: [u8; 4], cn: [u8; 4], coa: [u8; 4]) {
        if cn == self.cfg.addr || self.serves(cn) {
            return;
        }
        let due = match self.bu_sent.get(&(home, cn)) {
            Some(&(t, sent_coa)) => sent_coa != coa || now.saturating_since(t) >= self.cfg.bu_min_interval,
            None => true,
        };
        if due {
            self.binding_update(now, home, cn);
        }
    }

    /// A Mobile IP message addressed to the agent. True when handled.
    fn on_control(&mut self, now: Instant, pkt: &Packet) -> bool {
        let Some((msg, sport)) = mip_of(pkt) else { return false };
        match msg {
            MipMsg::RegRequest(req) => self.on_reg_request(now, pkt.ip.src, sport, req),
            MipMsg::BindingWarning(w) if self.cfg.route_opt && self.serves(w.home_addr) => {
                self.binding_update(now, w.home_addr, w.correspondent)
            }
            MipMsg::BindingRequest(r) if self.cfg.route_opt && self.serves(r.home_addr) => {
                self.binding_update(now, r.home_addr, pkt.ip.src)
            }
            _ => return false,
        }
        true
    }

    /// A packet for served home address `home`, before routing.
    fn intercept(&mut self, now: Instant, pkt: &mut Packet) -> Verdict {
        let home = pkt.ip.dst;
        if let Some((MipMsg::BindingRequest(r), _)) = mip_of(pkt) {
            // Sent to the home address (draft): the home agent answers.
            if self.cfg.route_opt && r.home_addr == home {
                self.binding_update(now, home, pkt.ip.src);
                return Verdict::Stolen;
            }
        }
        let Some(b) = self.bindings.get(&home, now).copied() else { return Verdict::Accept };
        // RFC 2003 §3.1: forwarding into the tunnel decrements the inner TTL.
        if pkt.ip.ttl <= 1 {
            self.n.ttl_dropped += 1;
            return Verdict::Drop;
        }
        let mut p = *pkt;
        p.ip.ttl -= 1;
        let outer = Ipv4Header { src: self.cfg.addr, dst: b.coa, ttl: self.cfg.tunnel_ttl, ip_id: self.out.next_ip_id(), ..Default::default() };
        if p.encapsulate(outer).is_err() {
            return Verdict::Accept;
        }
        self.out.inject(InjectAt::Route, p);
        self.n.tunnelled += 1;
        if self.cfg.route_opt {
            self.maybe_update(now, home, pkt.ip.src, b.coa);
        }
        Verdict::Stolen
    }
}

impl Agent for HomeAgent {
    fn kind(&self) -> &'static str {
        "home_agent"
    }

    /// `Egress` only to follow connections for Wi-TCP.
    fn hooks(&self) -> HookMask {
        let base = HookMask::INGRESS | HookMask::LOCAL_IN;
        if self.cfg.witcp {
            base | HookMask::EGRESS
        } else {
            base
        }
    }

    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if pkt.outer.is_some() {
            return Verdict::Accept;
        }
        match hook {
            Hook::Ingress => {
                if self.cfg.witcp && iface == self.cfg.home_iface && self.serves(pkt.ip.src) {
                    self.witcp.from_host(pkt);
                }
                if pkt.ip.dst == self.cfg.addr && self.on_control(now, pkt) {
                    return Verdict::Stolen;
                }
                if self.serves(pkt.ip.dst) {
                    return self.intercept(now, pkt);
                }
                Verdict::Accept
            }
            Hook::LocalIn if self.on_control(now, pkt) => Verdict::Stolen,
            Hook::Egress if self.cfg.witcp && iface == self.cfg.home_iface && self.serves(pkt.ip.dst) => {
                self.witcp.to_host(pkt);
                Verdict::Accept
            }
            _ => Verdict::Accept,
        }
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.out.pop_injection()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        [self.bindings.next_expiry(), self.next_advert].into_iter().flatten().min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        if let (Some(t), Some(i)) = (self.next_advert, self.cfg.advert_interval) {
            if t <= now {
                self.advertise(now, i);
            }
        }
        for (home, _) in self.bindings.expire(now) {
            self.n.expired += 1;
            self.out.log("mip_binding_expired", addr_value(home));
        }
    }

    /// The MAC lost a mobile at home (no binding): Wi-TCP's EHO-ACK.
    fn on_node_event(&mut self, now: Instant, ev: NodeEvent) {
        if let NodeEvent::TxFailed { iface, dst } = ev {
            if self.cfg.witcp && iface == self.cfg.home_iface && self.serves(dst) && self.bindings.get(&dst, now).is_none() {
                self.witcp.host_lost(dst, &mut self.out);
            }
        }
    }

    fn poll_log(&mut self) -> Option<AgentLog> {
        self.out.pop_log()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("registrations_accepted", self.n.accepted),
            ("deregistrations", self.n.deregistered),
            ("denied_id_mismatch", self.n.denied_id_mismatch),
            ("denied_other", self.n.denied_other),
            ("tunnelled", self.n.tunnelled),
            ("tunnel_ttl_dropped", self.n.ttl_dropped),
            ("bindings_expired", self.n.expired),
            ("binding_updates_sent", self.n.binding_updates),
            ("max_bindings", self.n.max_bindings),
            ("eho_sent", self.witcp.eho_sent),
            ("ehc_sent", self.witcp.ehc_sent),
            ("adverts_sent", self.adverts),
        ]
    }

    /// Live bindings.
    fn gauge(&self) -> Option<u64> {
        Some(self.bindings.len() as u64)
    }
}
