//! The Snoop proxy: Balakrishnan, Seshan, Amir and Katz, "Improving TCP/IP
//! performance over wireless networks", MobiCom 1995 (seed 004's reference 3), as
//! seed 004 builds it in OPNET between IP and its packet error generator.
//!
//! Snoop watches TCP segments leaving through the wireless interface
//! (`Egress` on `cfg.wireless`) and caches them per connection; it watches
//! the acknowledgements arriving on that interface (`Ingress`) and, on a
//! duplicate ACK for a cached segment, retransmits it locally and suppresses
//! the duplicates so the sender never sees the wireless loss. A per-connection
//! timer retransmits the oldest unacknowledged segment when no ACK comes.
//!
//! Placement: the same rule serves a base station (data from a wired
//! interface is forwarded out of the wireless one, so `Egress` sees it) and
//! an end host that is itself the TCP sender (its own data leaves through
//! the wireless interface; seed 004's scenarios 1 and 3 put Snoop on the
//! uploading mobile). Local retransmissions are injected at
//! `InjectAt::Egress(wireless)`, below Snoop, so they still meet the agents
//! under it (seed 004's PEG).
//!
//! Connections are keyed by the 4-tuple of the data direction in a
//! `BTreeMap`, so iteration (timers) is in a fixed order. Only data leaving
//! towards the wireless hop is cached: for data sent by a mobile *through* a
//! base station the paper uses a different, negative-acknowledgement scheme,
//! not modelled here (a base-station Snoop just lets such uploads pass; seed
//! 004 instead places Snoop on the uploading mobile itself).
//!
//! A suppressed duplicate ACK is returned as `Verdict::Drop`; Snoop counts it
//! in `dupacks_suppressed`, and the node's per-agent drop count therefore
//! includes it (plus the rare "spurious" old ACKs the paper discards).

mod cache;
mod conn;
mod timer;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use airtcp_core::{ConnKey, Duration, Instant, Packet, SeqNum};

use crate::agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, Verdict};
use crate::config::SnoopConfig;
use conn::{AckOutcome, Conn};

/// Outputs and counters shared by every connection.
#[derive(Default)]
pub(crate) struct Out {
    injections: VecDeque<Injection>,
    logs: VecDeque<AgentLog>,
    local_retransmissions: u64,
    local_timeouts: u64,
    dupacks_suppressed: u64,
    cache_full_bypass: u64,
}

impl Out {
    fn retransmit(&mut self, wireless: IfaceId, pkt: Packet, seq: SeqNum) {
        self.local_retransmissions += 1;
        self.injections.push_back(Injection { at: InjectAt::Egress(wireless), pkt });
        self.logs.push_back(AgentLog { kind: "snoop_local_rexmit", value: seq.0 as u64 });
    }

    fn local_timeout(&mut self, seq: SeqNum) {
        self.local_timeouts += 1;
        self.logs.push_back(AgentLog { kind: "snoop_timeout", value: seq.0 as u64 });
    }
}

/// The Snoop agent of one node: per-connection caches of segments sent over
/// the wireless hop, local retransmission on duplicate ACKs or its timer.
pub struct Snoop {
    cfg: SnoopConfig,
    conns: BTreeMap<ConnKey, Conn>,
    /// Connections that finished (FIN acknowledged, or reset): late
    /// retransmissions of their data must not start a new, stale state.
    /// Cleared by a SYN on the same 4-tuple; one small key per connection.
    finished: BTreeSet<ConnKey>,
    out: Out,
    /// Segments cached now, over all connections.
    cached: u64,
    max_cached: u64,
    connections: u64,
}

impl Snoop {
    /// A Snoop with no connection yet; it learns connections from their segments.
    pub fn new(cfg: SnoopConfig) -> Snoop {
        Snoop {
            cfg,
            conns: BTreeMap::new(),
            finished: BTreeSet::new(),
            out: Out { injections: VecDeque::with_capacity(16), logs: VecDeque::with_capacity(16), ..Out::default() },
            cached: 0,
            max_cached: 0,
            connections: 0,
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &SnoopConfig {
        &self.cfg
    }

    /// Connections tracked now.
    pub fn active_connections(&self) -> usize {
        self.conns.len()
    }

    /// Segments cached for the connection whose data flows along `key`.
    pub fn cached_for(&self, key: &ConnKey) -> Option<usize> {
        self.conns.get(key).map(|c| c.cached())
    }

    /// The local retransmission timer of that connection, as it stands now
    /// (base value with the current back-off).
    pub fn timer_for(&self, key: &ConnKey) -> Option<Duration> {
        self.conns.get(key).map(|c| c.rto().timeout(&self.cfg.timer))
    }

    /// Smoothed wireless-hop RTT of that connection, once sampled.
    pub fn srtt_for(&self, key: &ConnKey) -> Option<Duration> {
        self.conns.get(key).and_then(|c| c.rto().srtt())
    }

    /// Keep `cached` / `max_cached` in step after `key`'s cache went from `before`.
    fn account(&mut self, before: usize, after: usize) {
        self.cached = self.cached + after as u64 - before as u64;
        self.max_cached = self.max_cached.max(self.cached);
    }

    /// The connection ended: free its cache, remember it as finished.
    fn finish(&mut self, key: &ConnKey) {
        if let Some(c) = self.conns.remove(key) {
            self.account(c.cached(), 0);
            self.finished.insert(*key);
        }
    }

    /// A SYN: a new incarnation of the 4-tuple starts from nothing.
    fn forget(&mut self, key: &ConnKey) {
        self.finish(key);
        self.finished.remove(key);
    }

    /// A SYN on `key` whose `point` (the sender's ISN: a SYN's seq, a
    /// SYN-ACK's ack - 1) lies below what the live connection already sent
    /// is a retransmitted handshake segment of that same connection (the
    /// client's handshake ACK rode on a data segment that was lost), not a
    /// new incarnation: a new one must start above the old sequence space
    /// (RFC 9293 3.4.1). Only a new incarnation resets Snoop's state.
    fn on_syn(&mut self, key: &ConnKey, point: SeqNum) {
        if let Some(c) = self.conns.get(key) {
            if point.diff(c.last_seq) < 0 {
                return;
            }
        }
        self.forget(key);
    }

    /// A segment leaving through the wireless interface.
    fn on_egress(&mut self, now: Instant, pkt: &Packet) -> Verdict {
        let (Some(seg), Some(key)) = (pkt.segment(), pkt.conn_key()) else { return Verdict::Accept };
        if seg.flags.syn() {
            self.on_syn(&key, seg.seq);
            return Verdict::Accept;
        }
        if seg.flags.rst() {
            self.finish(&key);
            return Verdict::Accept;
        }
        if seg.seq_len() == 0 {
            return Verdict::Accept;
        }
        if !self.conns.contains_key(&key) {
            // A connection starts with its first data segment; a bare FIN
            // of a connection that sent nothing needs no Snoop.
            if seg.payload_len == 0 || self.finished.contains(&key) {
                return Verdict::Accept;
            }
            self.connections += 1;
            self.conns.insert(key, Conn::new(&self.cfg, seg));
        }
        let conn = self.conns.get_mut(&key).expect("inserted above");
        let before = conn.cached();
        let v = conn.snoop_data(now, pkt, seg, &self.cfg, &mut self.out);
        let after = conn.cached();
        self.account(before, after);
        v
    }

    /// A segment arriving on the wireless interface: an ACK for a snooped
    /// connection if its reverse 4-tuple is known.
    fn on_ingress(&mut self, now: Instant, pkt: &Packet) -> Verdict {
        let (Some(seg), Some(key)) = (pkt.segment(), pkt.conn_key()) else { return Verdict::Accept };
        let key = key.reversed();
        if seg.flags.syn() {
            // A SYN-ACK acknowledges the sender's ISN + 1.
            self.on_syn(&key, SeqNum(seg.ack.0.wrapping_sub(1)));
            return Verdict::Accept;
        }
        let Some(conn) = self.conns.get_mut(&key) else { return Verdict::Accept };
        if seg.flags.rst() {
            self.finish(&key);
            return Verdict::Accept;
        }
        if !seg.flags.ack() {
            return Verdict::Accept;
        }
        let before = conn.cached();
        let outcome = conn.snoop_ack(now, seg, &self.cfg, &mut self.out);
        let after = conn.cached();
        self.account(before, after);
        match outcome {
            AckOutcome::Keep(v) => v,
            AckOutcome::Finished => {
                // FIN acknowledged: the connection is over for Snoop.
                self.finish(&key);
                Verdict::Accept
            }
        }
    }
}

impl Agent for Snoop {
    fn kind(&self) -> &'static str {
        "snoop"
    }

    fn hooks(&self) -> HookMask {
        HookMask::INGRESS | HookMask::EGRESS
    }

    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if iface != self.cfg.wireless {
            return Verdict::Accept;
        }
        match hook {
            Hook::Egress => self.on_egress(now, pkt),
            Hook::Ingress => self.on_ingress(now, pkt),
            Hook::LocalIn | Hook::Forward => Verdict::Accept,
        }
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.out.injections.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.conns.values().filter_map(|c| c.timeout).min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        let mut delta: i64 = 0;
        for c in self.conns.values_mut() {
            let before = c.cached() as i64;
            c.handle_timeout(now, &self.cfg, &mut self.out);
            delta += c.cached() as i64 - before;
        }
        debug_assert_eq!(delta, 0, "a timeout neither caches nor frees");
    }

    fn poll_log(&mut self) -> Option<AgentLog> {
        self.out.logs.pop_front()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("local_retransmissions", self.out.local_retransmissions),
            ("local_timeouts", self.out.local_timeouts),
            ("dupacks_suppressed", self.out.dupacks_suppressed),
            ("cache_full_bypass", self.out.cache_full_bypass),
            ("max_cached", self.max_cached),
            ("connections", self.connections),
        ]
    }

    /// Segments cached now, over all connections.
    fn gauge(&self) -> Option<u64> {
        Some(self.cached)
    }
}
