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
use airtcp_core::{wire, CodeVector, Coded, CodedKind, Packet, SeqNum};

use super::{FenderConfig, FenderError};
use crate::more::{Found, Slots};

/// One decoded native, handed up in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Batch the native belongs to.
    pub batch: u32,
    /// Its position in the batch (0..β).
    pub index: usize,
    /// The decoded TCP packet when real bytes travel; `None` in a
    /// coefficient-only run (the driver takes the original from the
    /// sender module, [`super::FenderSender::native_packet`]).
    pub packet: Option<Packet>,
}

/// TCPFender's receiver module for one flow (see the module docs).
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
    /// Right edge of the TCP receiver's window as its last segment out
    /// advertised it, and its window shift (from its SYN-ACK).
    right_edge: Option<SeqNum>,
    rcv_shift: u8,
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
    held_for_window: u64,
}

impl FenderReceiver {
    /// The receiver module of `flow`; the error says if `cfg`'s batch geometry
    /// is not one the codec accepts.
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
            right_edge: None,
            rcv_shift: 0,
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
    /// [`FenderReceiver::on_coded`]. Ungated: see [`FenderReceiver::poll_segment`].
    pub fn poll_delivery(&mut self) -> Option<Delivery> {
        let d = self.peek()?;
        self.advance_cursor();
        self.c.delivered += 1;
        Some(d)
    }

    /// The next decoded segment for the TCP receiver, if it fits the window
    /// that receiver last advertised ([`FenderReceiver::on_tcp_out`]);
    /// otherwise `None`, and it waits for the window to open. The module's
    /// ACKs move the TCP sender's window edge before data reaches the TCP
    /// receiver, so without this a burst of decoded batches could land
    /// beyond the receiver's window and be dropped after being acknowledged.
    /// `original(batch, index)` supplies the segment in a coefficient-only
    /// run (the sender module's `native_packet`); real bytes decode it here.
    pub fn poll_segment(&mut self, original: impl FnOnce(u32, usize) -> Option<Packet>) -> Option<Packet> {
        let d = self.peek()?;
        let Some(p) = d.packet.or_else(|| original(d.batch, d.index)) else {
            self.c.undecodable += 1;
            self.advance_cursor();
            return None;
        };
        let seg = p.segment()?;
        if let Some(edge) = self.right_edge {
            if seg.seq + seg.payload_len > edge {
                self.c.held_for_window += 1;
                return None;
            }
        }
        self.advance_cursor();
        self.c.delivered += 1;
        Some(p)
    }

    /// A segment the TCP receiver sends (its ACKs, passing down through
    /// this module): learn the right edge of its window.
    pub fn on_tcp_out(&mut self, pkt: &Packet) {
        let Some(seg) = pkt.segment() else { return };
        if !seg.flags.ack() {
            return;
        }
        let window = if seg.flags.syn() {
            // RFC 7323 §2.2: a SYN's window is never scaled; it carries the shift.
            self.rcv_shift = seg.wscale.unwrap_or(0);
            seg.window as u32
        } else {
            (seg.window as u32) << self.rcv_shift
        };
        self.right_edge = Some(seg.ack + window);
    }

    /// The next decoded native without taking it (undecodable ones skipped).
    fn peek(&mut self) -> Option<Delivery> {
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
            if self.cfg.symbol_len == 0 {
                return Some(Delivery { batch, index, packet: None });
            }
            let bytes = self.slots.get(i).basis.native(index).expect("decoded");
            match wire::decode(bytes) {
                Ok(p) => return Some(Delivery { batch, index, packet: Some(p) }),
                Err(_) => {
                    self.c.undecodable += 1;
                    self.cursor += 1;
                }
            }
        }
    }

    fn advance_cursor(&mut self) {
        self.cursor += 1;
    }

    /// End-of-run counters, in a fixed order.
    pub fn counters(&self) -> [(&'static str, u64); 9] {
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
            ("held_for_window", c.held_for_window),
        ]
    }
}
