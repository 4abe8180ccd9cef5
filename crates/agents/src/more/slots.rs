//! The batches a node holds for one flow: one [`Basis`] each, in batch
//! order, at most `max` at once (MORE: one; TCPFender's pipelining: several,
//! seed 002 §III.B.1 "all nodes must now maintain packets for multiple
//! batches"). Bases are allocated up front and recycled, so a new batch
//! costs no allocation.

use airtcp_coding::{Basis, CodecError};
use airtcp_core::CodeVector;

pub(crate) struct Slot {
    pub batch: u32,
    pub basis: Basis,
    /// MORE's credit counter for this batch (forwarders).
    pub credit: f64,
    /// TCPFender tag of the latest packet heard from upstream.
    pub tag: u32,
    pub decoded: bool,
}

pub(crate) struct Slots {
    held: Vec<Slot>,
    spare: Vec<Slot>,
    max: usize,
    beta: usize,
}

/// Where a packet's batch stands at this node.
pub(crate) enum Found {
    Held(usize),
    /// Older than every batch held while the node is full: MORE flushes old
    /// batches when a newer one arrives, so there is nowhere to put it.
    Stale,
}

impl Slots {
    /// Up to `max` batches of at most `beta` natives of `symbol_len` bytes.
    pub fn new(max: usize, beta: usize, symbol_len: usize) -> Result<Slots, CodecError> {
        let mut spare = Vec::with_capacity(max);
        for _ in 0..max.max(1) {
            spare.push(Slot { batch: 0, basis: Basis::new(beta, symbol_len)?, credit: 0.0, tag: 0, decoded: false });
        }
        Ok(Slots { held: Vec::with_capacity(max), spare, max: max.max(1), beta })
    }

    pub fn get(&self, i: usize) -> &Slot {
        &self.held[i]
    }

    pub fn get_mut(&mut self, i: usize) -> &mut Slot {
        &mut self.held[i]
    }

    pub fn held(&self) -> &[Slot] {
        &self.held
    }

    pub fn position(&self, batch: u32) -> Option<usize> {
        self.held.iter().position(|s| s.batch == batch)
    }

    /// The slot of `batch`, opened for `code_len` natives if new (evicting
    /// the oldest batch when full; `evicted` counts it). A code length other
    /// than the batch's, zero, or above β is an error.
    pub fn find_or_open(&mut self, batch: u32, code_len: usize, evicted: &mut u64) -> Result<Found, CodecError> {
        if let Some(i) = self.position(batch) {
            let beta = self.held[i].basis.beta();
            if code_len != beta {
                return Err(CodecError::CodeLength { expected: beta, found: code_len });
            }
            return Ok(Found::Held(i));
        }
        if code_len == 0 || code_len > self.beta {
            return Err(CodecError::CodeLength { expected: self.beta, found: code_len });
        }
        if self.held.len() == self.max {
            if batch < self.held[0].batch {
                return Ok(Found::Stale);
            }
            let old = self.held.remove(0);
            self.spare.push(old);
            *evicted += 1;
        }
        let mut slot = self.spare.pop().expect("one spare per free place");
        slot.basis.reset(code_len)?;
        slot.batch = batch;
        slot.credit = 0.0;
        slot.tag = 0;
        slot.decoded = false;
        let at = self.held.partition_point(|s| s.batch < batch);
        self.held.insert(at, slot);
        Ok(Found::Held(at))
    }

    /// The slot for a packet of `batch` with code vector `code`, and the
    /// vector to insert there. A held batch whose vector length differs is a
    /// final, partial batch (TCPFender closes the last batch at k natives):
    /// a shorter vector shrinks the batch to k; a longer one, sent before the
    /// batch was closed, is cut to k if it is zero beyond. Anything else is
    /// malformed.
    pub fn lookup(&mut self, batch: u32, code: &CodeVector, evicted: &mut u64) -> Result<(Found, CodeVector), CodecError> {
        let Some(i) = self.position(batch) else {
            return Ok((self.find_or_open(batch, code.len(), evicted)?, *code));
        };
        let basis = &mut self.held[i].basis;
        let k = basis.beta();
        if code.len() < k {
            if code.is_empty() {
                return Err(CodecError::CodeLength { expected: k, found: 0 });
            }
            basis.shrink(code.len())?;
            return Ok((Found::Held(i), *code));
        }
        if code.len() > k {
            if code.len() > self.beta || code.as_slice()[k..].iter().any(|&c| c != 0) {
                return Err(CodecError::CodeLength { expected: k, found: code.len() });
            }
            return Ok((Found::Held(i), CodeVector::from_slice(&code.as_slice()[..k]).expect("k <= len")));
        }
        Ok((Found::Held(i), *code))
    }

    /// Drop every batch below `batch`; returns how many were dropped.
    pub fn flush_below(&mut self, batch: u32) -> u64 {
        let n = self.held.partition_point(|s| s.batch < batch);
        for s in self.held.drain(..n) {
            self.spare.push(s);
        }
        n as u64
    }

    /// Drop one batch if held.
    pub fn remove(&mut self, batch: u32) {
        if let Some(i) = self.position(batch) {
            let s = self.held.remove(i);
            self.spare.push(s);
        }
    }
}

/// `a` after `b` in TCP sequence space (RFC 9293 §3.4 modular comparison).
pub(crate) fn seq_after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}
