//! The source side of a batch: the natives received so far, and random
//! combinations of them.
//!
//! Natives may arrive one by one while the batch is already being sent
//! (TCPFender's early release, seed 002 §III.B.1): a packet coded after k
//! natives mixes those k with random coefficients and has zeros for the rest,
//! so it is still a valid packet of the β-native batch.

use airtcp_core::{CodeVector, RngStream, MAX_BATCH};

use crate::basis::Coefficients;
use crate::error::CodecError;
use crate::gf;
use crate::symbol::Symbol;

/// The source's side of one batch: the natives, from which every coded
/// packet it sends is a fresh random combination.
#[derive(Clone, Debug)]
pub struct BatchEncoder {
    beta: usize,
    symbol_len: usize,
    natives: usize,
    /// β rows of `symbol_len` bytes, zero-padded.
    data: Vec<u8>,
}

impl BatchEncoder {
    /// An empty batch of up to `beta` natives of at most `symbol_len` bytes
    /// (0: natives are counted, not stored).
    pub fn new(beta: usize, symbol_len: usize) -> Result<BatchEncoder, CodecError> {
        if beta == 0 || beta > MAX_BATCH {
            return Err(CodecError::BadBatchSize { beta });
        }
        Ok(BatchEncoder { beta, symbol_len, natives: 0, data: vec![0; beta * symbol_len] })
    }

    /// Start the next batch; keeps the buffer.
    pub fn reset(&mut self) {
        self.natives = 0;
        self.data.fill(0);
    }

    /// Natives the batch takes (β).
    pub fn beta(&self) -> usize {
        self.beta
    }

    /// Natives added so far (k).
    pub fn natives(&self) -> usize {
        self.natives
    }

    /// The batch holds β natives: no more can be pushed until [`Self::reset`].
    pub fn is_full(&self) -> bool {
        self.natives == self.beta
    }

    /// Add the next native; returns its index in the batch. `payload` is
    /// zero-padded to `symbol_len`; it must be `Some` exactly when bytes are carried.
    pub fn push(&mut self, payload: Option<&[u8]>) -> Result<usize, CodecError> {
        if self.is_full() {
            return Err(CodecError::BatchFull { beta: self.beta });
        }
        let found = payload.map_or(0, <[u8]>::len);
        if found > self.symbol_len || payload.is_some() != (self.symbol_len > 0) {
            return Err(CodecError::PayloadLength { expected: self.symbol_len, found });
        }
        let i = self.natives;
        if let Some(p) = payload {
            self.data[i * self.symbol_len..i * self.symbol_len + p.len()].copy_from_slice(p);
        }
        self.natives += 1;
        Ok(i)
    }

    /// Replace native `i` (a TCP retransmission carrying the same segment
    /// with, say, a new timestamp); the batch's span is otherwise unchanged.
    pub fn replace(&mut self, i: usize, payload: Option<&[u8]>) -> Result<(), CodecError> {
        let found = payload.map_or(0, <[u8]>::len);
        if i >= self.natives {
            return Err(CodecError::NoSuchNative { index: i, natives: self.natives });
        }
        if found > self.symbol_len || payload.is_some() != (self.symbol_len > 0) {
            return Err(CodecError::PayloadLength { expected: self.symbol_len, found });
        }
        let row = &mut self.data[i * self.symbol_len..(i + 1) * self.symbol_len];
        row.fill(0);
        if let Some(p) = payload {
            row[..p.len()].copy_from_slice(p);
        }
        Ok(())
    }

    /// A random combination of the natives added so far into `out`: uniform
    /// nonzero coefficients for natives `0..k`, zero for the rest. With k = 0 the
    /// result is the zero vector (callers send nothing then).
    pub fn encode(&self, rng: &mut RngStream, out: &mut Symbol) {
        out.code = CodeVector::zero(self.beta).expect("beta checked");
        out.payload.resize(self.symbol_len, 0);
        out.payload.fill(0);
        let mut draws = Coefficients::default();
        for i in 0..self.natives {
            let c = draws.next(rng);
            out.code.as_mut_slice()[i] = c;
            gf::axpy(&mut out.payload, c, &self.data[i * self.symbol_len..(i + 1) * self.symbol_len]);
        }
    }

    /// Native `i` as stored (padded), when bytes are carried.
    pub fn native(&self, i: usize) -> Option<&[u8]> {
        (i < self.natives && self.symbol_len > 0).then(|| &self.data[i * self.symbol_len..(i + 1) * self.symbol_len])
    }
}
