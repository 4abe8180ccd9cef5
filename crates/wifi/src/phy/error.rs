//! Frame error model: probability that a chunk of bits survives a given
//! SINR, for every legacy 802.11 modulation, in AWGN.
//!
//! The approach is the classic analytic one (bit or symbol error
//! probability from Q-function formulas, then the union bound of the
//! convolutional code for OFDM). It is deliberately simple and closed-form
//! so a frame costs a few hundred flops and no allocation; what it ignores
//! (fading, soft-decision gain, implementation loss) shifts thresholds by a
//! few dB but keeps their ordering.
//!
//! Book references: J. G. Proakis, "Digital Communications", 4th ed.,
//! McGraw-Hill 2001 (cited as "Proakis"). SINR arguments are linear power
//! ratios measured over the modulation's noise bandwidth
//! (`Modulation::bandwidth_hz`: 22 MHz DSSS/CCK, 20 MHz OFDM).

use super::standard::Modulation;

// ---------------------------------------------------------------------------
// erfc and Q
// ---------------------------------------------------------------------------

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// Depth of the erfc continued fraction. At the switch-over point x = 2
/// sixty levels converge to the last bit of an f64 (checked against an
/// independent implementation), and convergence only improves with x.
const ERFC_CF_DEPTH: u32 = 60;

/// Complementary error function, relative error below 1e-13 on the whole
/// real line (tested against reference values).
///
/// |x| < 2: erf from the everywhere-positive series of Abramowitz & Stegun,
/// "Handbook of Mathematical Functions", eq. 7.1.6,
/// erf x = (2/√π)·e^{−x²}·Σ 2ⁿx^{2n+1}/(1·3···(2n+1)), which has no
/// cancellation, then erfc = 1 − erf (at most ~40 terms; cancellation in
/// 1 − erf costs < 1e-13 relative for x < 2).
/// x ≥ 2: the continued fraction of A&S eq. 7.1.14,
/// erfc x = e^{−x²}/√π · 1/(x+ ½/(x+ 1/(x+ (3/2)/(x+ ...)))), evaluated
/// bottom-up at fixed depth, which cannot lose accuracy to cancellation.
/// x < 0 uses erfc(−x) = 2 − erfc(x). NaN in, NaN out; ±inf give 0 and 2.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.0 {
        let x2 = x * x;
        let mut term = x;
        let mut sum = x;
        let mut n = 0u32;
        while n < 200 {
            n += 1;
            term *= 2.0 * x2 / (2 * n + 1) as f64;
            sum += term;
            if term <= 1e-17 * sum {
                break;
            }
        }
        1.0 - FRAC_2_SQRT_PI * (-x2).exp() * sum
    } else {
        let mut f = x;
        let mut k = ERFC_CF_DEPTH;
        while k > 0 {
            f = x + (k as f64 * 0.5) / f;
            k -= 1;
        }
        // e^{-x²}/(√π f) = (2/√π)/2 · e^{-x²}/f
        0.5 * FRAC_2_SQRT_PI * (-x * x).exp() / f
    }
}

/// Gaussian tail Q(x) = P(N(0,1) > x) = ½·erfc(x/√2).
pub fn q_function(x: f64) -> f64 {
    0.5 * erfc(x * std::f64::consts::FRAC_1_SQRT_2)
}

// ---------------------------------------------------------------------------
// DSSS / HR-DSSS
// ---------------------------------------------------------------------------

/// Noise bandwidth over which DSSS/CCK SINR is measured (22 MHz, see
/// `Modulation::bandwidth_hz`).
const DSSS_BANDWIDTH_HZ: f64 = 22e6;
/// Barker-coded DSSS symbol rate: 1 Msym/s at both 1 and 2 Mb/s
/// (802.11-2016 15.4.6.3).
const BARKER_SYMBOL_RATE: f64 = 1e6;
/// CCK symbol rate: 11 Mchip/s / 8 chips = 1.375 Msym/s (16.3.6.6).
const CCK_SYMBOL_RATE: f64 = 1.375e6;

/// Es/N0 = SINR·B/Rs (signal energy per symbol over noise density: S/Rs
/// divided by N/B). With B = 22 MHz this folds the Barker code's processing
/// gain (11 chips per symbol) and the 22 MHz-vs-11 MHz noise-bandwidth
/// ratio into one factor: 22 at 1 and 2 Mb/s, 16 for CCK.
fn es_n0(sinr: f64, symbol_rate: f64) -> f64 {
    sinr * DSSS_BANDWIDTH_HZ / symbol_rate
}

/// Argument scale of the M-DPSK high-SNR symbol error approximation
/// P_s ≈ 2·Q(√(2γ_s)·sin(π/(√2·M))) (Proakis §5.2.8, differentially
/// coherent PSK), for M = 4: sin(π/(4√2)).
fn dqpsk_symbol_error(gamma_s: f64) -> f64 {
    let s = (std::f64::consts::PI / (4.0 * std::f64::consts::SQRT_2)).sin();
    (2.0 * q_function((2.0 * gamma_s).sqrt() * s)).min(1.0)
}

/// Distance spectrum of a CCK codebook, derived at compile time from the
/// codeword definition of 802.11-2016 16.3.6.6:
/// c = (e^{j(φ1+φ2+φ3+φ4)}, e^{j(φ1+φ3+φ4)}, e^{j(φ1+φ2+φ4)}, −e^{j(φ1+φ4)},
///      e^{j(φ1+φ2+φ3)}, e^{j(φ1+φ3)}, −e^{j(φ1+φ2)}, e^{jφ1}).
/// All phases are multiples of π/2, so with Δ the per-phase difference
/// (mod 4) between two codewords chip k contributes |1 − j^{n_k}|² ∈
/// {0, 2, 4, 2} to the squared distance, n_k being the sum of the Δ that
/// enter chip k. The codebook is geometrically uniform (distances depend
/// only on Δ), so one spectrum serves every transmitted codeword.
///
/// Bit weights are averaged over the transmitted codeword: φ1 carries two
/// bits through the Gray-coded DQPSK table (a phase change of ±π/2 flips
/// one bit, π flips two); at 11 Mb/s φ2..φ4 use the natural QPSK table
/// 00→0, 01→π/2, 10→π, 11→3π/2 (802.11-2016 16.3.6.6.3), whose average
/// Hamming distance for Δ = 1, 2, 3 is 1.5, 1, 1.5; at 5.5 Mb/s one bit
/// each picks φ2 ∈ {π/2, 3π/2} and φ4 ∈ {0, π} and φ3 = 0 (16.3.6.6.2).
///
/// The two pure ±π/2 rotations of φ1 are excluded: the receiver decides
/// φ1 differentially against the previous symbol (DQPSK), so those two
/// neighbours get the DPSK pairwise probability instead (see `cck_errors`).
struct CckSpectrum {
    /// Number of neighbours at squared distance 2·i (unit-energy chips).
    count: [u32; 17],
    /// Twice the summed bit weight of those neighbours (integer halves).
    bits2: [u32; 17],
}

const fn cck_spectrum(eleven: bool) -> CckSpectrum {
    // Which of φ2, φ3, φ4 enter each chip (φ1 enters all eight).
    const SUB: [[u32; 3]; 8] = [
        [1, 1, 1],
        [0, 1, 1],
        [1, 0, 1],
        [0, 0, 1],
        [1, 1, 0],
        [0, 1, 0],
        [1, 0, 0],
        [0, 0, 0],
    ];
    const CHIP_D2: [u32; 4] = [0, 2, 4, 2];
    const GRAY2: [u32; 4] = [0, 2, 4, 2]; // 2 × Gray Hamming weight of Δ
    const NAT2: [u32; 4] = [0, 3, 2, 3]; // 2 × mean natural-binary weight of Δ
    let mut count = [0u32; 17];
    let mut bits2 = [0u32; 17];
    let mut d1 = 0;
    while d1 < 4 {
        let mut d2 = 0;
        while d2 < 4 {
            let mut d3 = 0;
            while d3 < 4 {
                let mut d4 = 0;
                while d4 < 4 {
                    let allowed = eleven || (d2 % 2 == 0 && d3 == 0 && d4 % 2 == 0);
                    let pure_rotation = d2 == 0 && d3 == 0 && d4 == 0 && d1 % 2 == 1;
                    let zero = d1 == 0 && d2 == 0 && d3 == 0 && d4 == 0;
                    if allowed && !pure_rotation && !zero {
                        let mut dist2 = 0;
                        let mut k = 0;
                        while k < 8 {
                            let n = d1 + SUB[k][0] * d2 + SUB[k][1] * d3 + SUB[k][2] * d4;
                            dist2 += CHIP_D2[(n % 4) as usize];
                            k += 1;
                        }
                        let w2 = if eleven {
                            GRAY2[d1 as usize]
                                + NAT2[d2 as usize]
                                + NAT2[d3 as usize]
                                + NAT2[d4 as usize]
                        } else {
                            GRAY2[d1 as usize]
                                + if d2 == 2 { 2 } else { 0 }
                                + if d4 == 2 { 2 } else { 0 }
                        };
                        let i = (dist2 / 2) as usize;
                        count[i] += 1;
                        bits2[i] += w2;
                    }
                    d4 += 1;
                }
                d3 += 1;
            }
            d2 += 1;
        }
        d1 += 1;
    }
    CckSpectrum { count, bits2 }
}

static CCK55: CckSpectrum = cck_spectrum(false);
static CCK11: CckSpectrum = cck_spectrum(true);

/// (symbol error probability, bit error probability, bits per symbol) of
/// CCK with ML codeword detection, by the union bound over the codebook's
/// distance spectrum (the method of M. B. Pursley and T. C. Royster,
/// "Properties and performance of the IEEE 802.11b complementary-code-key
/// signal sets", IEEE Trans. Commun. 57(2), 2009). Codewords have 8 chips
/// of energy Es/8, so a neighbour at normalised squared distance D² is
/// preferred with probability Q(√(D²·Es/(16·N0))). Clamped to [0, 1] and
/// [0, ½].
fn cck_errors(spec: &CckSpectrum, bits_per_symbol: u32, sinr: f64) -> (f64, f64) {
    let gamma_s = es_n0(sinr, CCK_SYMBOL_RATE);
    // φ1: two ±π/2 neighbours, one bit each, DQPSK-detected.
    let dpsk = dqpsk_symbol_error(gamma_s);
    let mut ps = dpsk;
    let mut pb_sum = dpsk; // 2 neighbours × 1 bit × (P_s/2 each)
    let mut i = 1;
    while i < spec.count.len() {
        if spec.count[i] != 0 {
            let d2 = 2.0 * i as f64;
            let q = q_function((d2 * gamma_s / 16.0).sqrt());
            ps += spec.count[i] as f64 * q;
            pb_sum += 0.5 * spec.bits2[i] as f64 * q;
        }
        i += 1;
    }
    (ps.min(1.0), (pb_sum / bits_per_symbol as f64).min(0.5))
}

// ---------------------------------------------------------------------------
// OFDM: uncoded constellations + K=7 convolutional code
// ---------------------------------------------------------------------------

/// Raw (coded-bit) error probability of a Gray-mapped constellation at a
/// per-subcarrier Es/N0 of `gamma_s`.
/// BPSK: Q(√(2γ)); QPSK: Q(√γ) (Proakis §5.2.7). Square M-QAM: the
/// nearest-neighbour approximation P_s ≈ 4(1 − 1/√M)·Q(√(3γ/(M−1)))
/// (Proakis eq. 5.2-79) with P_b ≈ P_s/log2 M for Gray mapping, which
/// 802.11a uses (802.11-2016 17.3.5.8).
fn ofdm_raw_ber(m: Modulation, gamma_s: f64) -> f64 {
    match m {
        Modulation::Bpsk12 | Modulation::Bpsk34 => q_function((2.0 * gamma_s).sqrt()),
        Modulation::Qpsk12 | Modulation::Qpsk34 => q_function(gamma_s.sqrt()),
        // 4(1-1/4)/4 = 3/4, 3/(16-1) = 1/5
        Modulation::Qam16_12 | Modulation::Qam16_34 => 0.75 * q_function((gamma_s / 5.0).sqrt()),
        // 4(1-1/8)/6 = 7/12, 3/(64-1) = 1/21
        _ => 7.0 / 12.0 * q_function((gamma_s / 21.0).sqrt()),
    }
}

/// Truncated distance spectrum of a (punctured) convolutional code: from `d_free` upward, one entry
/// per distance, (number of error paths a_d, information-bit weight c_d),
/// summed over the `period` puncturing phases.
struct CodeSpectrum {
    period: u32,
    d_free: u32,
    terms: &'static [(u64, u64)],
}

/// Distance spectra of the 802.11a convolutional code, K = 7, generators
/// g0 = 133₈, g1 = 171₈ (802.11-2016 17.3.5.6), with the puncturing
/// patterns of Figure 17-9 (2/3: A 11 / B 10; 3/4: A 110 / B 101).
/// Rate 1/2: d_free = 10; a_d and c_d as tabulated by P. Frenger, P. Orten
/// and T. Ottosson, "Convolutional codes with optimum distance spectrum",
/// IEEE Commun. Lett. 3(11), 1999 (c = 36, 211, 1404, 11633, ...).
/// Rates 2/3 and 3/4: D. Haccoun and G. Bégin, "High-rate punctured
/// convolutional codes for Viterbi and sequential decoding", IEEE Trans.
/// Commun. 37(11), 1989 (2/3: c = 3, 70, 285, 1276, 6160, ...; 3/4:
/// c = 42, 201, 1492, 10469, 62935, ...). All values, including the
/// higher-order ones, were re-derived by our own trellis enumeration
/// (`tests::spectra_match_trellis_enumeration`) and agree with the
/// published leading terms.
static CODE_12: CodeSpectrum = CodeSpectrum {
    period: 1,
    d_free: 10,
    terms: &[
        (11, 36),
        (0, 0),
        (38, 211),
        (0, 0),
        (193, 1404),
        (0, 0),
        (1331, 11633),
        (0, 0),
        (7275, 77433),
        (0, 0),
        (40406, 502690),
        (0, 0),
        (234969, 3322763),
    ],
};
static CODE_23: CodeSpectrum = CodeSpectrum {
    period: 2,
    d_free: 6,
    terms: &[
        (1, 3),
        (16, 70),
        (48, 285),
        (158, 1276),
        (642, 6160),
        (2435, 27128),
        (9174, 117019),
        (34701, 498835),
        (131533, 2103480),
        (499312, 8781268),
    ],
};
static CODE_34: CodeSpectrum = CodeSpectrum {
    period: 3,
    d_free: 5,
    terms: &[
        (8, 42),
        (31, 201),
        (160, 1492),
        (892, 10469),
        (4512, 62935),
        (23297, 379546),
        (120976, 2252394),
        (624304, 13064540),
        (3229885, 75080308),
        (16721329, 427474864),
    ],
};

/// Pairwise error probability P_d of a hard-decision Viterbi decoder
/// between two paths at Hamming distance d, raw bit error p (Proakis
/// eqs. 8.2-28 and 8.2-29): more than d/2 of the d differing bits wrong,
/// ties (even d) broken by a fair coin.
fn pairwise_error(d: u32, p: f64) -> f64 {
    let q = 1.0 - p;
    let mut sum = 0.0;
    let mut binom = 1.0f64; // C(d, i), built up from C(d, 0)
    let mut i = 0u32;
    while i <= d {
        if 2 * i > d {
            sum += binom * p.powi(i as i32) * q.powi((d - i) as i32);
        } else if 2 * i == d {
            sum += 0.5 * binom * p.powi(i as i32) * q.powi(i as i32);
        }
        binom = binom * (d - i) as f64 / (i + 1) as f64;
        i += 1;
    }
    sum
}

/// Union bounds for the decoded stream, per information bit (Proakis
/// §8.2-4; A. J. Viterbi, "Convolutional codes and their performance in
/// communication systems", IEEE Trans. Commun. Technol. 19(5), 1971):
/// first-event error rate P_e ≤ (1/P)·Σ a_d·P_d and bit error rate
/// P_b ≤ (1/P)·Σ c_d·P_d, P the puncturing period. Truncated to the
/// tabulated terms; clamped to 1 and ½.
fn code_errors(code: &CodeSpectrum, p: f64) -> (f64, f64) {
    let mut pe = 0.0;
    let mut pb = 0.0;
    for (k, &(a, c)) in code.terms.iter().enumerate() {
        if a == 0 {
            continue;
        }
        let pd = pairwise_error(code.d_free + k as u32, p);
        pe += a as f64 * pd;
        pb += c as f64 * pd;
    }
    let per = code.period as f64;
    ((pe / per).min(1.0), (pb / per).min(0.5))
}

fn code_of(m: Modulation) -> &'static CodeSpectrum {
    match m {
        Modulation::Bpsk12 | Modulation::Qpsk12 | Modulation::Qam16_12 => &CODE_12,
        Modulation::Qam64_23 => &CODE_23,
        _ => &CODE_34,
    }
}

// ---------------------------------------------------------------------------
// Public interface
// ---------------------------------------------------------------------------

/// Treats NaN and negative SINR as 0 (no signal); +inf is kept (error-free).
fn clean(sinr: f64) -> f64 {
    if sinr > 0.0 {
        sinr
    } else {
        0.0
    }
}

/// Probability that an "error unit" fails, and how many data bits a unit
/// carries: DBPSK bit, DQPSK symbol (2 bits), CCK symbol (4 or 8 bits),
/// or one information bit of the Viterbi decoder's first-event process.
/// Counting units rather than bits keeps the multi-bit errors of a symbol
/// or of a decoder error event from being counted several times.
fn unit_error(m: Modulation, sinr: f64) -> (f64, f64) {
    match m {
        Modulation::Dbpsk => (dbpsk_ber(sinr), 1.0),
        Modulation::Dqpsk => (dqpsk_symbol_error(es_n0(sinr, BARKER_SYMBOL_RATE)), 2.0),
        Modulation::Cck5_5 => (cck_errors(&CCK55, 4, sinr).0, 4.0),
        Modulation::Cck11 => (cck_errors(&CCK11, 8, sinr).0, 8.0),
        _ => (
            code_errors(code_of(m), ofdm_raw_ber(m, ofdm_es_n0(sinr))).0,
            1.0,
        ),
    }
}

/// DBPSK with differential detection: P_b = ½·e^{−Eb/N0} (Proakis
/// §5.2.8, binary DPSK), Eb/N0 = 22·SINR.
fn dbpsk_ber(sinr: f64) -> f64 {
    0.5 * (-es_n0(sinr, BARKER_SYMBOL_RATE)).exp()
}

/// Per-subcarrier Es/N0 taken equal to the SINR over 20 MHz. Strictly the
/// 52 occupied of 64 subcarriers and the discarded guard interval give
/// Es/N0 = SINR·64/52 (+0.9 dB); we drop that factor, as the common
/// "NIST" analytic model does, which errs on the pessimistic side.
fn ofdm_es_n0(sinr: f64) -> f64 {
    sinr
}

/// Bit error rate after demodulation (and, for OFDM, after Viterbi
/// decoding) at linear `sinr` over the modulation's bandwidth.
/// DBPSK: ½e^{−22·SINR}. DQPSK: P_s/2 of the M-DPSK approximation at
/// Es/N0 = 22·SINR. CCK: union bound (see `cck_errors`), Es/N0 = 16·SINR.
/// OFDM: union bound on the decoded BER. Result in [0, ½]; non-increasing
/// in `sinr`; NaN/negative SINR count as 0.
pub fn bit_error_rate(m: Modulation, sinr: f64) -> f64 {
    let s = clean(sinr);
    let ber = match m {
        Modulation::Dbpsk => dbpsk_ber(s),
        Modulation::Dqpsk => 0.5 * dqpsk_symbol_error(es_n0(s, BARKER_SYMBOL_RATE)),
        Modulation::Cck5_5 => cck_errors(&CCK55, 4, s).1,
        Modulation::Cck11 => cck_errors(&CCK11, 8, s).1,
        _ => code_errors(code_of(m), ofdm_raw_ber(m, ofdm_es_n0(s))).1,
    };
    ber.clamp(0.0, 0.5)
}

/// Probability that all `bits` data bits of a chunk received at constant
/// `sinr` decode correctly: (1 − P_unit)^(bits / bits_per_unit), where the
/// unit is a bit (DBPSK), a symbol (DQPSK, CCK) or a decoder error event
/// per information bit (OFDM; P_e from the union bound). Chunks are
/// treated as independent, so the medium may multiply the successes of
/// the chunks of one frame when the interference changes mid-frame.
/// `bits == 0` gives 1. Result in [0, 1]; no allocation.
pub fn chunk_success(m: Modulation, sinr: f64, bits: u32) -> f64 {
    if bits == 0 {
        return 1.0;
    }
    let (pu, bits_per_unit) = unit_error(m, clean(sinr));
    if pu >= 1.0 {
        return 0.0;
    }
    if pu <= 0.0 {
        return 1.0;
    }
    let units = bits as f64 / bits_per_unit;
    (units * (-pu).ln_1p()).exp().clamp(0.0, 1.0)
}

/// `ln` of the probability that one bit decodes at `sinr`, spread over
/// the modulation's error unit: `chunk_success(m, sinr, n) = exp(n · this)`.
/// `-inf` where a unit always fails, 0 where it never does.
pub fn log_success_per_bit(m: Modulation, sinr: f64) -> f64 {
    let (pu, bits_per_unit) = unit_error(m, clean(sinr));
    if pu >= 1.0 {
        return f64::NEG_INFINITY;
    }
    if pu <= 0.0 {
        return 0.0;
    }
    (-pu).ln_1p() / bits_per_unit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::standard::{Rate, Standard};

    const ALL: [Modulation; 12] = Modulation::ALL;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn erfc_reference_values() {
        // Reference values: CPython math.erfc (C library, correctly rounded
        // to a few ulp).
        let refs: [(f64, f64); 21] = [
            (0.0, 1.0),
            (0.001, 0.9988716212090307),
            (0.1, 0.8875370839817152),
            (0.5, 0.4795001221869535),
            (1.0, 0.15729920705028513),
            (1.5, 0.033894853524689274),
            (2.0, 0.004677734981047265),
            (2.4, 0.0006885138966450789),
            (2.5, 0.0004069520174449589),
            (3.0, 2.2090496998585438e-05),
            (4.0, 1.541725790028002e-08),
            (5.0, 1.5374597944280351e-12),
            (6.0, 2.1519736712498916e-17),
            (8.0, 1.1224297172982928e-29),
            (10.0, 2.088487583762545e-45),
            (15.0, 7.212994172451206e-100),
            (20.0, 5.3958656116079005e-176),
            (26.0, 5.663192408856143e-296),
            (-0.5, 1.5204998778130465),
            (-1.0, 1.842700792949715),
            (-3.0, 1.9999779095030015),
        ];
        for (x, want) in refs {
            let got = erfc(x);
            let rel = ((got - want) / want).abs();
            assert!(rel < 1e-12, "erfc({x}) = {got}, want {want}, rel {rel}");
        }
        assert_eq!(erfc(f64::INFINITY), 0.0);
        assert_eq!(erfc(f64::NEG_INFINITY), 2.0);
        assert_eq!(erfc(40.0), 0.0);
        assert!(erfc(f64::NAN).is_nan());
        // Continuity at the switch-over.
        let below = erfc(2.0 - 1e-12);
        let above = erfc(2.0);
        assert!(((below - above) / above).abs() < 1e-10);
        assert!((q_function(0.0) - 0.5).abs() < 1e-15);
        assert!((q_function(1.959963984540054) - 0.025).abs() < 1e-12);
    }

    #[test]
    fn cck_spectrum_sanity() {
        // 11 Mb/s: 256 codewords; 5.5 Mb/s: 16. The two ±π/2 rotations are
        // handled separately, the all-zero difference is not a neighbour.
        let n11: u32 = CCK11.count.iter().sum();
        let n55: u32 = CCK55.count.iter().sum();
        assert_eq!(n11, 255 - 2);
        assert_eq!(n55, 15 - 2);
        // Minimum squared distance (unit chips): 8 for CCK-11 (φ2 by π/2
        // rotates four chips by 90°), 16 for CCK-5.5.
        assert_eq!(CCK11.count.iter().position(|&c| c > 0), Some(4));
        assert_eq!(CCK55.count.iter().position(|&c| c > 0), Some(8));
        // Antipodal codeword (φ1 + π) at D² = 32 in both.
        assert_eq!(CCK11.count[16], 1);
        assert_eq!(CCK55.count[16], 1);
        // Average bit weight over all 255 (15) neighbours is k/2·M/(M-1)
        // for any labelling that uses all labels: sum = k·M/2 (bits2 = k·M).
        let w11: u32 = CCK11.bits2.iter().sum::<u32>() + 2 * 2; // + the two rotations (1 bit each, doubled)
        let w55: u32 = CCK55.bits2.iter().sum::<u32>() + 2 * 2;
        assert_eq!(w11, 8 * 256);
        assert_eq!(w55, 4 * 16);
    }

    /// Our own trellis enumeration of the first-event paths of the
    /// punctured K=7 code, summed over the puncturing phases. Reproduces
    /// the tables above; this is the derivation the doc comment refers to.
    #[test]
    fn spectra_match_trellis_enumeration() {
        fn parity(x: u32) -> u32 {
            x.count_ones() & 1
        }
        fn enumerate(pa: &[u32], pb: &[u32], dmax: usize) -> Vec<(u64, u64)> {
            let period = pa.len();
            let mut out = vec![(0u64, 0u64); dmax + 1];
            // state (6 bits) × phase × distance -> (paths, info weight)
            let idx = |s: usize, ph: usize, d: usize| (s * period + ph) * (dmax + 1) + d;
            let size = 64 * period * (dmax + 1);
            let step = |state: u32, bit: u32| {
                let reg = (bit << 6) | state;
                (reg >> 1, parity(reg & 0o133), parity(reg & 0o171))
            };
            for phase0 in 0..period {
                let mut cur = vec![(0u64, 0u64); size];
                let (ns, a, b) = step(0, 1);
                let w = (a * pa[phase0] + b * pb[phase0]) as usize;
                cur[idx(ns as usize, (phase0 + 1) % period, w)] = (1, 1);
                for _ in 0..10_000 {
                    let mut next = vec![(0u64, 0u64); size];
                    let mut any = false;
                    for s in 1..64usize {
                        for ph in 0..period {
                            for d in 0..=dmax {
                                let (cnt, iw) = cur[idx(s, ph, d)];
                                if cnt == 0 {
                                    continue;
                                }
                                for bit in 0..2u32 {
                                    let (ns, a, b) = step(s as u32, bit);
                                    let nd = d + (a * pa[ph] + b * pb[ph]) as usize;
                                    if nd > dmax {
                                        continue;
                                    }
                                    let add = (cnt, iw + cnt * bit as u64);
                                    if ns == 0 {
                                        out[nd].0 += add.0;
                                        out[nd].1 += add.1;
                                    } else {
                                        let e = &mut next[idx(ns as usize, (ph + 1) % period, nd)];
                                        e.0 += add.0;
                                        e.1 += add.1;
                                        any = true;
                                    }
                                }
                            }
                        }
                    }
                    cur = next;
                    if !any {
                        break;
                    }
                }
            }
            out
        }
        for (code, pa, pb) in [
            (&CODE_12, &[1u32][..], &[1u32][..]),
            (&CODE_23, &[1, 1][..], &[1, 0][..]),
            (&CODE_34, &[1, 1, 0][..], &[1, 0, 1][..]),
        ] {
            assert_eq!(code.period as usize, pa.len());
            let dmax = code.d_free as usize + code.terms.len() - 1;
            let got = enumerate(pa, pb, dmax);
            assert!(got[..code.d_free as usize].iter().all(|&x| x == (0, 0)));
            assert_eq!(&got[code.d_free as usize..], code.terms);
        }
    }

    #[test]
    fn ber_monotone_and_bounded() {
        for m in ALL {
            let mut prev = f64::INFINITY;
            let mut x = -20.0;
            while x <= 40.0 {
                let b = bit_error_rate(m, db(x));
                assert!((0.0..=0.5).contains(&b), "{m:?} {x} {b}");
                assert!(b <= prev, "{m:?} not monotone at {x} dB: {b} > {prev}");
                if prev < 0.49 && prev > 1e-250 {
                    assert!(b < prev, "{m:?} flat at {x} dB");
                }
                prev = b;
                x += 0.25;
            }
        }
    }

    #[test]
    fn success_limits() {
        for m in ALL {
            assert!(chunk_success(m, db(45.0), 1500 * 8) > 1.0 - 1e-9, "{m:?}");
            assert!(chunk_success(m, db(-10.0), 1500 * 8) < 1e-9, "{m:?}");
            assert_eq!(chunk_success(m, 0.0, 0), 1.0);
            for s in [f64::NAN, -1.0, 0.0, f64::INFINITY, 1e300, 1e-300] {
                let p = chunk_success(m, s, u32::MAX);
                assert!((0.0..=1.0).contains(&p), "{m:?} {s} {p}");
                let b = bit_error_rate(m, s);
                assert!((0.0..=0.5).contains(&b));
            }
            assert_eq!(chunk_success(m, f64::INFINITY, 12000), 1.0);
            // Splitting a frame into chunks at the same SINR changes nothing.
            let s = db(8.0);
            let whole = chunk_success(m, s, 8000);
            let parts = chunk_success(m, s, 3000) * chunk_success(m, s, 5000);
            assert!((whole - parts).abs() < 1e-12, "{m:?}");
        }
    }

    /// SINR (dB) at which a 1000-byte chunk succeeds with probability ½.
    fn half_point(m: Modulation) -> f64 {
        let (mut lo, mut hi) = (-30.0, 50.0);
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if chunk_success(m, db(mid), 8000) < 0.5 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    #[test]
    fn thresholds_increase_with_rate() {
        for std in [Standard::B, Standard::A] {
            let pts: Vec<(Rate, f64)> = std
                .rates()
                .iter()
                .map(|&r| (r, half_point(r.modulation)))
                .collect();
            for w in pts.windows(2) {
                assert!(
                    w[0].1 < w[1].1,
                    "{:?} {:.2} dB !< {:?} {:.2} dB",
                    w[0].0,
                    w[0].1,
                    w[1].0,
                    w[1].1
                );
            }
        }
        // Plausibility window (AWGN, hard-decision analytic model).
        let p6 = half_point(Modulation::Bpsk12);
        let p54 = half_point(Modulation::Qam64_34);
        let p1 = half_point(Modulation::Dbpsk);
        let p11 = half_point(Modulation::Cck11);
        assert!((0.0..5.0).contains(&p6), "{p6}");
        assert!((17.0..24.0).contains(&p54), "{p54}");
        assert!((-7.0..-1.0).contains(&p1), "{p1}");
        assert!((1.0..7.0).contains(&p11), "{p11}");
    }

    #[test]
    fn pairwise_error_basics() {
        assert_eq!(pairwise_error(5, 0.0), 0.0);
        assert!((pairwise_error(5, 0.5) - 0.5).abs() < 1e-12);
        assert!((pairwise_error(10, 0.5) - 0.5).abs() < 1e-12);
        assert!((pairwise_error(1, 0.1) - 0.1).abs() < 1e-15);
        // d = 2: ½·2·p·q + p².
        let p = 0.1;
        assert!((pairwise_error(2, p) - (p * (1.0 - p) + p * p)).abs() < 1e-15);
    }
}
