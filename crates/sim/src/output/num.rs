//! Number formatting for the CSV writer, byte-identical to Rust's `Display`
//! (`{}`) but without the `fmt` machinery: the series and segment logs of a
//! long run are a few hundred thousand rows, and `write!` per value was most
//! of the output time.
//!
//! Every float in the CSVs is [`crate::secs`] of an integer-nanosecond time,
//! so the fast path recovers that integer and prints it as a decimal. When
//! that decimal has at most 15 significant digits and converts back to the
//! same `f64`, it is the unique shortest round-trip representation (any
//! other decimal of at most that length differs from it by at least one unit
//! in its last digit, which is more than one ulp), which is exactly what
//! `Display` prints. Anything else falls back to `Display`.

use std::io::Write;

/// Two ASCII digits per entry, "00".."99".
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Append `bytes[..len]`. Copying the whole fixed-size array and cutting
/// the Vec back is a few register moves; a copy of a variable-length slice
/// is a `memmove` call, which per number was a visible part of writing the CSVs.
#[inline]
fn push_prefix<const N: usize>(out: &mut Vec<u8>, bytes: &[u8; N], len: usize) {
    let start = out.len();
    out.extend_from_slice(bytes);
    out.truncate(start + len);
}

/// Number of decimal digits of `v` (1 for 0).
#[inline]
fn digits(v: u64) -> usize {
    let mut n = 1;
    let mut p = 10u64;
    while n < 20 && v >= p {
        n += 1;
        p = p.wrapping_mul(10);
    }
    n
}

/// Append the decimal digits of `v`.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let n = digits(v);
    let mut buf = [0u8; 20];
    let mut i = n;
    while v >= 100 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
    }
    if v >= 10 {
        let d = v as usize * 2;
        buf[0..2].copy_from_slice(&PAIRS[d..d + 2]);
    } else {
        buf[0] = b'0' + v as u8;
    }
    push_prefix(out, &buf, n);
}

/// Append `s` (at most 16 bytes) with a fixed-size copy.
#[inline]
pub fn push_short(out: &mut Vec<u8>, s: &str) {
    let mut buf = [0u8; 16];
    let n = s.len().min(16);
    buf[..n].copy_from_slice(&s.as_bytes()[..n]);
    push_prefix(out, &buf, n);
}

/// Largest nanosecond count whose decimal in seconds has at most 15
/// significant digits (just under 10^6 s, i.e. 11.6 days of simulated time).
const FAST_MAX_NS: u64 = 999_999_999_999_999;

/// Append `v` exactly as `format!("{v}")` would.
#[inline]
pub fn push_secs(out: &mut Vec<u8>, v: f64) {
    // Candidate integer: for `v = secs(ns)` with ns < 10^15, `v * 1e9` is
    // within 0.25 of ns, so adding 0.5 and truncating finds it; the bitwise
    // check below rejects any other value (and -0.0, NaN, infinities).
    let x = v * 1e9 + 0.5;
    if x >= 0.5 && x <= FAST_MAX_NS as f64 {
        let ns = x as u64;
        if crate::secs(ns).to_bits() == v.to_bits() {
            push_ns_as_secs(out, ns);
            return;
        }
    }
    let _ = write!(out, "{v}");
}

/// `ns / 10^9` as a decimal: integer seconds, then the fraction without
/// trailing zeros (none at all for whole seconds).
#[inline]
fn push_ns_as_secs(out: &mut Vec<u8>, ns: u64) {
    push_u64(out, ns / 1_000_000_000);
    let frac = (ns % 1_000_000_000) as usize;
    if frac == 0 {
        return;
    }
    // All nine fraction digits, then drop the trailing zeros.
    let mut buf = [b'.'; 10];
    buf[1] = b'0' + (frac / 100_000_000) as u8;
    let rest = frac % 100_000_000;
    for (k, pair) in [rest / 1_000_000, rest / 10_000 % 100, rest / 100 % 100, rest % 100].into_iter().enumerate() {
        buf[2 + 2 * k..4 + 2 * k].copy_from_slice(&PAIRS[pair * 2..pair * 2 + 2]);
    }
    let mut len = buf.len();
    while buf[len - 1] == b'0' {
        len -= 1;
    }
    push_prefix(out, &buf, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs_str(v: f64) -> String {
        let mut out = Vec::new();
        push_secs(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn integers_match_display() {
        for v in [0u64, 1, 9, 10, 99, 100, 101, 999, 1000, 65535, 1 << 32, 123_456_789_012, u64::MAX] {
            let mut out = Vec::new();
            push_u64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
    }

    #[test]
    fn digit_counts_and_short_strings() {
        for (v, n) in [(0, 1), (9, 1), (10, 2), (99, 2), (100, 3), (999_999, 6), (1_000_000, 7), (u64::MAX, 20)] {
            assert_eq!(digits(v), n, "{v}");
        }
        let mut out = b"x".to_vec();
        push_short(&mut out, "Recovery");
        push_short(&mut out, "");
        assert_eq!(out, b"xRecovery");
    }

    #[test]
    fn round_seconds_print_as_display() {
        assert_eq!(secs_str(0.0), "0");
        assert_eq!(secs_str(60.0), "60");
        assert_eq!(secs_str(0.01), "0.01");
        assert_eq!(secs_str(599.99), "599.99");
        assert_eq!(secs_str(crate::secs(1)), "0.000000001");
        assert_eq!(secs_str(crate::secs(48_612_345)), "0.048612345");
    }

    #[test]
    fn secs_of_many_ns_match_display() {
        // A fixed xorshift sequence over every magnitude from 1 ns to ~3 years.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let ns = x >> (i % 58 + 6);
            let v = crate::secs(ns);
            assert_eq!(secs_str(v), format!("{v}"), "ns = {ns}");
        }
    }

    #[test]
    fn other_floats_fall_back_to_display() {
        for v in [0.1 + 0.2, 1e-12, 1.5e300, 123.456_789_012_345_67, f64::MAX, f64::MIN_POSITIVE, -0.5, -0.0] {
            assert_eq!(secs_str(v), format!("{v}"), "{v:e}");
        }
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(secs_str(v), format!("{v}"));
        }
    }
}
