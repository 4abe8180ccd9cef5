//! A MORE forwarder: stores innovative packets of the batches it holds,
//! earns TX_credit for every packet heard from an upstream node, and while
//! its credit for a batch is at least one broadcasts a recoded packet and
//! spends one credit (MORE §4, "the forwarder increments the credit counter
//! by its TX_credit ... and decrements it by one for each transmission").
//! A batch is flushed when its ACK passes or a newer batch crowds it out.
//!
//! With several batches held (TCPFender's pipelining) the oldest batch with
//! credit goes first, since the destination decodes in batch order.
//!
//! A forwarder that has seen batch b acknowledged and still hears packets of
//! b from upstream re-sends the batch ACK toward the source ([`MoreForwarder::poll_ack`]).
//! Why here and not at the destination: MORE's source stops a batch only on
//! its ACK (§4), and every forwarder the ACK passed flushes the batch and
//! drops its packets, so once the ACK is lost beyond such a forwarder the
//! destination hears nothing more of b and cannot re-ACK; the node that
//! knows b is done and still hears upstream sending it is exactly the
//! forwarder. The upstream packets are the evidence the ACK did not get
//! through. To keep the reverse path light it re-ACKs on the first such
//! packet and then once per β more (about one batch's worth of upstream
//! traffic, the least the source sends before giving up on a batch in MORE),
//! never more often. TCPFender's ACKs are repeated the same way: a forwarder
//! flushes the batches such an ACK covers as it passes, whether or not the
//! ACK then reaches the source, and a source that never hears it keeps
//! sending a batch nobody downstream holds any more (the repeat is the
//! latest ACK this forwarder saw, a cumulative count, so it is never older
//! than what the source needs).

use airtcp_coding::{Insert, Symbol};
use airtcp_core::{Coded, CodedKind, RngStream};

use super::{Found, ForwarderPlan, MoreConfig, MoreError, Rx, Slots};

/// MORE's forwarder role for one flow at one node (see the module docs).
pub struct MoreForwarder {
    flow: u16,
    cfg: MoreConfig,
    tx_credit: f64,
    upstream: Vec<bool>,
    slots: Slots,
    rng: RngStream,
    /// Every batch below this is acknowledged.
    acked_below: u32,
    /// The latest ACK seen (MORE batch ACK or TCPFender ACK), to repeat toward the source.
    last_ack: Option<Coded>,
    /// Upstream packets of acknowledged batches heard since the last repeat.
    stale_since_reack: usize,
    reack_due: bool,
    c: Counters,
}

#[derive(Default)]
struct Counters {
    innovative: u64,
    redundant: u64,
    stale: u64,
    malformed: u64,
    sent: u64,
    flushed: u64,
    reacks: u64,
}

impl MoreForwarder {
    /// The forwarder at `node` for `plan`'s flow; `rng` is its own stream.
    pub fn new(flow: u16, node: usize, plan: &ForwarderPlan, cfg: MoreConfig, rng: RngStream) -> Result<MoreForwarder, MoreError> {
        let upstream = (0..plan.order().iter().copied().max().map_or(0, |m| m + 1)).map(|j| plan.is_upstream(j, node)).collect();
        Ok(MoreForwarder {
            flow,
            cfg,
            tx_credit: plan.tx_credit(node),
            upstream,
            slots: Slots::new(cfg.max_batches, cfg.beta, cfg.symbol_len)?,
            rng,
            acked_below: 0,
            last_ack: None,
            stale_since_reack: 0,
            reack_due: false,
            c: Counters::default(),
        })
    }

    /// TX_credit of this node: broadcasts earned per packet heard from upstream.
    pub fn tx_credit(&self) -> f64 {
        self.tx_credit
    }

    /// A coded data packet broadcast by node `from`. Malformed packets are
    /// counted and refused; nothing panics.
    pub fn handle_coded(&mut self, from: usize, pkt: &Coded, payload: Option<&[u8]>) -> Result<Rx, MoreError> {
        let r = self.receive(from, pkt, payload);
        if r.is_err() {
            self.c.malformed += 1;
        }
        r
    }

    fn receive(&mut self, from: usize, pkt: &Coded, payload: Option<&[u8]>) -> Result<Rx, MoreError> {
        if pkt.kind != CodedKind::Data {
            return Err(MoreError::WrongKind);
        }
        if pkt.flow != self.flow {
            return Err(MoreError::WrongFlow { expected: self.flow, found: pkt.flow });
        }
        if pkt.batch < self.acked_below {
            self.c.stale += 1;
            if self.last_ack.is_some() && self.upstream.get(from).copied().unwrap_or(false) {
                if self.stale_since_reack == 0 {
                    self.reack_due = true;
                }
                self.stale_since_reack += 1;
                if self.stale_since_reack >= self.cfg.beta {
                    self.stale_since_reack = 0;
                }
            }
            return Ok(Rx::Stale);
        }
        let (i, code) = match self.slots.lookup(pkt.batch, &pkt.code, &mut self.c.flushed)? {
            (Found::Held(i), code) => (i, code),
            (Found::Stale, _) => {
                self.c.stale += 1;
                return Ok(Rx::Stale);
            }
        };
        let slot = self.slots.get_mut(i);
        let inserted = slot.basis.insert(&code, payload)?;
        if self.upstream.get(from).copied().unwrap_or(false) {
            slot.credit += self.tx_credit;
            // TCPFender: the packets this reception pays for carry its tag
            // (the latest heard, by arrival: a TCP retransmission's tag is
            // an old sequence number but fresh news).
            slot.tag = pkt.tag;
        }
        Ok(match inserted {
            Insert::Innovative => {
                self.c.innovative += 1;
                Rx::Innovative
            }
            Insert::Redundant => {
                self.c.redundant += 1;
                Rx::Redundant
            }
        })
    }

    /// The next recoded packet to broadcast, its payload in `out`; `None`
    /// while no held batch has a whole credit and something to send.
    pub fn poll_transmit(&mut self, out: &mut Symbol) -> Option<Coded> {
        let i = (0..self.slots.held().len()).find(|&i| {
            let s = self.slots.get(i);
            s.credit >= 1.0 && s.basis.rank() > 0
        })?;
        let slot = self.slots.get_mut(i);
        slot.credit -= 1.0;
        slot.basis.recode(&mut self.rng, out);
        self.c.sent += 1;
        Some(Coded {
            kind: CodedKind::Data,
            flow: self.flow,
            batch: slot.batch,
            tag: slot.tag,
            code: out.code,
            payload_len: self.cfg.symbol_len as u16,
        })
    }

    /// An ACK seen passing (MORE batch ACK for batch b, or a TCPFender ACK
    /// of n packets, meaning n / β whole batches): flush what it covers.
    pub fn handle_ack(&mut self, ack: &Coded) -> Result<(), MoreError> {
        if ack.flow != self.flow {
            return Err(MoreError::WrongFlow { expected: self.flow, found: ack.flow });
        }
        let below = match ack.kind {
            CodedKind::BatchAck => ack.batch.saturating_add(1),
            CodedKind::FenderAck => ack.batch / self.cfg.beta as u32,
            CodedKind::Data => return Err(MoreError::WrongKind),
        };
        if below > self.acked_below {
            self.acked_below = below;
            self.c.flushed += self.slots.flush_below(below);
            self.stale_since_reack = 0;
            self.reack_due = false;
        }
        // The newest ACK is the one to repeat: for TCPFender a later count
        // within the same batch says more than the one that flushed it.
        let newer = match (self.last_ack, ack.kind) {
            (None, _) => true,
            (Some(last), CodedKind::FenderAck) => last.kind != CodedKind::FenderAck || ack.batch > last.batch,
            (Some(last), _) => last.kind != ack.kind || ack.batch > last.batch,
        };
        if newer && below > 0 {
            self.last_ack = Some(*ack);
        }
        Ok(())
    }

    /// An ACK to unicast to the source again: upstream still sends a batch
    /// this forwarder saw acknowledged, so the ACK was lost on its way.
    pub fn poll_ack(&mut self) -> Option<Coded> {
        if !std::mem::take(&mut self.reack_due) {
            return None;
        }
        self.c.reacks += 1;
        self.last_ack
    }

    /// Credit and rank of `batch`, if held (for tests and traces).
    pub fn batch_state(&self, batch: u32) -> Option<(f64, usize)> {
        self.slots.position(batch).map(|i| {
            let s = self.slots.get(i);
            (s.credit, s.basis.rank())
        })
    }

    /// End-of-run counters, in a fixed order.
    pub fn counters(&self) -> [(&'static str, u64); 7] {
        let c = &self.c;
        [
            ("innovative", c.innovative),
            ("redundant", c.redundant),
            ("stale", c.stale),
            ("malformed", c.malformed),
            ("coded_sent", c.sent),
            ("batches_flushed", c.flushed),
            ("reacks", c.reacks),
        ]
    }
}
