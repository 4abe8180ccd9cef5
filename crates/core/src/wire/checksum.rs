//! The Internet checksum (RFC 1071) as IPv4, TCP, UDP and ICMP use it.
//!
//! Each function takes the bytes the checksum covers and the offset of the
//! checksum field inside them; that field is skipped (taken as zero), so the
//! same function computes the value to store when encoding and the value to
//! expect when decoding.

use etherparse::checksum::Sum16BitWords;

/// The folded checksum as the number to store big-endian. etherparse sums
/// words in native byte order, so its folded result is byte-swapped on
/// little-endian machines; `to_be` undoes that (a no-op on big-endian).
pub(super) fn fold(sum: Sum16BitWords) -> u16 {
    sum.ones_complement().to_be()
}

/// Sum of `bytes` with the two bytes at `csum_at` left out. `csum_at` is even
/// in every header, so only the final slice may have odd length (and
/// etherparse pads it with a zero byte, as RFC 1071 §1 prescribes).
fn sum_skipping(sum: Sum16BitWords, bytes: &[u8], csum_at: usize) -> Sum16BitWords {
    sum.add_slice(&bytes[..csum_at])
        .add_slice(&bytes[csum_at + 2..])
}

/// Checksum of a header or message with no pseudo-header: the IPv4 header
/// (RFC 791 §3.1) and ICMP messages (RFC 792, "Checksum").
pub(super) fn internet(bytes: &[u8], csum_at: usize) -> u16 {
    fold(sum_skipping(Sum16BitWords::new(), bytes, csum_at))
}

/// Checksum of a TCP segment (RFC 9293 §3.1) or UDP datagram (RFC 768)
/// including the IPv4 pseudo-header: source, destination, zero, protocol,
/// and the transport length.
pub(super) fn pseudo(
    src: &[u8; 4],
    dst: &[u8; 4],
    protocol: u8,
    segment: &[u8],
    csum_at: usize,
) -> u16 {
    let sum = Sum16BitWords::new()
        .add_slice(src)
        .add_slice(dst)
        .add_2bytes([0, protocol])
        .add_2bytes((segment.len() as u16).to_be_bytes());
    fold(sum_skipping(sum, segment, csum_at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3 sums 00 01 f2 03 f4 f5 f6 f7 to 0xddf2; the checksum
        // is its complement. The field skipped here is a zero pair appended.
        let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7, 0, 0];
        assert_eq!(internet(&bytes, 8), !0xddf2);
    }

    #[test]
    fn odd_length_pads_with_zero() {
        assert_eq!(internet(&[0, 0, 0x12], 0), internet(&[0, 0, 0x12, 0], 0));
    }
}
