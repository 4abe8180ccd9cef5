//! Why a coded packet was refused. The cores count these and drop the
//! packet; nothing here panics on input from the network.

use std::fmt;

/// A coded packet, or a request about one, that the batch cannot take; each
/// variant carries the two numbers that disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are named by what they count; the variants say what disagrees
pub enum CodecError {
    /// The code vector does not have one coefficient per native of the batch.
    CodeLength { expected: usize, found: usize },
    /// A payload row of the wrong length, or a payload in a coefficient-only
    /// structure (or none where bytes are carried).
    PayloadLength { expected: usize, found: usize },
    /// The batch already holds β natives.
    BatchFull { beta: usize },
    /// β is zero or above [`airtcp_core::MAX_BATCH`].
    BadBatchSize { beta: usize },
    /// A native index the batch does not hold.
    NoSuchNative { index: usize, natives: usize },
    /// Decoding asked of a basis below full rank.
    NotFullRank { rank: usize, beta: usize },
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CodecError::CodeLength { expected, found } => {
                write!(f, "code vector has {found} coefficients, the batch has {expected} natives")
            }
            CodecError::PayloadLength { expected, found } => {
                write!(f, "payload of {found} bytes where {expected} are expected")
            }
            CodecError::BatchFull { beta } => write!(f, "batch already holds its {beta} natives"),
            CodecError::BadBatchSize { beta } => {
                write!(f, "batch size {beta} outside 1..={}", airtcp_core::MAX_BATCH)
            }
            CodecError::NoSuchNative { index, natives } => {
                write!(f, "native {index} is not in the batch (it holds {natives})")
            }
            CodecError::NotFullRank { rank, beta } => write!(f, "cannot decode: rank {rank} of {beta}"),
        }
    }
}

impl std::error::Error for CodecError {}
