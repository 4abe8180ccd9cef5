//! A correspondent node with route optimisation
//! (draft-ietf-mobileip-optim-11): a binding cache filled by Binding
//! Updates, and packets to a cached home address tunnelled (RFC 2003)
//! straight to the care-of address instead of through the home agent.
//!
//! Hooks: `LocalIn` takes Binding Updates addressed to the node (and answers
//! with a Binding Acknowledge when the A bit asks); `Egress` steals each
//! packet the node sends to a cached home address and injects it
//! encapsulated at `InjectAt::Route` (the re-injected packet, tunnelled,
//! passes this agent untouched). A Binding Update with lifetime 0, or with
//! the home address as care-of address, removes the entry (the mobile is
//! at home). An entry used since its update is refreshed before it lapses
//! with a Binding Request sent to the home address, which the home agent
//! answers.

use airtcp_core::mobileip::{BindingAck, BindingRequest, BindingUpdate, Ident, MipMsg, MIP_PORT};
use airtcp_core::{Instant, Ipv4Header, Packet};

use super::bindings::Table;
use super::config::CorrespondentConfig;
use super::out::{addr_value, Out};
use super::{ident, mip_of, mip_packet, secs};
use crate::agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, Verdict};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheEntry {
    pub coa: [u8; 4],
    /// A packet was tunnelled with it since the last update.
    pub used: bool,
    /// When to ask for a fresh binding (if used by then).
    refresh_at: Option<Instant>,
}

#[derive(Default)]
struct Counters {
    updates: u64,
    deletions: u64,
    tunnelled: u64,
    requests: u64,
    acks: u64,
    expired: u64,
}

/// A correspondent node's agent (see the module docs): the binding cache and
/// the tunnels that bypass the home agent.
pub struct Correspondent {
    cfg: CorrespondentConfig,
    out: Out,
    cache: Table<CacheEntry>,
    counter: u32,
    n: Counters,
}

impl Correspondent {
    /// A correspondent with an empty binding cache.
    pub fn new(cfg: CorrespondentConfig) -> Correspondent {
        Correspondent { cfg, out: Out::default(), cache: Table::default(), counter: 0, n: Counters::default() }
    }

    /// The cached care-of address of `home`.
    pub fn binding(&self, home: [u8; 4], now: Instant) -> Option<[u8; 4]> {
        self.cache.get(&home, now).map(|e| e.coa)
    }

    fn on_update(&mut self, now: Instant, from: [u8; 4], bu: BindingUpdate) {
        let home = bu.home_addr;
        if bu.lifetime == 0 || bu.coa == home {
            self.cache.remove(&home);
            self.n.deletions += 1;
        } else {
            let life = secs(bu.lifetime);
            let refresh_at = self.cfg.refresh_before.filter(|&d| d < life).map(|d| now + (life - d));
            self.cache.insert(home, now + life, CacheEntry { coa: bu.coa, used: false, refresh_at });
            self.n.updates += 1;
        }
        self.out.log("mip_binding_cached", addr_value(bu.coa));
        if bu.flags & airtcp_core::mobileip::bu_flags::A != 0 {
            let ack = BindingAck { nack: false, home_addr: home, coa: bu.coa, id: bu.id };
            let id = self.out.next_ip_id();
            self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, from, (MIP_PORT, MIP_PORT), id, MipMsg::BindingAck(ack)));
            self.n.acks += 1;
        }
    }

    fn tunnel(&mut self, now: Instant, pkt: &Packet) -> Verdict {
        let Some(e) = self.cache.get_mut(&pkt.ip.dst, now) else { return Verdict::Accept };
        e.used = true;
        let coa = e.coa;
        let mut p = *pkt;
        let outer = Ipv4Header { src: self.cfg.addr, dst: coa, ttl: self.cfg.tunnel_ttl, ip_id: self.out.next_ip_id(), ..Default::default() };
        if p.encapsulate(outer).is_err() {
            return Verdict::Accept;
        }
        self.out.inject(InjectAt::Route, p);
        self.n.tunnelled += 1;
        Verdict::Stolen
    }

    fn refresh(&mut self, now: Instant) {
        let due: Vec<([u8; 4], bool)> = self
            .cache
            .iter()
            .filter(|(_, e)| e.refresh_at.is_some_and(|t| t <= now))
            .map(|(h, e)| (*h, e.used))
            .collect();
        for (home, used) in due {
            if let Some(e) = self.cache.get_mut(&home, now) {
                e.refresh_at = None;
            }
            if used {
                self.counter = self.counter.wrapping_add(1);
                let id: Ident = ident(now, 0, self.counter);
                let ip_id = self.out.next_ip_id();
                let br = BindingRequest { home_addr: home, id };
                self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, home, (MIP_PORT, MIP_PORT), ip_id, MipMsg::BindingRequest(br)));
                self.n.requests += 1;
            }
        }
    }
}

impl Agent for Correspondent {
    fn kind(&self) -> &'static str {
        "correspondent"
    }

    fn hooks(&self) -> HookMask {
        HookMask::LOCAL_IN | HookMask::EGRESS
    }

    fn on_packet(&mut self, now: Instant, hook: Hook, _iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if pkt.outer.is_some() {
            return Verdict::Accept;
        }
        match hook {
            Hook::LocalIn => match mip_of(pkt) {
                Some((MipMsg::BindingUpdate(bu), _)) => {
                    self.on_update(now, pkt.ip.src, bu);
                    Verdict::Stolen
                }
                _ => Verdict::Accept,
            },
            Hook::Egress if mip_of(pkt).is_none() => self.tunnel(now, pkt),
            _ => Verdict::Accept,
        }
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.out.pop_injection()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let refresh = self.cache.iter().filter_map(|(_, e)| e.refresh_at).min();
        [refresh, self.cache.next_expiry()].into_iter().flatten().min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.refresh(now);
        for (home, _) in self.cache.expire(now) {
            self.n.expired += 1;
            self.out.log("mip_binding_lapsed", addr_value(home));
        }
    }

    fn poll_log(&mut self) -> Option<AgentLog> {
        self.out.pop_log()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("bindings_cached", self.n.updates),
            ("bindings_deleted", self.n.deletions),
            ("bindings_lapsed", self.n.expired),
            ("tunnelled", self.n.tunnelled),
            ("binding_requests_sent", self.n.requests),
            ("binding_acks_sent", self.n.acks),
        ]
    }

    /// Cached bindings.
    fn gauge(&self) -> Option<u64> {
        Some(self.cache.len() as u64)
    }
}
