//! GF(2^8) arithmetic: a thin layer over `reed_solomon_erasure::galois_8`
//! so the rest of the crate names operations by what RLNC does with them.

use reed_solomon_erasure::galois_8 as g;

/// Product in GF(2^8).
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    g::mul(a, b)
}

/// Multiplicative inverse of a nonzero element; `None` for zero.
#[inline]
pub fn inv(a: u8) -> Option<u8> {
    (a != 0).then(|| g::div(1, a))
}

/// `dst[i] ^= c · src[i]`: add a multiple of one row to another (addition is
/// XOR in characteristic 2). Skips the work for c = 0 and for empty rows
/// (the crate's SIMD path indexes the first byte unconditionally).
#[inline]
pub fn axpy(dst: &mut [u8], c: u8, src: &[u8]) {
    debug_assert_eq!(dst.len(), src.len());
    if c != 0 && !src.is_empty() {
        g::mul_slice_xor(c, src, dst);
    }
}

/// `row[i] = c · row[i]` in place.
#[inline]
pub fn scale(row: &mut [u8], c: u8) {
    if c != 1 {
        for x in row.iter_mut() {
            *x = g::mul(c, *x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nonzero_element_has_an_inverse() {
        assert_eq!(inv(0), None);
        for a in 1..=255u8 {
            assert_eq!(mul(a, inv(a).unwrap()), 1, "a = {a}");
        }
    }

    #[test]
    fn field_uses_polynomial_0x11d() {
        // x^7 · x = x^8 = x^4 + x^3 + x^2 + 1 (0x1D) under 0x11D.
        assert_eq!(mul(0x80, 2), 0x1d);
        assert_eq!(mul(3, 7), 9); // (x+1)(x^2+x+1) = x^3+1, no reduction
    }

    #[test]
    fn axpy_matches_elementwise_products() {
        let src: Vec<u8> = (0..=255).collect();
        let mut dst = vec![0x5a; 256];
        axpy(&mut dst, 0x37, &src);
        for (i, &d) in dst.iter().enumerate() {
            assert_eq!(d, 0x5a ^ mul(0x37, i as u8));
        }
        let before = dst.clone();
        axpy(&mut dst, 0, &src);
        assert_eq!(dst, before);
    }
}
