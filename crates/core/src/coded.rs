//! Network-coded packets (MORE, TCPFender): the header fields the network
//! acts on, small and `Copy` like every other payload kind.
//!
//! A coded packet is a random linear combination of the native packets of one
//! batch; its code vector says which. The vector travels inline (at most
//! [`MAX_BATCH`] bytes) so a forwarder can test innovativeness without a
//! lookup. Payload bytes are not carried, as for TCP: `payload_len` is, and a
//! driver that checks real bytes keeps them beside the packet (keyed by its
//! own packet slot), so the packet stays as small as a TCP one.
//! The wire layout is in [`crate::wire`] (`coded.rs`).

/// Largest batch a code vector can describe. MORE uses K = 32 (Chachulski et
/// al., SIGCOMM 2007, §5); TCPFender β = 50 (seed 002 §III.B.1). 52 is the
/// most that keeps [`Coded`] no larger than a TCP segment, so adding this
/// payload kind does not grow every packet the simulator moves.
pub const MAX_BATCH: usize = 52;

/// Bytes before the code vector: kind, vector length, flow, batch, tag.
pub const CODED_HEADER_LEN: u32 = 12;

/// A code vector over GF(2^8): coefficient `i` multiplies native packet `i` of the batch.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeVector {
    len: u8,
    c: [u8; MAX_BATCH],
}

impl CodeVector {
    /// The zero vector of `len` coefficients; `None` past [`MAX_BATCH`].
    pub fn zero(len: usize) -> Option<CodeVector> {
        (len <= MAX_BATCH).then_some(CodeVector { len: len as u8, c: [0; MAX_BATCH] })
    }

    /// A copy of `coeffs`; `None` past [`MAX_BATCH`].
    pub fn from_slice(coeffs: &[u8]) -> Option<CodeVector> {
        let mut v = CodeVector::zero(coeffs.len())?;
        v.c[..coeffs.len()].copy_from_slice(coeffs);
        Some(v)
    }

    /// Unit vector `e_i` of length `len`: the native packet `i` itself.
    pub fn unit(len: usize, i: usize) -> Option<CodeVector> {
        let mut v = CodeVector::zero(len)?;
        *v.as_mut_slice().get_mut(i)? = 1;
        Some(v)
    }

    /// Number of coefficients: the batch size β (k for a partial final batch).
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the vector has no coefficient (an ACK's).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The coefficients, native 0 first.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.c[..self.len as usize]
    }

    /// The coefficients, for a recoder that overwrites them in place.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.c[..self.len as usize]
    }

    /// True when every coefficient is zero (the packet carries nothing).
    pub fn is_zero(&self) -> bool {
        self.as_slice().iter().all(|&c| c == 0)
    }
}

impl Default for CodeVector {
    fn default() -> Self {
        CodeVector { len: 0, c: [0; MAX_BATCH] }
    }
}

impl std::fmt::Debug for CodeVector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CodeVector{:?}", self.as_slice())
    }
}

/// What a coded-protocol packet is. Discriminants are the wire's kind byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum CodedKind {
    /// A coded data packet of batch `batch`.
    Data = 1,
    /// The destination's batch ACK (MORE §4.2.3): batch `batch` is decoded.
    /// Its code vector is empty and it has no payload.
    BatchAck = 2,
    /// TCPFender's receiver-module ACK (seed 002 §III.B.2): `batch` holds the
    /// ACK number in packets, β(b−1)+r; `tag` echoes the tag of the coded
    /// packet that triggered it. No code vector, no payload.
    FenderAck = 3,
}

impl CodedKind {
    /// The kind for the wire's kind byte; `None` for an unknown kind (a
    /// malformed packet, which the decoder reports).
    pub fn from_byte(b: u8) -> Option<CodedKind> {
        match b {
            1 => Some(CodedKind::Data),
            2 => Some(CodedKind::BatchAck),
            3 => Some(CodedKind::FenderAck),
            _ => None,
        }
    }
}

/// A coded packet's header as the simulator moves it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Coded {
    /// Data, batch ACK or TCPFender ACK.
    pub kind: CodedKind,
    /// The coded flow (one source-destination transfer).
    pub flow: u16,
    /// Batch index, counted from 0 by the source (for a
    /// [`CodedKind::FenderAck`], the ACK number in packets).
    pub batch: u32,
    /// TCPFender's tag (seed 002 §III.B.3): the TCP sequence number of the
    /// segment whose arrival released this packet; echoed in the ACK it
    /// triggers. 0 under plain MORE.
    pub tag: u32,
    /// Which combination of the batch's natives the payload is (empty for ACKs).
    pub code: CodeVector,
    /// Length of the coded payload (every native padded to this length).
    pub payload_len: u16,
}

impl Coded {
    /// Bytes after the IPv4 header: header, code vector, payload.
    #[inline]
    pub fn len(&self) -> u32 {
        CODED_HEADER_LEN + self.code.len() as u32 + self.payload_len as u32
    }

    /// Always false: a coded packet has at least its 12-byte header (here for
    /// clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_vector_bounds() {
        assert!(CodeVector::zero(MAX_BATCH).is_some());
        assert!(CodeVector::zero(MAX_BATCH + 1).is_none());
        assert!(CodeVector::unit(4, 4).is_none());
        assert_eq!(CodeVector::unit(4, 2).unwrap().as_slice(), &[0, 0, 1, 0]);
        assert!(CodeVector::zero(3).unwrap().is_zero());
    }

    #[test]
    fn coded_payload_is_no_larger_than_a_segment() {
        assert!(std::mem::size_of::<Coded>() <= std::mem::size_of::<crate::segment::Segment>());
    }

    #[test]
    fn coded_length_counts_header_vector_and_payload() {
        let c = Coded {
            kind: CodedKind::Data,
            flow: 1,
            batch: 0,
            tag: 0,
            code: CodeVector::zero(50).unwrap(),
            payload_len: 1500,
        };
        assert_eq!(c.len(), 12 + 50 + 1500);
    }
}
