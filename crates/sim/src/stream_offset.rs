//! Sequence numbers as stream offsets: a 32-bit TCP sequence number unwrapped
//! to the 64-bit offset it stands for. A leaf, shared by the flow bookkeeping
//! and the hosts that record events (both read sequence numbers).

use airtcp_core::SeqNum;

/// Map a 32-bit sequence number to a 64-bit stream offset: the value
/// congruent to `seq - base` (mod 2^32) closest to `hint`, never negative.
#[inline]
pub fn unwrap_seq(seq: SeqNum, base: SeqNum, hint: u64) -> u64 {
    const M: i128 = 1 << 32;
    let d = seq.0.wrapping_sub(base.0) as i128;
    let h = hint as i128;
    let c = (h & !(M - 1)) | d;
    let mut best = c;
    for cand in [c - M, c + M] {
        if (cand - h).abs() < (best - h).abs() {
            best = cand;
        }
    }
    best.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwrap_follows_wraps_and_clamps_before_base() {
        let base = SeqNum(u32::MAX - 999);
        assert_eq!(unwrap_seq(base, base, 0), 0);
        assert_eq!(unwrap_seq(base + 2000, base, 1000), 2000);
        assert_eq!(unwrap_seq(base + 5, base, (1 << 32) + 10), (1 << 32) + 5);
        assert_eq!(unwrap_seq(base - 1, base, 0), 0);
    }
}
