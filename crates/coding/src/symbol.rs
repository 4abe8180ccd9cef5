//! One coded packet's content: a code vector and, when real bytes are
//! carried, its payload. Callers keep one and let the coder overwrite it, so
//! producing a packet allocates nothing.

use airtcp_core::CodeVector;

/// A coded packet's content, reused from packet to packet.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Symbol {
    /// One GF(2^8) coefficient per native of the batch.
    pub code: CodeVector,
    /// Empty in coefficient-only mode.
    pub payload: Vec<u8>,
}

impl Symbol {
    /// A buffer for batches of `beta` natives of `symbol_len` bytes (0: coefficients only).
    pub fn new(beta: usize, symbol_len: usize) -> Symbol {
        Symbol { code: CodeVector::zero(beta).unwrap_or_default(), payload: vec![0; symbol_len] }
    }

    /// The payload, or `None` in coefficient-only mode.
    pub fn payload(&self) -> Option<&[u8]> {
        (!self.payload.is_empty()).then_some(&self.payload[..])
    }
}
