//! I-TCP, the split-connection proxy of Bakre and Badrinath ("I-TCP: Indirect
//! TCP for mobile hosts", ICDCS 1995), run transparently at the node between
//! the fixed network and the wireless hop.
//!
//! At the `Forward` hook a SYN (without ACK) of an unknown 4-tuple is stolen
//! and the connection is split: endpoint A answers the initiator, using the
//! destination's address and port, and endpoint B opens a connection to the
//! destination using the initiator's. Every later forwarded segment of that
//! 4-tuple, in either direction, is stolen and handed to A or B; what they
//! emit is injected at `InjectAt::Route` with the impersonated addresses, so
//! it takes the node's normal output path (and does not pass `Forward`
//! again). The byte stream is relayed between them (see `split.rs`); each
//! half's ISS comes from the agent's RNG stream.
//!
//! Which side is the mobile: the SYN's outgoing interface. If it leaves
//! through `cfg.wireless` the destination is the mobile host, so B uses
//! `wireless_tcp` and A `fixed_tcp`; otherwise the reverse.
//!
//! Tunnelled (IP-in-IP) packets are left alone: their TCP is not this node's
//! to terminate.
//!
//! Limits of this model: the endpoint has no abort call, so a reset from one
//! peer reaches the other as a FIN after the relayed data; a split is
//! forgotten once both halves are CLOSED (after TIME-WAIT), and segments of
//! that 4-tuple arriving later are forwarded untouched.

mod split;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use airtcp_core::{ConnKey, Instant, Packet, RngStream, Segment, SeqNum, TcpFlags};
use airtcp_tcp::{Endpoint, TcpConfig};

use crate::agent::{Agent, Hook, HookMask, IfaceId, InjectAt, Injection, Verdict};
use crate::config::ItcpConfig;
use split::{Emit, Side, Split, Tally};

/// The I-TCP agent of one node: every TCP connection forwarded through it
/// is split into two endpoints relaying one byte stream (see the module docs).
pub struct Itcp {
    /// Boxed: two `TcpConfig`s would make `AnyAgent` three times as large.
    cfg: Box<ItcpConfig>,
    rng: RngStream,
    /// Live splits by slot; freed slots are reused lowest-first.
    splits: Vec<Option<Split>>,
    free: Vec<usize>,
    /// Both directions' 4-tuples of every live split.
    index: BTreeMap<ConnKey, (usize, Side)>,
    /// Both 4-tuples of every finished split: the proxy still owns them, so
    /// a late segment (a FIN retransmitted after the proxy's TIME-WAIT) is
    /// answered as a closed socket answers it, never forwarded in the far
    /// host's sequence space.
    closed: BTreeSet<ConnKey>,
    injections: VecDeque<Injection>,
    ip_id: u16,
    /// Accounting of splits already finished.
    done: Tally,
    connections: u64,
    relay_max: u64,
    /// Late segments of finished splits answered with a reset.
    resets: u64,
}

impl Itcp {
    /// Panics if either TCP configuration is invalid: the scenario reader
    /// validates them, and a bad one must fail at build time, not mid-run.
    pub fn new(cfg: ItcpConfig, rng: RngStream) -> Itcp {
        for (name, c) in [("fixed_tcp", &cfg.fixed_tcp), ("wireless_tcp", &cfg.wireless_tcp)] {
            if let Err(e) = c.validate() {
                panic!("itcp {name}: {e}");
            }
        }
        Itcp {
            cfg: Box::new(cfg),
            rng,
            splits: Vec::new(),
            free: Vec::new(),
            index: BTreeMap::new(),
            closed: BTreeSet::new(),
            injections: VecDeque::with_capacity(32),
            ip_id: 0,
            done: Tally::default(),
            connections: 0,
            relay_max: 0,
            resets: 0,
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &ItcpConfig {
        &self.cfg
    }

    /// Splits alive now.
    pub fn active_connections(&self) -> usize {
        self.index.len() / 2
    }

    /// The two endpoints of the split for `key` (initiator -> destination):
    /// (facing the initiator, facing the destination).
    pub fn endpoints(&self, key: &ConnKey) -> Option<(&Endpoint, &Endpoint)> {
        let &(slot, _) = self.index.get(key)?;
        self.splits[slot].as_ref().map(|s| s.endpoints())
    }

    /// Whether the split for `key` treats its destination as the mobile host.
    pub fn mobile_is_destination(&self, key: &ConnKey) -> Option<bool> {
        let &(slot, _) = self.index.get(key)?;
        self.splits[slot].as_ref().map(|s| s.mobile_is_dest)
    }

    fn tally(&self) -> Tally {
        let mut t = self.done;
        for s in self.splits.iter().flatten() {
            t += s.tally();
        }
        t
    }

    fn endpoint(&mut self, cfg: TcpConfig, local_port: u16, remote_port: u16) -> Endpoint {
        let iss = SeqNum(self.rng.next_u32());
        Endpoint::new(cfg, local_port, remote_port, iss).expect("validated in Itcp::new")
    }

    fn open(&mut self, now: Instant, iface: IfaceId, key: ConnKey, pkt: &Packet) {
        let syn = pkt.segment().expect("a SYN");
        let mobile_is_dest = iface == self.cfg.wireless;
        let (cfg_a, cfg_b) = if mobile_is_dest {
            (self.cfg.fixed_tcp.clone(), self.cfg.wireless_tcp.clone())
        } else {
            (self.cfg.wireless_tcp.clone(), self.cfg.fixed_tcp.clone())
        };
        let a = self.endpoint(cfg_a, key.dst_port, key.src_port);
        let b = self.endpoint(cfg_b, key.src_port, key.dst_port);
        let split = Split::open(now, key, mobile_is_dest, a, b, syn);
        let slot = match self.free.pop() {
            Some(i) => {
                self.splits[i] = Some(split);
                i
            }
            None => {
                self.splits.push(Some(split));
                self.splits.len() - 1
            }
        };
        self.index.insert(key, (slot, Side::A));
        self.index.insert(key.reversed(), (slot, Side::B));
        self.connections += 1;
    }

    /// Run a split's endpoints after an input; forget it once both are closed.
    fn service(&mut self, now: Instant, slot: usize) {
        let split = self.splits[slot].as_mut().expect("live slot");
        let mut emit = Emit { queue: &mut self.injections, ip_id: &mut self.ip_id };
        let peak = split.service(now, self.cfg.relay_bytes, &mut emit);
        self.relay_max = self.relay_max.max(peak);
        if split.finished() {
            let split = self.splits[slot].take().expect("live slot");
            self.done += split.tally();
            self.index.remove(&split.key);
            self.index.remove(&split.key.reversed());
            self.closed.insert(split.key);
            self.closed.insert(split.key.reversed());
            self.free.push(slot);
            // Reuse the lowest free slot first, whatever the finishing order.
            self.free.sort_unstable_by(|x, y| y.cmp(x));
        }
    }
}

impl Itcp {
    /// Answer a segment for a finished split as a CLOSED endpoint does
    /// (RFC 9293 3.10.7.1): a reset unless it is one, from the address it was
    /// sent to.
    fn reset(&mut self, pkt: &Packet) {
        let Some(seg) = pkt.segment() else { return };
        if seg.flags.rst() {
            return;
        }
        let mut rst = Segment { src_port: seg.dst_port, dst_port: seg.src_port, ..Default::default() };
        if seg.flags.ack() {
            rst.seq = seg.ack;
            rst.flags = TcpFlags::RST;
        } else {
            rst.seq = SeqNum(0);
            rst.ack = SeqNum(seg.seq.0.wrapping_add(seg.seq_len()));
            rst.flags = TcpFlags::RST | TcpFlags::ACK;
        }
        self.ip_id = self.ip_id.wrapping_add(1);
        let out = Packet::tcp(pkt.ip.dst, pkt.ip.src, 64, self.ip_id, rst);
        self.injections.push_back(Injection { at: InjectAt::Route, pkt: out });
        self.resets += 1;
    }
}

impl Agent for Itcp {
    fn kind(&self) -> &'static str {
        "itcp"
    }

    fn hooks(&self) -> HookMask {
        HookMask::FORWARD
    }

    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if hook != Hook::Forward || pkt.outer.is_some() {
            return Verdict::Accept;
        }
        let (Some(seg), Some(key)) = (pkt.segment(), pkt.conn_key()) else { return Verdict::Accept };
        if let Some(&(slot, side)) = self.index.get(&key) {
            let seg = *seg;
            self.splits[slot].as_mut().expect("indexed slot is live").deliver(now, side, &seg, pkt.ip.ecn);
            self.service(now, slot);
            return Verdict::Stolen;
        }
        if seg.flags.syn() && !seg.flags.ack() && !seg.flags.rst() {
            // A new incarnation of a finished split's 4-tuple is a new split.
            self.closed.remove(&key);
            self.closed.remove(&key.reversed());
            self.open(now, iface, key, pkt);
            let (slot, _) = self.index[&key];
            self.service(now, slot);
            return Verdict::Stolen;
        }
        if self.closed.contains(&key) {
            self.reset(pkt);
            return Verdict::Stolen;
        }
        Verdict::Accept
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.injections.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.splits.iter().flatten().filter_map(|s| s.poll_timeout()).min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        for slot in 0..self.splits.len() {
            let Some(split) = self.splits[slot].as_mut() else { continue };
            if split.poll_timeout().is_some_and(|t| t <= now) {
                split.handle_timeout(now);
                self.service(now, slot);
            }
        }
    }

    /// `acked_not_delivered` sums both directions, live splits included
    /// (see `split::Split::tally`).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        let t = self.tally();
        vec![
            ("connections", self.connections),
            ("bytes_from_initiator", t.from_initiator),
            ("bytes_acked_by_destination", t.acked_by_destination),
            ("acked_not_delivered", t.acked_not_delivered),
            ("relay_max_bytes", self.relay_max),
            ("late_segments_reset", self.resets),
        ]
    }

    /// Bytes in the relays now (moved between the halves, not yet
    /// acknowledged by the far peer), over all splits.
    fn gauge(&self) -> Option<u64> {
        Some(self.tally().relayed_now)
    }
}
