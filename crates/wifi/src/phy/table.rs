//! A precomputed table of [`super::error::log_success_per_bit`] over SINR,
//! for the medium's per-chunk reception (the union bounds and erfc calls of
//! the exact model cost about a microsecond per chunk; a campus of
//! thousands of radios evaluates millions of chunks).
//!
//! The table samples every modulation at 512 points per octave of linear
//! SINR (about 0.0059 dB apart) from 2^-7 (−21.07 dB) to 2^17 (+51.18 dB),
//! and is indexed by the bits of the `f64` itself: the exponent picks the
//! octave and the top nine bits of the mantissa the point, so no
//! logarithm is taken per chunk. Between two points the value is
//! interpolated linearly in the SINR: the per-bit log-probability changes
//! by at most a few percent per step even in the waterfall of 64-QAM, so
//! the interpolated value stays within 0.1 % of the exact one (tested).
//! Below the first point its value is used (no frame decodes there at any
//! rate); above the last, the last (its frame error rate is below 1e-12).
//! Values are stored as `f32` (a relative precision of 6e-8, far inside the
//! interpolation error) so that the table of a modulation, 48 KiB, stays in
//! cache beside the radios.

use std::sync::OnceLock;

use super::error::log_success_per_bit;
use super::standard::Modulation;

/// Mantissa bits that index a point within an octave (512 per octave).
const SUB_BITS: u32 = 9;
/// First and last octave (binary exponents of the SINR).
const LO_EXP: i64 = -7;
const HI_EXP: i64 = 17;
const POINTS: usize = ((HI_EXP - LO_EXP) as usize) << SUB_BITS;
/// Mantissa bits below the index: the interpolation fraction.
const FRAC_BITS: u32 = 52 - SUB_BITS;

/// The SINR of table point `i`: 2^(LO_EXP + i / 512) on the binary grid,
/// exactly the values whose bits index them.
fn point(i: usize) -> f64 {
    let e = LO_EXP + (i >> SUB_BITS) as i64;
    let m = (i & ((1 << SUB_BITS) - 1)) as f64 / (1u32 << SUB_BITS) as f64;
    (1.0 + m) * 2f64.powi(e as i32)
}

/// How many times each modulation's table was built (tests only).
#[cfg(test)]
static TABLE_BUILT: [std::sync::atomic::AtomicU32; Modulation::ALL.len()] = [const { std::sync::atomic::AtomicU32::new(0) }; Modulation::ALL.len()];

/// One modulation's table.
struct Table {
    /// The values at every point.
    values: Vec<f32>,
    /// The first point from which every value is zero (the per-bit
    /// log-probability underflows `f32`), or infinity. Most chunks of a
    /// campus are received that far above the noise; their value is known
    /// without reading the table (a cache miss in 48 KiB).
    zero_from: f64,
}

/// The table of modulation `m`, built on its first use and kept for the
/// process: a run builds only the modulations its rates use (a 54 Mb/s
/// BSS: 64-QAM 3/4, plus the BPSK and 16-QAM of its 6 and 24 Mb/s control
/// frames), and the runs of a sweep in one process share them. Building all
/// twelve at once took 0.14–0.19 s of the first run's loop.
fn table(m: Modulation) -> &'static Table {
    static TABLES: [OnceLock<Table>; Modulation::ALL.len()] = [const { OnceLock::new() }; Modulation::ALL.len()];
    TABLES[m as usize].get_or_init(|| {
        #[cfg(test)]
        TABLE_BUILT[m as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let values: Vec<f32> = (0..=POINTS).map(|i| log_success_per_bit(m, point(i)) as f32).collect();
        let zero_from = match values.iter().rposition(|&v| v != 0.0) {
            Some(i) if i == POINTS => f64::INFINITY,
            Some(i) => point(i + 1),
            None => 0.0,
        };
        Table { values, zero_from }
    })
}

/// [`log_success_per_bit`] of `m` at linear `sinr`, from the table.
#[inline]
pub fn log_success_per_bit_fast(m: Modulation, sinr: f64) -> f64 {
    if sinr.is_nan() || sinr <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let table = table(m);
    if sinr >= table.zero_from {
        // Both neighbouring points are zero (of either sign): so is the
        // interpolation, up to the sign of zero, which adding it to a
        // chunk's log-probability does not see.
        return 0.0;
    }
    let t = &table.values;
    let bits = sinr.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
    if exp < LO_EXP {
        // Far below any decodable SINR (a 100-bit chunk of the most robust
        // rate already succeeds with probability < 1e-20): the table's first
        // value stands for everything below it.
        return t[0] as f64;
    }
    if exp >= HI_EXP {
        return t[POINTS] as f64;
    }
    let i = (((exp - LO_EXP) as usize) << SUB_BITS)
        | ((bits >> FRAC_BITS) as usize & ((1 << SUB_BITS) - 1));
    let f = (bits & ((1u64 << FRAC_BITS) - 1)) as f64 / (1u64 << FRAC_BITS) as f64;
    let (a, b) = (t[i] as f64, t[i + 1] as f64);
    if a == f64::NEG_INFINITY || b == f64::NEG_INFINITY {
        return if f < 0.5 { a } else { b };
    }
    a + (b - a) * f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modulation_table_is_built_once_per_process() {
        // Other tests of this process may have built it already (tests
        // share the process): either way, never twice.
        let m = Modulation::Qam64_23;
        let _ = log_success_per_bit_fast(m, 100.0);
        let _ = log_success_per_bit_fast(m, 200.0);
        assert_eq!(super::TABLE_BUILT[m as usize].load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn table_matches_the_exact_model_within_a_tenth_of_a_percent() {
        for m in Modulation::ALL {
            let mut db = -5.0;
            assert_eq!(
                log_success_per_bit_fast(m, point(1000)),
                table(m).values[1000] as f64,
                "points are exact"
            );
            while db < 45.0 {
                let sinr = 10f64.powf(db / 10.0);
                let exact = log_success_per_bit(m, sinr);
                let fast = log_success_per_bit_fast(m, sinr);
                // Compare frame success of a 1500-byte frame where it matters.
                let (pe, pf) = ((12_000.0 * exact).exp(), (12_000.0 * fast).exp());
                assert!(
                    (pe - pf).abs() < 1e-3,
                    "{m:?} at {db:.3} dB: exact {pe} table {pf}"
                );
                if exact < -1e-12 && pe > 1e-6 {
                    assert!(
                        ((fast - exact) / exact).abs() < 1e-3,
                        "{m:?} at {db:.3} dB: {exact} vs {fast}"
                    );
                }
                db += 0.0137;
            }
        }
    }

    /// From `zero_from` up the interpolation of the table is zero: the
    /// shortcut returns what reading the table would.
    #[test]
    fn zero_region_is_what_the_table_interpolates() {
        for m in Modulation::ALL {
            let z = table(m).zero_from;
            assert!(z.is_finite() && z < point(POINTS), "{m:?}: {z}");
            let t = &table(m).values;
            let i0 = (0..=POINTS).find(|&i| point(i) == z).expect("a point");
            assert!(t[i0 - 1] != 0.0 && t[i0..].iter().all(|&v| v == 0.0), "{m:?}");
            let mut sinr = z;
            while sinr < 2.0 * point(POINTS) {
                let bits = sinr.to_bits();
                let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
                let from_table = if exp >= HI_EXP {
                    t[POINTS] as f64
                } else {
                    let i = (((exp - LO_EXP) as usize) << SUB_BITS)
                        | ((bits >> FRAC_BITS) as usize & ((1 << SUB_BITS) - 1));
                    let f = (bits & ((1u64 << FRAC_BITS) - 1)) as f64 / (1u64 << FRAC_BITS) as f64;
                    t[i] as f64 + (t[i + 1] as f64 - t[i] as f64) * f
                };
                assert_eq!(log_success_per_bit_fast(m, sinr), from_table, "{m:?} at {sinr}");
                assert_eq!(from_table, 0.0);
                sinr *= 1.0009;
            }
            // Just below, the table is read (a non-zero value).
            assert!(log_success_per_bit_fast(m, z * (1.0 - 1e-9)) < 0.0, "{m:?}");
        }
    }
}
