//! TCPFender's receiver module (seed 002 §III.B.2).
//!
//! Expecting batch b (0-based here, b+1 in the paper's numbering) with rank
//! r, the receiver has "almost" received βb + r packets. A coded packet of
//! an older batch is discarded; one of batch b or later is inserted into
//! its batch's matrix. Either way the answer is an ACK of βb + r packets,
//! except that when batch b reaches full rank it is decoded, handed to TCP
//! at once, and the receiver moves to the next batch that is not full (b̂,
//! rank r̂): the ACK then says βb̂ + r̂.
//!
//! A packet whose code vector is shorter than β announces the flow's final
//! batch of k = its length natives (see the sender's FIN handling): the
//! batch's matrix shrinks to k columns and is decoded at rank k.

use std::collections::VecDeque;

use airtcp_coding::Insert;
use airtcp_core::{wire, CodeVector, Coded, CodedKind, Packet};

use super::{FenderConfig, FenderError};
use crate::more::{Found, Slots};

/// One decoded native, handed up in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub batch: u32,
    pub index: usize,
    /// The decoded TCP packet when real bytes travel; `None` in a
    /// coefficient-only run (the driver takes the original from the
    /// sender module, [`super::FenderSender::native_packet`]).
    pub packet: Option<Packet>,
}

pub struct FenderReceiver {
    flow: u16,
    cfg: FenderConfig,
    slots: Slots,
    capacity: usize,
    /// The batch expected next (b).
    expect: u32,
    /// Decoded batches not yet handed up, and the next native of the first.
    ready: VecDeque<u32>,
    cursor: usize,
    c: Counters,
}

#[derive(Default)]
struct Counters {
    innovative: u64,
    redundant: u64,
    old_discarded: u64,
    beyond_window: u64,
    malformed: u64,
    decoded: u64,
    delivered: u64,
    undecodable: u64,
}

impl FenderReceiver {
    pub fn new(flow: u16, cfg: FenderConfig) -> Result<FenderReceiver, FenderError> {
        // Room for the window of batches being filled plus as many decoded
        // ones waiting to be handed up.
        let capacity = 2 * cfg.max_batches.max(1);
        Ok(FenderReceiver {
            flow,
            cfg,
            slots: Slots::new(capacity, cfg.beta, cfg.symbol_len)?,
            capacity,
            expect: 0,
            ready: VecDeque::new(),
            cursor: 0,
            c: Counters::default(),
        })
    }

    /// The batch expected next and its rank.
    pub fn expecting(&self) -> (u32, usize) {
        (self.expect, self.rank(self.expect))
    }

    fn rank(&self, batch: u32) -> usize {
        self.slots.position(batch).map_or(0, |i| self.slots.get(i).basis.rank())
    }

    /// A coded packet for this flow's TCP receiver. Returns the ACK to send
    /// back to the source; a malformed packet is counted and refused (no ACK).
    pub fn on_coded(&mut self, pkt: &Coded, payload: Option<&[u8]>) -> Result<Coded, FenderError> {
        let r = self.receive(pkt, payload);
        if r.is_err() {
            self.c.malformed += 1;
        }
        r?;
        let (b, r) = self.expecting();
        let acked = self.cfg.beta as u64 * b as u64 + r as u64;
        Ok(Coded {
            kind: CodedKind::FenderAck,
            flow: self.flow,
            batch: acked as u32,
            tag: pkt.tag,
            code: CodeVector::default(),
            payload_len: 0,
        })
    }

    fn receive(&mut self, pkt: &Coded, payload: Option<&[u8]>) -> Result<(), FenderError> {
        if pkt.kind != CodedKind::Data {
            return Err(FenderError::WrongKind);
        }
        if pkt.flow != self.flow {
            return Err(FenderError::WrongFlow { expected: self.flow, found: pkt.flow });
        }
        if pkt.code.is_empty() || pkt.code.len() > self.cfg.beta {
            return Err(airtcp_coding::CodecError::CodeLength { expected: self.cfg.beta, found: pkt.code.len() }.into());
        }
        if pkt.batch < self.expect {
            self.c.old_discarded += 1;
            return Ok(());
        }
        let held = self.slots.position(pkt.batch).is_some();
        let window_end = self.expect as u64 + self.cfg.max_batches as u64;
        if pkt.batch as u64 >= window_end || (!held && self.slots.held().len() == self.capacity) {
            self.c.beyond_window += 1;
            return Ok(());
        }
        let (i, code) = match self.slots.lookup(pkt.batch, &pkt.code, &mut 0)? {
            (Found::Held(i), code) => (i, code),
            // Not reached: the window check above leaves room.
            (Found::Stale, _) => {
                self.c.beyond_window += 1;
                return Ok(());
            }
        };
        let basis = &mut self.slots.get_mut(i).basis;
        match basis.insert(&code, payload)? {
            Insert::Innovative => self.c.innovative += 1,
            Insert::Redundant => self.c.redundant += 1,
        }
        self.advance()
    }

    /// Decode every full batch from the expected one on, in order.
    fn advance(&mut self) -> Result<(), FenderError> {
        while let Some(i) = self.slots.position(self.expect) {
            let slot = self.slots.get_mut(i);
            if !slot.basis.is_full() {
                break;
            }
            slot.basis.decode()?;
            slot.decoded = true;
            self.ready.push_back(self.expect);
            self.c.decoded += 1;
            self.expect += 1;
        }
        Ok(())
    }

    /// The next decoded native, in order; call until `None` after each
    /// [`FenderReceiver::on_coded`].
    pub fn poll_delivery(&mut self) -> Option<Delivery> {
        loop {
            let batch = *self.ready.front()?;
            let i = self.slots.position(batch).expect("ready batches stay held");
            if self.cursor == self.slots.get(i).basis.beta() {
                self.slots.remove(batch);
                self.ready.pop_front();
                self.cursor = 0;
                continue;
            }
            let index = self.cursor;
            self.cursor += 1;
            let packet = if self.cfg.symbol_len == 0 {
                None
            } else {
                let bytes = self.slots.get(i).basis.native(index).expect("decoded");
                match wire::decode(bytes) {
                    Ok(p) => Some(p),
                    Err(_) => {
                        self.c.undecodable += 1;
                        continue;
                    }
                }
            };
            self.c.delivered += 1;
            return Some(Delivery { batch, index, packet });
        }
    }

    /// End-of-run counters, in a fixed order.
    pub fn counters(&self) -> [(&'static str, u64); 8] {
        let c = &self.c;
        [
            ("innovative", c.innovative),
            ("redundant", c.redundant),
            ("old_discarded", c.old_discarded),
            ("beyond_window", c.beyond_window),
            ("malformed", c.malformed),
            ("batches_decoded", c.decoded),
            ("delivered", c.delivered),
            ("undecodable", c.undecodable),
        ]
    }
}
