//! The foreign agent's part in registration (RFC 5944 §3.7): checking and
//! relaying the visitor's request, matching and relaying the home agent's
//! reply, answering 78 when none comes.

use airtcp_core::mobileip::{MipMsg, RegReply, RegRequest, ReplyCode, MIP_PORT};
use airtcp_core::Instant;

use super::{ForeignAgent, Pending, Visitor};
use crate::agent::InjectAt;
use crate::mobileip::out::addr_value;
use crate::mobileip::{mip_packet, secs};

impl ForeignAgent {
    pub(super) fn to_visitor(&mut self, home: [u8; 4], port: u16, reply: RegReply) {
        let id = self.out.next_ip_id();
        let p = mip_packet(self.cfg.addr, home, (MIP_PORT, port), id, MipMsg::RegReply(reply));
        self.out.inject(InjectAt::Egress(self.cfg.wireless), p);
    }

    pub(super) fn on_reg_request(&mut self, now: Instant, sport: u16, req: RegRequest) {
        let is_visitor = self.visitors.get(&req.home_addr, now).is_some();
        let code = if req.lifetime > self.cfg.reg_lifetime {
            ReplyCode::FA_LIFETIME_TOO_LONG
        } else if req.coa != self.cfg.addr {
            ReplyCode::FA_INVALID_COA
        } else if !is_visitor && self.visitors.len() >= self.cfg.max_visitors {
            ReplyCode::FA_INSUFFICIENT_RESOURCES
        } else {
            ReplyCode::ACCEPTED
        };
        if code != ReplyCode::ACCEPTED {
            self.n.denied += 1;
            self.out.log("mip_fa_denied", code.0 as u64);
            let lifetime = if code == ReplyCode::FA_LIFETIME_TOO_LONG { self.cfg.reg_lifetime } else { 0 };
            let reply = RegReply { code, lifetime, home_addr: req.home_addr, home_agent: req.home_agent, id: req.id };
            self.to_visitor(req.home_addr, sport, reply);
            return;
        }
        let deadline = now + self.cfg.reg_timeout;
        self.pending.insert(req.home_addr, Pending { home_agent: req.home_agent, id: req.id, port: sport, deadline });
        let id = self.out.next_ip_id();
        let p = mip_packet(self.cfg.addr, req.home_agent, (MIP_PORT, MIP_PORT), id, MipMsg::RegRequest(req));
        self.out.inject(InjectAt::Route, p);
        self.n.relayed_requests += 1;
    }

    pub(super) fn on_reg_reply(&mut self, now: Instant, reply: RegReply) {
        let home = reply.home_addr;
        let Some(p) = self.pending.get(&home).copied().filter(|p| p.id.lo == reply.id.lo) else {
            self.n.unmatched_replies += 1;
            return;
        };
        self.pending.remove(&home);
        if reply.code.accepted() && reply.lifetime > 0 {
            self.visitors.insert(home, now + secs(reply.lifetime), Visitor { home_agent: p.home_agent, id: p.id });
            self.n.max_visitors = self.n.max_visitors.max(self.visitors.len() as u64);
            self.forwards.remove(&home);
            self.out.log("mip_visitor", addr_value(home));
            // Back at this agent after it froze the host's senders.
            self.witcp.host_back(home, &mut self.out);
        } else if reply.code.accepted() {
            self.visitors.remove(&home);
        }
        self.to_visitor(home, p.port, reply);
        self.n.relayed_replies += 1;
    }

    pub(super) fn expire_pending(&mut self, now: Instant) {
        let due: Vec<[u8; 4]> = self.pending.iter().filter(|(_, p)| p.deadline <= now).map(|(h, _)| *h).collect();
        for home in due {
            let Some(p) = self.pending.remove(&home) else { continue };
            self.n.reg_timeouts += 1;
            let code = ReplyCode::FA_REGISTRATION_TIMEOUT;
            let reply = RegReply { code, lifetime: 0, home_addr: home, home_agent: p.home_agent, id: p.id };
            self.to_visitor(home, p.port, reply);
            self.out.log("mip_fa_denied", code.0 as u64);
        }
    }
}
