//! Smooth handoff at the foreign agent (draft-ietf-mobileip-optim-11): as
//! the old agent, a Binding Update leaves a forwarding pointer and thaws the
//! senders Wi-TCP froze; as the new agent, the mobile's update for its
//! previous agent is sent on from here.

use airtcp_core::mobileip::{bu_flags, BindingAck, BindingUpdate, MipMsg, MIP_PORT};
use airtcp_core::Instant;

use super::{ForeignAgent, Forward};
use crate::agent::InjectAt;
use crate::mobileip::out::addr_value;
use crate::mobileip::{mip_packet, secs};

impl ForeignAgent {
    /// Smooth handoff: the mobile is now at `bu.coa`.
    pub(super) fn on_binding_update(&mut self, now: Instant, from: [u8; 4], bu: BindingUpdate) {
        let home = bu.home_addr;
        let ha = self.visitors.remove(&home).map(|v| v.home_agent).or(self.forwards.get(&home, now).and_then(|f| f.home_agent));
        if bu.lifetime == 0 {
            self.forwards.remove(&home);
        } else {
            let life = bu.lifetime.min(self.cfg.max_forward_lifetime);
            self.forwards.insert(home, now + secs(life), Forward { coa: bu.coa, home_agent: ha });
        }
        self.out.log("mip_forward_pointer", addr_value(bu.coa));
        if bu.flags & bu_flags::A != 0 {
            let ack = BindingAck { nack: false, home_addr: home, coa: bu.coa, id: bu.id };
            let id = self.out.next_ip_id();
            self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, from, (MIP_PORT, MIP_PORT), id, MipMsg::BindingAck(ack)));
        }
        // Seed 001, case FA→FA: the old agent thaws the senders it froze.
        self.witcp.host_back(home, &mut self.out);
    }

    /// The previous foreign agent notification of the draft's smooth handoff:
    /// the update a mobile on this link addresses to its previous agent is
    /// sent on from this agent, as the draft (and seed 001) have the new
    /// agent notify the old one.
    pub(super) fn notify_previous(&mut self, prev: [u8; 4], bu: BindingUpdate) {
        let id = self.out.next_ip_id();
        self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, prev, (MIP_PORT, MIP_PORT), id, MipMsg::BindingUpdate(bu)));
        self.n.previous_notified += 1;
        self.out.log("mip_previous_fa_notified", addr_value(prev));
    }
}
