//! Tunnelled packets at the foreign agent: decapsulation and delivery to a
//! visitor, re-tunnelling along a forwarding pointer with a Binding Warning
//! to the home agent, or a counted drop.

use airtcp_core::mobileip::{BindingWarning, MipMsg, MIP_PORT};
use airtcp_core::{Instant, Ipv4Header, Packet};

use super::ForeignAgent;
use crate::agent::{InjectAt, Verdict};
use crate::mobileip::mip_packet;
use crate::mobileip::out::addr_value;

impl ForeignAgent {
    /// A packet tunnelled to this agent: deliver, forward, or drop and count.
    pub(super) fn on_tunnelled(&mut self, now: Instant, pkt: &Packet) -> Verdict {
        let home = pkt.ip.dst;
        let tunnel_src = pkt.net_header().src;
        let mut p = *pkt;
        p.decapsulate();
        let visitor = self.visitors.get(&home, now).is_some();
        let forward = if self.cfg.route_opt { self.forwards.get(&home, now).copied() } else { None };
        if !visitor && forward.is_none() {
            self.n.tunnel_dropped += 1;
            self.out.log("mip_tunnel_drop", addr_value(home));
            return Verdict::Drop;
        }
        // RFC 2003 §3.1: the decapsulated datagram is forwarded, TTL and all.
        if p.ip.ttl <= 1 {
            self.n.ttl_dropped += 1;
            return Verdict::Drop;
        }
        p.ip.ttl -= 1;
        if visitor {
            if self.cfg.witcp {
                self.witcp.to_host(&p);
            }
            self.out.inject(InjectAt::Egress(self.cfg.wireless), p);
            self.n.delivered += 1;
            return Verdict::Stolen;
        }
        let Some(f) = forward else { return Verdict::Drop };
        if f.coa != home {
            let outer = Ipv4Header { src: self.cfg.addr, dst: f.coa, ttl: self.cfg.tunnel_ttl, ip_id: self.out.next_ip_id(), ..Default::default() };
            let _ = p.encapsulate(outer);
        }
        self.out.inject(InjectAt::Route, p);
        self.n.forwarded += 1;
        if let Some(ha) = f.home_agent.filter(|&ha| ha != tunnel_src) {
            self.warn(now, home, pkt.ip.src, ha);
        }
        Verdict::Stolen
    }

    /// Binding Warning to the home agent: correspondent `cn` tunnels to the
    /// old care-of address. At most one per pair and second.
    pub(super) fn warn(&mut self, now: Instant, home: [u8; 4], cn: [u8; 4], ha: [u8; 4]) {
        if self.warned.get(&(home, cn)).is_some_and(|&t| now.saturating_since(t) < airtcp_core::Duration::from_secs(1)) {
            return;
        }
        self.warned.insert((home, cn), now);
        let w = BindingWarning { home_addr: home, correspondent: cn };
        let id = self.out.next_ip_id();
        self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, ha, (MIP_PORT, MIP_PORT), id, MipMsg::BindingWarning(w)));
        self.n.binding_warnings += 1;
        self.out.log("mip_binding_warning", addr_value(cn));
    }
}
