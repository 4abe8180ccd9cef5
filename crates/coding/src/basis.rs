//! The subspace a node holds for one batch, kept in row-echelon form by
//! incremental Gaussian elimination.
//!
//! Every row has a pivot column whose coefficient is 1 and nothing to its
//! left, and no two rows share a pivot. A new packet is reduced against the
//! rows in pivot order; whatever is left is nonzero exactly when the packet
//! is innovative (linearly independent of what is held), and then becomes a
//! new row. Reduction touches only the new row, so a forwarder pays β·rank
//! coefficient operations per packet and never rewrites what it holds.
//! Decoding (back-substitution to the identity) runs once, at full rank.
//!
//! Payload rows, when present, undergo exactly the same row operations as
//! the coefficient rows: the two modes share this code and differ only in
//! whether `symbol_len` is zero.

use airtcp_core::{CodeVector, RngStream, MAX_BATCH};

use crate::error::CodecError;
use crate::gf;
use crate::symbol::Symbol;

/// No row holds this pivot column.
const NO_ROW: u8 = u8::MAX;

/// What inserting a packet did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// Independent of the rows held: rank grew by one.
    Innovative,
    /// In the span of the rows held: nothing changed.
    Redundant,
}

/// What a forwarder or the destination holds of one batch: the innovative
/// packets seen, in row-echelon form (see the module comment).
#[derive(Clone, Debug)]
pub struct Basis {
    beta: usize,
    symbol_len: usize,
    rank: usize,
    /// Row index holding each pivot column, or [`NO_ROW`].
    pivot_row: [u8; MAX_BATCH],
    /// `rank` rows of β coefficients, then one scratch row; stride [`MAX_BATCH`].
    coeffs: Vec<u8>,
    /// `rank` payload rows, then one scratch row; stride `symbol_len`.
    payload: Vec<u8>,
    decoded: bool,
}

impl Basis {
    /// An empty basis for batches of `beta` natives of `symbol_len` bytes
    /// (0: code vectors only). Buffers are allocated here, once.
    pub fn new(beta: usize, symbol_len: usize) -> Result<Basis, CodecError> {
        check_beta(beta)?;
        Ok(Basis {
            beta,
            symbol_len,
            rank: 0,
            pivot_row: [NO_ROW; MAX_BATCH],
            coeffs: vec![0; (MAX_BATCH + 1) * MAX_BATCH],
            payload: vec![0; (MAX_BATCH + 1) * symbol_len],
            decoded: false,
        })
    }

    /// Forget every row and start a batch of `beta` natives (at most
    /// [`MAX_BATCH`]); keeps the buffers.
    pub fn reset(&mut self, beta: usize) -> Result<(), CodecError> {
        check_beta(beta)?;
        self.beta = beta;
        self.rank = 0;
        self.pivot_row = [NO_ROW; MAX_BATCH];
        self.decoded = false;
        Ok(())
    }

    /// Natives in the batch (β): the rank at which it decodes.
    pub fn beta(&self) -> usize {
        self.beta
    }

    /// Bytes of each payload row; 0 when only code vectors are kept.
    pub fn symbol_len(&self) -> usize {
        self.symbol_len
    }

    /// Dimension of the subspace held: the number of innovative packets seen.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Full rank: the batch can be decoded, and nothing more is innovative.
    pub fn is_full(&self) -> bool {
        self.rank == self.beta
    }

    /// Reduce a received packet against the rows held and keep it if it is
    /// innovative. `payload` must be `Some` of `symbol_len` bytes exactly
    /// when the basis carries bytes. A malformed packet is an error and
    /// changes nothing.
    pub fn insert(&mut self, code: &CodeVector, payload: Option<&[u8]>) -> Result<Insert, CodecError> {
        self.check(code, payload)?;
        if self.is_full() {
            return Ok(Insert::Redundant);
        }
        let (beta, len, new) = (self.beta, self.symbol_len, self.rank);
        self.coeffs[new * MAX_BATCH..new * MAX_BATCH + beta].copy_from_slice(code.as_slice());
        if let Some(p) = payload {
            self.payload[new * len..(new + 1) * len].copy_from_slice(p);
        }
        let (held_c, new_c) = self.coeffs.split_at_mut(new * MAX_BATCH);
        let (held_p, new_p) = self.payload.split_at_mut(new * len);
        let new_c = &mut new_c[..beta];
        let new_p = &mut new_p[..len];
        let mut pivot = None;
        for col in 0..beta {
            let f = new_c[col];
            if f == 0 {
                continue;
            }
            let r = self.pivot_row[col];
            if r == NO_ROW {
                pivot.get_or_insert(col);
                continue;
            }
            let r = r as usize;
            // The held row is zero left of `col`: only columns from `col` on change.
            gf::axpy(&mut new_c[col..], f, &held_c[r * MAX_BATCH + col..r * MAX_BATCH + beta]);
            gf::axpy(new_p, f, &held_p[r * len..(r + 1) * len]);
        }
        // A candidate pivot is never changed afterwards (reduction at a later
        // column touches only columns from there on), and every column with a
        // held row was zeroed: no candidate means the row reduced to zero.
        match pivot {
            Some(p) => {
                self.adopt(p);
                Ok(Insert::Innovative)
            }
            None => Ok(Insert::Redundant),
        }
    }

    /// Make the scratch row a held row with pivot `p`: scale it so the pivot is 1.
    fn adopt(&mut self, p: usize) {
        let (beta, len, new) = (self.beta, self.symbol_len, self.rank);
        let inv = gf::inv(self.coeffs[new * MAX_BATCH + p]).expect("pivot is nonzero");
        gf::scale(&mut self.coeffs[new * MAX_BATCH + p..new * MAX_BATCH + beta], inv);
        gf::scale(&mut self.payload[new * len..(new + 1) * len], inv);
        self.pivot_row[p] = new as u8;
        self.rank += 1;
        self.decoded = false;
    }

    /// The batch turned out to have only `k` natives (a final, partial
    /// batch announced after packets were already received with room for
    /// more): keep the rows, now over `k` columns. Every row held must be
    /// zero beyond column `k`; otherwise the announcement is malformed and
    /// nothing changes.
    pub fn shrink(&mut self, k: usize) -> Result<(), CodecError> {
        let bad = CodecError::CodeLength { expected: self.beta, found: k };
        if k == 0 || k > self.beta {
            return Err(bad);
        }
        for r in 0..self.rank {
            if self.coeffs[r * MAX_BATCH + k..r * MAX_BATCH + self.beta].iter().any(|&c| c != 0) {
                return Err(bad);
            }
        }
        self.beta = k;
        Ok(())
    }

    /// Would this packet be innovative? Reduces a copy; holds nothing.
    pub fn is_innovative(&self, code: &CodeVector) -> Result<bool, CodecError> {
        if code.len() != self.beta {
            return Err(CodecError::CodeLength { expected: self.beta, found: code.len() });
        }
        let mut v = *code;
        let v = v.as_mut_slice();
        for col in 0..self.beta {
            let f = v[col];
            if f == 0 {
                continue;
            }
            let r = self.pivot_row[col];
            if r == NO_ROW {
                return Ok(true);
            }
            let r = r as usize;
            gf::axpy(&mut v[col..], f, &self.coeffs[r * MAX_BATCH + col..r * MAX_BATCH + self.beta]);
        }
        Ok(false)
    }

    /// A random combination (nonzero coefficients) of the rows held, written into `out` (MORE's
    /// recoding at forwarders: the result is in the span of what was
    /// received, so it never carries information the node does not have).
    /// With rank 0 the result is the zero vector.
    pub fn recode(&self, rng: &mut RngStream, out: &mut Symbol) {
        out.code = CodeVector::zero(self.beta).expect("beta checked");
        out.payload.resize(self.symbol_len, 0);
        out.payload.fill(0);
        let mut draws = Coefficients::default();
        for r in 0..self.rank {
            let c = draws.next(rng);
            let row = &self.coeffs[r * MAX_BATCH..r * MAX_BATCH + self.beta];
            gf::axpy(out.code.as_mut_slice(), c, row);
            gf::axpy(&mut out.payload, c, &self.payload[r * self.symbol_len..(r + 1) * self.symbol_len]);
        }
    }

    /// Back-substitute to the identity so that row `i`'s payload is native
    /// `i`. Needs full rank; idempotent.
    pub fn decode(&mut self) -> Result<(), CodecError> {
        if !self.is_full() {
            return Err(CodecError::NotFullRank { rank: self.rank, beta: self.beta });
        }
        if self.decoded {
            return Ok(());
        }
        let (beta, len) = (self.beta, self.symbol_len);
        for p in (0..beta).rev() {
            let rp = self.pivot_row[p] as usize;
            // Only rows with a pivot left of p can be nonzero in column p.
            for q in 0..p {
                let rq = self.pivot_row[q] as usize;
                let f = self.coeffs[rq * MAX_BATCH + p];
                if f == 0 {
                    continue;
                }
                let (src_c, dst_c) = two_rows(&mut self.coeffs, MAX_BATCH, rp, rq);
                gf::axpy(&mut dst_c[p..beta], f, &src_c[p..beta]);
                if len > 0 {
                    let (src_p, dst_p) = two_rows(&mut self.payload, len, rp, rq);
                    gf::axpy(dst_p, f, src_p);
                }
            }
        }
        self.decoded = true;
        Ok(())
    }

    /// Native packet `i` (padded to `symbol_len`) after [`Basis::decode`];
    /// `None` before, past β, or in coefficient-only mode.
    pub fn native(&self, i: usize) -> Option<&[u8]> {
        if !self.decoded || i >= self.beta || self.symbol_len == 0 {
            return None;
        }
        let r = self.pivot_row[i] as usize;
        Some(&self.payload[r * self.symbol_len..(r + 1) * self.symbol_len])
    }

    fn check(&self, code: &CodeVector, payload: Option<&[u8]>) -> Result<(), CodecError> {
        if code.len() != self.beta {
            return Err(CodecError::CodeLength { expected: self.beta, found: code.len() });
        }
        let found = payload.map_or(0, <[u8]>::len);
        if found != self.symbol_len || (payload.is_some() && self.symbol_len == 0) {
            return Err(CodecError::PayloadLength { expected: self.symbol_len, found });
        }
        Ok(())
    }
}

fn check_beta(beta: usize) -> Result<(), CodecError> {
    if beta == 0 || beta > MAX_BATCH {
        return Err(CodecError::BadBatchSize { beta });
    }
    Ok(())
}

/// Rows `src` and `dst` (distinct) of a row-major buffer with the given stride.
fn two_rows(buf: &mut [u8], stride: usize, src: usize, dst: usize) -> (&[u8], &mut [u8]) {
    debug_assert_ne!(src, dst);
    if src < dst {
        let (a, b) = buf.split_at_mut(dst * stride);
        (&a[src * stride..(src + 1) * stride], &mut b[..stride])
    } else {
        let (a, b) = buf.split_at_mut(src * stride);
        (&b[..stride], &mut a[dst * stride..(dst + 1) * stride])
    }
}

/// Uniform nonzero GF(2^8) coefficients, up to eight per 64-bit draw of the
/// stream (a zero byte is skipped). Nonzero, so that a packet released
/// after the first native of a batch is never the useless zero vector, and
/// every native present takes part in every packet.
#[derive(Default)]
pub(crate) struct Coefficients {
    word: u64,
    left: u8,
}

impl Coefficients {
    pub(crate) fn next(&mut self, rng: &mut RngStream) -> u8 {
        loop {
            if self.left == 0 {
                self.word = rng.next_u64();
                self.left = 8;
            }
            let c = self.word as u8;
            self.word >>= 8;
            self.left -= 1;
            if c != 0 {
                return c;
            }
        }
    }
}
