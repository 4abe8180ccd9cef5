//! An OpenFlow-1.3-style datapath (a switch or an AP's bridge) as a sans-IO
//! state machine: packets in through [`Datapath::handle_packet`], control
//! messages in through [`Datapath::handle_control`], control messages out
//! through [`Datapath::poll_control`], packets the controller sends out
//! through [`Datapath::poll_output`], flow expiry through
//! [`Datapath::poll_timeout`] / [`Datapath::handle_timeout`].

use std::collections::VecDeque;

use airtcp_core::{Instant, MacAddr, Packet};

use super::msg::{FlowRemoved, OfError, OfMessage, PacketIn, PacketInReason, StationEvent, StationNotice};
use super::ofmatch::{Match, PacketFields};
use super::table::FlowTable;
use super::types::{Action, Actions, Dpid, PortNo, OFPP_IN_PORT};

/// How a datapath is set up.
#[derive(Clone, Debug)]
pub struct DatapathConfig {
    /// Its datapath id, the controller's name for it.
    pub dpid: Dpid,
    /// Flow-table capacity in entries (a full table answers TABLE_FULL).
    pub table_capacity: usize,
    /// Packet buffers for packet-ins; 0 sends whole packets (OFP_NO_BUFFER).
    pub buffers: usize,
    /// Table miss sends a packet-in (as a table-miss entry with a controller
    /// action would, OF 1.3 §5.4); false drops it (the OF 1.3 default when
    /// no table-miss entry exists).
    pub miss_to_controller: bool,
}

impl DatapathConfig {
    /// Datapath `dpid` with 4096 table entries, no packet buffers (whole packets
    /// go to the controller) and table misses sent to the controller.
    pub fn new(dpid: Dpid) -> Self {
        DatapathConfig { dpid, table_capacity: 4096, buffers: 0, miss_to_controller: true }
    }
}

/// Where a packet goes after the table: up to [`super::types::MAX_ACTIONS`]
/// output ports (in action order) and whether a packet-in was queued.
/// Empty and no packet-in means dropped.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Decision {
    ports: [PortNo; super::types::MAX_ACTIONS],
    n: u8,
    /// Whether a packet-in was queued for the controller (table miss or action).
    pub to_controller: bool,
}

impl Decision {
    /// Output ports in action order.
    pub fn ports(&self) -> &[PortNo] {
        &self.ports[..self.n as usize]
    }
    /// Whether the packet goes nowhere: no output and no packet-in.
    pub fn is_drop(&self) -> bool {
        self.n == 0 && !self.to_controller
    }
    fn push(&mut self, p: PortNo) {
        if (self.n as usize) < self.ports.len() {
            self.ports[self.n as usize] = p;
            self.n += 1;
        }
    }
}

/// What a datapath did during a run, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatapathCounters {
    /// Packets run through the table.
    pub lookups: u64,
    /// Of them, packets that hit an entry.
    pub matched: u64,
    /// Packet-ins sent (table misses and controller actions).
    pub packet_ins: u64,
    /// Packet-outs executed (and buffered packets released by a flow-mod).
    pub packet_outs: u64,
    /// Packet-ins sent whole because every buffer was in use.
    pub buffer_overflows: u64,
    /// Error messages sent to the controller.
    pub errors: u64,
}

/// An OpenFlow 1.3-style switch or AP bridge (see the module docs).
pub struct Datapath {
    cfg: DatapathConfig,
    table: FlowTable,
    /// Buffered packets by slot; a buffer id is `slot | generation << 16`.
    buffers: Vec<Option<(u32, PortNo, Packet)>>,
    next_buffer: u32,
    to_controller: VecDeque<OfMessage>,
    outputs: VecDeque<(PortNo, Packet)>,
    removed: Vec<FlowRemoved>,
    counters: DatapathCounters,
}

impl Datapath {
    /// A datapath with an empty table and free buffers.
    pub fn new(cfg: DatapathConfig) -> Datapath {
        let table = FlowTable::new(cfg.table_capacity);
        let buffers = vec![None; cfg.buffers];
        Datapath {
            cfg,
            table,
            buffers,
            next_buffer: 0,
            to_controller: VecDeque::new(),
            outputs: VecDeque::new(),
            removed: Vec::new(),
            counters: DatapathCounters::default(),
        }
    }

    /// Its datapath id.
    pub fn dpid(&self) -> Dpid {
        self.cfg.dpid
    }
    /// The flow table, for drivers and tests that inspect entries.
    pub fn table(&self) -> &FlowTable {
        &self.table
    }
    /// Counters so far.
    pub fn counters(&self) -> DatapathCounters {
        self.counters
    }

    /// Run a packet arriving on `in_port` through the table.
    pub fn handle_packet(&mut self, now: Instant, in_port: PortNo, pkt: &Packet) -> Decision {
        self.handle_packet_l2(now, in_port, pkt, None)
    }

    /// As [`Datapath::handle_packet`] with the frame's `(src, dst)` MAC
    /// addresses, for tables that match on Ethernet fields.
    pub fn handle_packet_l2(&mut self, now: Instant, in_port: PortNo, pkt: &Packet, eth: Option<(MacAddr, MacAddr)>) -> Decision {
        self.counters.lookups += 1;
        let f = PacketFields::of(in_port, pkt, eth);
        let mut d = Decision::default();
        match self.table.lookup(now, &f, pkt.ip_len()) {
            Some(e) => {
                let (actions, cookie) = (e.actions, e.cookie);
                self.counters.matched += 1;
                for a in actions.iter() {
                    match a {
                        // OF 1.3 §7.2.5: never back out of the input port
                        // unless the action says OFPP_IN_PORT.
                        Action::Output(p) if p == in_port => {}
                        Action::Output(p) => d.push(if p == OFPP_IN_PORT { in_port } else { p }),
                        Action::Controller => {
                            d.to_controller = true;
                            self.packet_in(in_port, pkt, PacketInReason::Action, cookie);
                        }
                    }
                }
            }
            None if self.cfg.miss_to_controller => {
                d.to_controller = true;
                self.packet_in(in_port, pkt, PacketInReason::NoMatch, u64::MAX);
            }
            None => {}
        }
        d
    }

    fn packet_in(&mut self, in_port: PortNo, pkt: &Packet, reason: PacketInReason, cookie: u64) {
        self.counters.packet_ins += 1;
        let buffer_id = self.buffer(in_port, pkt);
        self.to_controller.push_back(OfMessage::PacketIn(PacketIn { buffer_id, in_port, reason, cookie, pkt: *pkt }));
    }

    /// Keep a copy in a free buffer (round robin from the last one used);
    /// none free: OFP_NO_BUFFER, the whole packet goes up.
    fn buffer(&mut self, in_port: PortNo, pkt: &Packet) -> Option<u32> {
        let n = self.buffers.len();
        if n == 0 {
            return None;
        }
        for k in 0..n {
            let slot = (self.next_buffer as usize + k) % n;
            if self.buffers[slot].is_none() {
                let gen = (self.next_buffer >> 16).wrapping_add(1) & 0x7fff;
                let id = slot as u32 | gen << 16;
                self.buffers[slot] = Some((id, in_port, *pkt));
                self.next_buffer = ((slot + 1) % n) as u32 | gen << 16;
                return Some(id);
            }
        }
        self.counters.buffer_overflows += 1;
        None
    }

    fn take_buffer(&mut self, id: u32) -> Option<(PortNo, Packet)> {
        let slot = (id & 0xffff) as usize;
        match self.buffers.get(slot) {
            Some(Some((bid, _, _))) if *bid == id => self.buffers[slot].take().map(|(_, p, pkt)| (p, pkt)),
            _ => None,
        }
    }

    fn apply_out(&mut self, in_port: PortNo, actions: &Actions, pkt: &Packet) {
        self.counters.packet_outs += 1;
        for a in actions.iter() {
            match a {
                Action::Output(p) if p == in_port => {}
                Action::Output(p) => self.outputs.push_back((if p == OFPP_IN_PORT { in_port } else { p }, *pkt)),
                Action::Controller => self.packet_in(in_port, pkt, PacketInReason::Action, u64::MAX),
            }
        }
    }

    fn error(&mut self, xid: u32, error: OfError) {
        self.counters.errors += 1;
        self.to_controller.push_back(OfMessage::Error { xid, error });
    }

    /// A message from the controller.
    pub fn handle_control(&mut self, now: Instant, msg: OfMessage) {
        match msg {
            OfMessage::FlowMod(fm) => {
                let mut removed = std::mem::take(&mut self.removed);
                let r = self.table.apply(now, &fm, &mut removed);
                self.flush_removed(&mut removed);
                self.removed = removed;
                match r {
                    Err(e) => self.error(fm.xid, e),
                    Ok(()) => {
                        if let Some(id) = fm.buffer_id {
                            match self.take_buffer(id) {
                                Some((p, pkt)) => {
                                    let d = self.handle_packet(now, p, &pkt);
                                    for &port in d.ports() {
                                        self.outputs.push_back((port, pkt));
                                    }
                                }
                                None => self.error(fm.xid, OfError::BufferUnknown),
                            }
                        }
                    }
                }
            }
            OfMessage::PacketOut { buffer_id, in_port, actions, pkt } => {
                let p = match buffer_id {
                    Some(id) => self.take_buffer(id).map(|(_, p)| p),
                    None => pkt,
                };
                match p {
                    Some(p) => self.apply_out(in_port, &actions, &p),
                    None => self.error(0, OfError::BufferUnknown),
                }
            }
            OfMessage::FlowStatsRequest { xid, r#match, out_port, cookie, cookie_mask } => {
                let stats = self.table.stats(now, &r#match, out_port, cookie, cookie_mask);
                self.to_controller.push_back(OfMessage::FlowStatsReply { xid, stats });
            }
            OfMessage::BarrierRequest { xid } => self.to_controller.push_back(OfMessage::BarrierReply { xid }),
            _ => self.error(0, OfError::BadType),
        }
    }

    fn flush_removed(&mut self, removed: &mut Vec<FlowRemoved>) {
        for r in removed.drain(..) {
            self.to_controller.push_back(OfMessage::FlowRemoved(r));
        }
    }

    /// The next message for the controller.
    pub fn poll_control(&mut self) -> Option<OfMessage> {
        self.to_controller.pop_front()
    }

    /// The next packet a packet-out or a buffered flow-mod sends, with its port.
    pub fn poll_output(&mut self) -> Option<(PortNo, Packet)> {
        self.outputs.pop_front()
    }

    /// When the next entry expires by idle or hard timeout.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.table.poll_timeout()
    }

    /// Remove the entries expired at `now` and queue their flow-removed messages.
    pub fn handle_timeout(&mut self, now: Instant) {
        let mut removed = std::mem::take(&mut self.removed);
        self.table.expire(now, &mut removed);
        self.flush_removed(&mut removed);
        self.removed = removed;
    }

    /// An AP's association notice for the controller (seed 000 §2.2 steps
    /// 1–2): on disassociation it carries the counters of the entries
    /// towards the station at this instant (T0).
    pub fn station_notice(&mut self, now: Instant, event: StationEvent, station_ip: [u8; 4], station_mac: MacAddr, port: PortNo) {
        let counters = match event {
            StationEvent::Disassociated => self.table.counters_for(&Match::to_host(station_ip)),
            StationEvent::Associated => None,
        };
        let n = StationNotice { event, station_ip, station_mac, port, at: now, counters };
        self.to_controller.push_back(OfMessage::StationNotice(n));
    }

    /// A port went up or down (`ofp_port_status`).
    pub fn port_status(&mut self, port: PortNo, up: bool) {
        self.to_controller.push_back(OfMessage::PortStatus(super::msg::PortStatus { port, up }));
    }
}
