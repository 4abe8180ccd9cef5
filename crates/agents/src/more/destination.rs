//! MORE's destination: collects innovative packets until a batch is full
//! rank, decodes it, and answers with a batch ACK that the driver unicasts
//! to the source along the shortest ETX path (MORE §4: ACKs travel by
//! reliable unicast, and forwarders on the way flush the batch). A packet of
//! a batch already decoded is answered with the ACK again, in case the first
//! was lost.

use std::collections::VecDeque;

use airtcp_coding::Insert;
use airtcp_core::{CodeVector, Coded, CodedKind};

use super::{Found, MoreConfig, MoreError, Slots};

/// A batch whose natives are available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodedBatch {
    /// Batch number, counted from 0 per flow.
    pub batch: u32,
    /// Natives in it (β, or fewer for a batch closed by the source's timer).
    pub natives: usize,
}

/// MORE's destination role for one flow (see the module docs).
pub struct MoreDestination {
    flow: u16,
    slots: Slots,
    /// Every batch below this is decoded (MORE holds one batch at a time, so
    /// batches decode in order).
    decoded_below: u32,
    pending: VecDeque<DecodedBatch>,
    last_polled: Option<u32>,
    c: Counters,
}

#[derive(Default)]
struct Counters {
    innovative: u64,
    redundant: u64,
    malformed: u64,
    decoded: u64,
    reacks: u64,
    abandoned: u64,
}

impl MoreDestination {
    /// The destination of `flow`; the error says if `cfg`'s batch geometry is
    /// not one the codec accepts.
    pub fn new(flow: u16, cfg: MoreConfig) -> Result<MoreDestination, MoreError> {
        Ok(MoreDestination {
            flow,
            slots: Slots::new(cfg.max_batches, cfg.beta, cfg.symbol_len)?,
            decoded_below: 0,
            pending: VecDeque::new(),
            last_polled: None,
            c: Counters::default(),
        })
    }

    /// A coded packet addressed to this flow's destination. Returns the
    /// batch ACK to send when the packet completes (or repeats) a batch.
    pub fn handle_coded(&mut self, pkt: &Coded, payload: Option<&[u8]>) -> Result<Option<Coded>, MoreError> {
        let r = self.receive(pkt, payload);
        if r.is_err() {
            self.c.malformed += 1;
        }
        r
    }

    fn receive(&mut self, pkt: &Coded, payload: Option<&[u8]>) -> Result<Option<Coded>, MoreError> {
        if pkt.kind != CodedKind::Data {
            return Err(MoreError::WrongKind);
        }
        if pkt.flow != self.flow {
            return Err(MoreError::WrongFlow { expected: self.flow, found: pkt.flow });
        }
        if pkt.batch < self.decoded_below {
            self.c.reacks += 1;
            return Ok(Some(self.ack(pkt.batch)));
        }
        let (i, code) = match self.slots.lookup(pkt.batch, &pkt.code, &mut self.c.abandoned)? {
            (Found::Held(i), code) => (i, code),
            (Found::Stale, _) => return Ok(None),
        };
        let slot = self.slots.get_mut(i);
        if slot.decoded {
            self.c.reacks += 1;
            return Ok(Some(self.ack(pkt.batch)));
        }
        match slot.basis.insert(&code, payload)? {
            Insert::Redundant => {
                self.c.redundant += 1;
                return Ok(None);
            }
            Insert::Innovative => self.c.innovative += 1,
        }
        if !slot.basis.is_full() {
            return Ok(None);
        }
        slot.basis.decode()?;
        slot.decoded = true;
        let natives = slot.basis.beta();
        self.c.decoded += 1;
        self.pending.push_back(DecodedBatch { batch: pkt.batch, natives });
        while self.slots.position(self.decoded_below).is_some_and(|j| self.slots.get(j).decoded) {
            self.decoded_below += 1;
        }
        Ok(Some(self.ack(pkt.batch)))
    }

    fn ack(&self, batch: u32) -> Coded {
        Coded { kind: CodedKind::BatchAck, flow: self.flow, batch, tag: 0, code: CodeVector::default(), payload_len: 0 }
    }

    /// The next decoded batch. Its natives stay readable through
    /// [`MoreDestination::native`] until the next call.
    pub fn poll_decoded(&mut self) -> Option<DecodedBatch> {
        if let Some(b) = self.last_polled.take() {
            if b < self.decoded_below {
                self.slots.remove(b);
            }
        }
        let d = self.pending.pop_front()?;
        self.last_polled = Some(d.batch);
        Some(d)
    }

    /// Native `i` of a decoded batch still held (real-byte mode), padded to the symbol length.
    pub fn native(&self, batch: u32, i: usize) -> Option<&[u8]> {
        let s = self.slots.get(self.slots.position(batch)?);
        s.basis.native(i)
    }

    /// Rank of `batch` if held.
    pub fn rank(&self, batch: u32) -> Option<usize> {
        self.slots.position(batch).map(|i| self.slots.get(i).basis.rank())
    }

    /// End-of-run counters, in a fixed order.
    pub fn counters(&self) -> [(&'static str, u64); 6] {
        let c = &self.c;
        [
            ("innovative", c.innovative),
            ("redundant", c.redundant),
            ("malformed", c.malformed),
            ("batches_decoded", c.decoded),
            ("reacks", c.reacks),
            ("batches_abandoned", c.abandoned),
        ]
    }
}
