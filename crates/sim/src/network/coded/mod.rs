//! Network coding on the mesh (seed 002): MORE, or MORE with the TCPFender
//! modules under TCP, carrying one TCP flow from its source to its
//! destination radio. The protocol logic is the sans-IO cores of
//! `airtcp_agents::{more, tcpfender}`; this plane only drives them:
//!
//! - at the source, the flow's data segments go to the source role instead
//!   of IP (SYN, FIN and pure ACKs still go by IP; under TCPFender the TCP
//!   receiver's ACKs arriving back pass through the sender module, and the
//!   module's ACKs are handed to TCP as TCP ACKs);
//! - every radio with a role keeps its MAC fed with coded broadcasts while
//!   its role will send (one frame waiting behind the one on the air, so
//!   credits and ACKs act within a frame time);
//! - a coded broadcast a radio decodes goes to its role, with the radio it
//!   came from (from the 802.11 source address);
//! - batch ACKs and TCPFender ACKs travel to the source by IP unicast along
//!   the mesh's shortest path, and forwarders they pass flush the batches
//!   they cover;
//! - decoded batches are handed to the destination's TCP all at once.
//!
//! By default only coefficients travel (the roles run coefficient-only): a
//! coded packet is sized as the flow's largest datagram, and a decoded
//! native is the original segment the source kept. With `real_bytes` the
//! roles code the datagrams' bytes: each coded frame's payload (the linear
//! combination) waits in [`PayloadRing`] beside the frame, every receiver
//! decodes or recodes from it, and each decoded datagram is compared with
//! the original — a mismatch is counted, and under TCPFender the decoded
//! datagram itself is what TCP receives. Airtime is the same in both modes.

mod path;
mod payloads;
mod roles;

use std::collections::VecDeque;

use airtcp_coding::Symbol;
use airtcp_core::{MacAddr, Packet, SeqNum};

use crate::scenario::mesh_coding::{name, source_name, CodingSpec, Protocol};
use crate::summary::{CodingCounters, CodingNode, CodingSummary};
use crate::scenario::Scenario;
use payloads::PayloadRing;
use roles::Role;

/// Segments the source waits with while its role holds all the batches it
/// may (the interface queue the seed gives every node).
const WAITING_LIMIT: usize = 100;
/// Coded frames a radio keeps in its MAC queue, counting the one on the air.
const MAC_DEPTH: usize = 2;
/// The agent number under which the plane's one timer (MORE's batch timer
/// at the source) travels the event queue as an `Ev::Agent`.
pub(crate) const TIMER_AGENT: u32 = u32::MAX;

pub(crate) struct CodedPlane {
    protocol: Protocol,
    src_node: usize,
    dst_node: usize,
    src_radio: u32,
    dst_radio: u32,
    src_addr: [u8; 4],
    dst_addr: [u8; 4],
    /// Each radio's node and interface address (a forwarder repeating a
    /// batch ACK sends it from its own).
    radio_node: Vec<usize>,
    radio_ip: Vec<[u8; 4]>,
    roles: Vec<Role>,
    symbol: Symbol,
    /// MORE: the source's segments by batch, until the destination decodes it.
    natives: VecDeque<(u32, Vec<Packet>)>,
    /// Data segments the source role could not take yet, in order.
    waiting: VecDeque<Packet>,
    /// TCPFender: end of the highest segment the sender module took.
    taken_end: Option<SeqNum>,
    /// The instant the batch timer event is queued for, if any.
    timer_armed: Option<airtcp_core::Instant>,
    /// Bytes a coded packet carries: the flow's largest datagram so far.
    symbol_bytes: u16,
    /// `(MAC address, radio)` sorted by address: who broadcast a frame.
    mac_radio: Vec<(MacAddr, u32)>,
    /// Real-byte mode: the payload of each radio's recent coded frames.
    payloads: Option<PayloadRing>,
    /// Scratch for serialising an original datagram to compare.
    wire_buf: Vec<u8>,
    /// Scratch holding a received coded payload while its role runs.
    rx_buf: Vec<u8>,
    /// Summary counters, kept in the summary's own type.
    c: CodingCounters,
}

impl CodedPlane {
    /// The plane of a scenario whose mesh codes a flow; `radio_addr` and
    /// `radio_mac` give each radio's interface address and MAC.
    pub(crate) fn build(sc: &Scenario, c: &CodingSpec, seed: u64, radio_addr: &[u32], radio_mac: &[MacAddr]) -> Result<CodedPlane, String> {
        let w = sc.wifi.as_ref().ok_or("a coded mesh needs radios")?;
        // IPv4 and TCP headers with every option Linux may send (20 + 60).
        let symbol_len = if c.real_bytes { sc.flows[c.flow].tcp.mss as usize + 80 } else { 0 };
        let names: Vec<&str> = w.radios.iter().map(|r| sc.nodes[r.node].name.as_str()).collect();
        let roles = Role::build_all(c, &names, seed, symbol_len)?;
        let mut mac_radio: Vec<(MacAddr, u32)> = radio_mac.iter().enumerate().map(|(r, m)| (*m, r as u32)).collect();
        mac_radio.sort_unstable_by_key(|e| e.0 .0);
        Ok(CodedPlane {
            protocol: c.protocol,
            src_node: w.radios[c.src].node,
            dst_node: w.radios[c.dst].node,
            src_radio: c.src as u32,
            dst_radio: c.dst as u32,
            src_addr: radio_addr[c.src].to_be_bytes(),
            dst_addr: radio_addr[c.dst].to_be_bytes(),
            radio_node: w.radios.iter().map(|r| r.node).collect(),
            radio_ip: radio_addr.iter().map(|a| a.to_be_bytes()).collect(),
            roles,
            symbol: Symbol::new(c.beta, symbol_len),
            natives: VecDeque::new(),
            waiting: VecDeque::new(),
            taken_end: None,
            timer_armed: None,
            symbol_bytes: 0,
            mac_radio,
            payloads: c.real_bytes.then(|| PayloadRing::new(w.radios.len(), symbol_len)),
            wire_buf: Vec::with_capacity(symbol_len),
            rx_buf: Vec::with_capacity(symbol_len),
            c: CodingCounters::default(),
        })
    }

    fn radio_of_mac(&self, mac: MacAddr) -> Option<u32> {
        self.mac_radio.binary_search_by_key(&mac.0, |e| e.0 .0).ok().map(|i| self.mac_radio[i].1)
    }

    /// Whether `pkt` is a data-direction TCP packet of the coded flow.
    fn is_flow_data(&self, pkt: &Packet) -> bool {
        pkt.segment().is_some() && pkt.ip.src == self.src_addr && pkt.ip.dst == self.dst_addr
    }

    /// Whether `pkt` is a TCP packet of the flow's ACK direction.
    fn is_flow_ack(&self, pkt: &Packet) -> bool {
        pkt.segment().is_some() && pkt.ip.src == self.dst_addr && pkt.ip.dst == self.src_addr
    }

    /// For summary.json: the plan, each role's counters and the plane's.
    pub(crate) fn report(&self, c: &CodingSpec, name_of: &dyn Fn(usize) -> String) -> CodingSummary {
        let plan = &c.plan;
        let nodes = (0..self.roles.len())
            .filter(|&r| !matches!(self.roles[r], Role::None) || plan.pruned().contains(&r))
            .map(|r| CodingNode {
                node: name_of(r),
                role: self.roles[r].kind().to_string(),
                etx_to_destination: Some(plan.etx(r)).filter(|x| x.is_finite()),
                z: plan.z(r),
                tx_credit: plan.tx_credit(r),
                pruned: plan.pruned().contains(&r),
                counters: self.roles[r].counters().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            })
            .collect();
        CodingSummary {
            protocol: name(self.protocol).to_string(),
            batch: c.beta as u64,
            pipeline: c.pipeline as u64,
            real_bytes: c.real_bytes,
            source: (c.protocol == Protocol::Fender).then(|| source_name(c.source).to_string()),
            forwarders: plan.forwarders().map(name_of).collect(),
            nodes,
            counters: self.c,
        }
    }
}
