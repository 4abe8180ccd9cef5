//! PHY timing and rate sets of the three legacy 802.11 PHYs.
//!
//! Clause numbers refer to IEEE Std 802.11-2016: Clause 15 (DSSS, 1 and
//! 2 Mb/s), Clause 16 (HR/DSSS, "802.11b", adds CCK 5.5 and 11 Mb/s),
//! Clause 17 (OFDM, "802.11a") and Clause 18 (ERP, "802.11g", OFDM and
//! DSSS/CCK in the 2.4 GHz band). Every duration is an integer number of
//! nanoseconds so MAC timing never depends on floating point.

use airtcp_core::Duration;

/// Which PHY a station runs. The MAC takes its IFS, slot and contention
/// window from here, so all stations of a BSS must agree on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Standard {
    /// 802.11b: DSSS (Clause 15) + HR/DSSS CCK (Clause 16), 2.4 GHz.
    B,
    /// 802.11a: OFDM (Clause 17), 5 GHz.
    A,
    /// 802.11g: ERP (Clause 18), ERP-OFDM plus the DSSS/CCK rates, 2.4 GHz.
    G,
}

/// Modulation and coding of a rate. OFDM variants are named by
/// constellation and convolutional code rate (802.11-2016 Table 17-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modulation {
    /// 1 Mb/s, differential BPSK over the 11-chip Barker code (15.4.6.4).
    Dbpsk,
    /// 2 Mb/s, differential QPSK over the 11-chip Barker code (15.4.6.5).
    Dqpsk,
    /// 5.5 Mb/s complementary code keying, 4 bits per 8-chip symbol (16.3.6.6).
    Cck5_5,
    /// 11 Mb/s complementary code keying, 8 bits per 8-chip symbol (16.3.6.6).
    Cck11,
    /// OFDM 6 Mb/s.
    Bpsk12,
    /// OFDM 9 Mb/s.
    Bpsk34,
    /// OFDM 12 Mb/s.
    Qpsk12,
    /// OFDM 18 Mb/s.
    Qpsk34,
    /// OFDM 24 Mb/s.
    Qam16_12,
    /// OFDM 36 Mb/s.
    Qam16_34,
    /// OFDM 48 Mb/s.
    Qam64_23,
    /// OFDM 54 Mb/s.
    Qam64_34,
}

impl Modulation {
    /// Every modulation, in declaration order (`m as usize` indexes it).
    pub const ALL: [Modulation; 12] = [
        Modulation::Dbpsk,
        Modulation::Dqpsk,
        Modulation::Cck5_5,
        Modulation::Cck11,
        Modulation::Bpsk12,
        Modulation::Bpsk34,
        Modulation::Qpsk12,
        Modulation::Qpsk34,
        Modulation::Qam16_12,
        Modulation::Qam16_34,
        Modulation::Qam64_23,
        Modulation::Qam64_34,
    ];

    /// OFDM (Clause 17 / ERP-OFDM) as opposed to DSSS/HR-DSSS. This is also
    /// the "modulation class" distinction the control-response rule needs:
    /// 802.11-2016 10.6.6.5.2 treats DSSS and HR/DSSS as one class for that
    /// purpose and OFDM and ERP-OFDM as another.
    pub const fn is_ofdm(self) -> bool {
        !matches!(
            self,
            Modulation::Dbpsk | Modulation::Dqpsk | Modulation::Cck5_5 | Modulation::Cck11
        )
    }

    /// Data bits per OFDM symbol, N_DBPS (802.11-2016 Table 17-4, 20 MHz
    /// channel spacing); `None` for DSSS modulations, which are not symbol
    /// based in the TXTIME formula.
    pub const fn n_dbps(self) -> Option<u32> {
        match self {
            Modulation::Bpsk12 => Some(24),
            Modulation::Bpsk34 => Some(36),
            Modulation::Qpsk12 => Some(48),
            Modulation::Qpsk34 => Some(72),
            Modulation::Qam16_12 => Some(96),
            Modulation::Qam16_34 => Some(144),
            Modulation::Qam64_23 => Some(192),
            Modulation::Qam64_34 => Some(216),
            _ => None,
        }
    }

    /// Noise bandwidth used to turn a received power into an SINR.
    /// DSSS/CCK occupies the 22 MHz main lobe of the 11 Mchip/s spectrum
    /// (802.11-2016 15.4.4.3 / 16.3.7.3 transmit spectrum mask); OFDM uses
    /// 20 MHz channel spacing (Table 17-4). ns-3 uses the same two widths.
    pub const fn bandwidth_hz(self) -> f64 {
        if self.is_ofdm() {
            20e6
        } else {
            22e6
        }
    }
}

/// One PHY rate. Rates are compared by value; `kbps` is exact for every
/// legacy rate (5.5 Mb/s = 5500 kb/s), which keeps TXTIME integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rate {
    /// Nominal rate in kb/s, exact for every legacy rate, so airtimes
    /// stay integer nanoseconds.
    pub kbps: u32,
    /// Modulation and coding: decides the bit error rate at a given SINR.
    pub modulation: Modulation,
}

impl Rate {
    /// DSSS 1 Mb/s, DBPSK (802.11-2016 clause 15): the 802.11b basic rate
    /// that beacons and broadcasts use.
    pub const B1: Rate = Rate {
        kbps: 1_000,
        modulation: Modulation::Dbpsk,
    };
    /// DSSS 2 Mb/s, DQPSK (clause 15).
    pub const B2: Rate = Rate {
        kbps: 2_000,
        modulation: Modulation::Dqpsk,
    };
    /// HR/DSSS 5.5 Mb/s, CCK (clause 16).
    pub const B5_5: Rate = Rate {
        kbps: 5_500,
        modulation: Modulation::Cck5_5,
    };
    /// HR/DSSS 11 Mb/s, CCK (clause 16): 802.11b's top rate.
    pub const B11: Rate = Rate {
        kbps: 11_000,
        modulation: Modulation::Cck11,
    };
    /// OFDM 6 Mb/s, BPSK rate 1/2 (clause 17, Table 17-4): 802.11a's lowest
    /// basic rate (its broadcasts go at it) and the most robust OFDM rate.
    pub const OFDM6: Rate = Rate {
        kbps: 6_000,
        modulation: Modulation::Bpsk12,
    };
    /// OFDM 9 Mb/s, BPSK rate 3/4.
    pub const OFDM9: Rate = Rate {
        kbps: 9_000,
        modulation: Modulation::Bpsk34,
    };
    /// OFDM 12 Mb/s, QPSK rate 1/2.
    pub const OFDM12: Rate = Rate {
        kbps: 12_000,
        modulation: Modulation::Qpsk12,
    };
    /// OFDM 18 Mb/s, QPSK rate 3/4.
    pub const OFDM18: Rate = Rate {
        kbps: 18_000,
        modulation: Modulation::Qpsk34,
    };
    /// OFDM 24 Mb/s, 16-QAM rate 1/2.
    pub const OFDM24: Rate = Rate {
        kbps: 24_000,
        modulation: Modulation::Qam16_12,
    };
    /// OFDM 36 Mb/s, 16-QAM rate 3/4.
    pub const OFDM36: Rate = Rate {
        kbps: 36_000,
        modulation: Modulation::Qam16_34,
    };
    /// OFDM 48 Mb/s, 64-QAM rate 2/3.
    pub const OFDM48: Rate = Rate {
        kbps: 48_000,
        modulation: Modulation::Qam64_23,
    };
    /// OFDM 54 Mb/s, 64-QAM rate 3/4: the top rate of 802.11a/g.
    pub const OFDM54: Rate = Rate {
        kbps: 54_000,
        modulation: Modulation::Qam64_34,
    };

    /// The rate of `std` whose nominal value is `mbps` (within 1 kb/s, so
    /// "5.5" and "5.50" both parse); `None` if `std` has no such rate or
    /// `mbps` is not finite.
    pub fn from_mbps(std: Standard, mbps: f64) -> Option<Rate> {
        if !mbps.is_finite() {
            return None;
        }
        let kbps = mbps * 1000.0;
        std.rates()
            .iter()
            .copied()
            .find(|r| (r.kbps as f64 - kbps).abs() < 1.0)
    }

    /// The rate in Mb/s, as scenarios and reports write it.
    pub fn mbps(self) -> f64 {
        self.kbps as f64 / 1000.0
    }

    /// Whether the rate is OFDM (802.11a/g, ERP-OFDM), which sets the PLCP
    /// timing, the noise bandwidth and which basic rates answer it.
    pub const fn is_ofdm(self) -> bool {
        self.modulation.is_ofdm()
    }
}

/// DSSS PLCP preamble format (802.11-2016 16.2.2). OFDM has a single
/// preamble and ignores this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Preamble {
    /// 144-bit SYNC+SFD and 48-bit header, all at 1 Mb/s: 192 µs.
    #[default]
    Long,
    /// 72-bit preamble at 1 Mb/s plus 48-bit header at 2 Mb/s: 96 µs.
    /// Not defined for 1 Mb/s PSDUs (16.2.2.3), which fall back to Long.
    Short,
}

/// Length of an ACK (and of a CTS) frame: FC 2 + Duration 2 + RA 6 + FCS 4
/// (802.11-2016 9.3.1.3 and 9.3.1.4). Needed here only for EIFS.
const ACK_BYTES: u32 = 14;

const fn us(x: u64) -> Duration {
    Duration::from_micros(x)
}

static RATES_B: [Rate; 4] = [Rate::B1, Rate::B2, Rate::B5_5, Rate::B11];
static RATES_A: [Rate; 8] = [
    Rate::OFDM6,
    Rate::OFDM9,
    Rate::OFDM12,
    Rate::OFDM18,
    Rate::OFDM24,
    Rate::OFDM36,
    Rate::OFDM48,
    Rate::OFDM54,
];
static RATES_G: [Rate; 12] = [
    Rate::B1,
    Rate::B2,
    Rate::B5_5,
    Rate::OFDM6,
    Rate::OFDM9,
    Rate::B11,
    Rate::OFDM12,
    Rate::OFDM18,
    Rate::OFDM24,
    Rate::OFDM36,
    Rate::OFDM48,
    Rate::OFDM54,
];
static BASIC_B: [Rate; 2] = [Rate::B1, Rate::B2];
static BASIC_A: [Rate; 3] = [Rate::OFDM6, Rate::OFDM12, Rate::OFDM24];
static BASIC_G: [Rate; 7] = [
    Rate::B1,
    Rate::B2,
    Rate::B5_5,
    Rate::OFDM6,
    Rate::B11,
    Rate::OFDM12,
    Rate::OFDM24,
];

impl Standard {
    /// aSlotTime. b: 20 µs (Table 15-5 / Table 16-4). a: 9 µs (Table 17-21).
    /// g: 9 µs, the ERP short slot (Table 18-5), valid only when every
    /// station in the BSS is ERP; a MAC that admits 802.11b stations must use
    /// the 20 µs long slot instead (`Standard::B.slot()`), as 18.4.4 requires.
    pub const fn slot(self) -> Duration {
        match self {
            Standard::B => us(20),
            Standard::A | Standard::G => us(9),
        }
    }

    /// aSIFSTime: 10 µs for DSSS/HR-DSSS/ERP (Tables 15-5, 16-4, 18-5),
    /// 16 µs for OFDM (Table 17-21). ERP-OFDM keeps 10 µs and pays for the
    /// longer OFDM decoding with the 6 µs signal extension instead.
    pub const fn sifs(self) -> Duration {
        match self {
            Standard::B | Standard::G => us(10),
            Standard::A => us(16),
        }
    }

    /// aRxPHYStartDelay, the third term of the ACK and CTS timeouts
    /// (aSIFSTime + aSlotTime + aRxPHYStartDelay, 802.11-2016 10.3.2.9 and
    /// 10.3.2.7). DSSS: 192 µs with the long preamble, 96 µs with the short
    /// one (Table 15-5, Table 16-4). OFDM: 25 µs for 20 MHz channel spacing
    /// (Table 17-21, "OFDM PHY characteristics"; 29 µs at 10 MHz, 37 µs at
    /// 5 MHz, not modelled). ERP-OFDM (g) takes the OFDM value: Clause 18
    /// builds ERP-OFDM on Clause 17's PHY.
    pub const fn rx_phy_start_delay(self, preamble: super::Preamble) -> Duration {
        match (self, preamble) {
            (Standard::B, super::Preamble::Long) => us(192),
            (Standard::B, super::Preamble::Short) => us(96),
            _ => us(25),
        }
    }

    /// DIFS = aSIFSTime + 2 × aSlotTime (802.11-2016 10.3.2.3.5).
    pub const fn difs(self) -> Duration {
        Duration(self.sifs().0 + 2 * self.slot().0)
    }

    /// aCWmin: 31 for DSSS/HR-DSSS (Tables 15-5, 16-4), 15 for OFDM (Table
    /// 17-21) and for an ERP-only BSS (Table 18-5; 31 when non-ERP stations
    /// are present, which the MAC must decide).
    pub const fn cw_min(self) -> u32 {
        match self {
            Standard::B => 31,
            Standard::A | Standard::G => 15,
        }
    }

    /// aCWmax = 1023 for all three PHYs (Tables 15-5, 16-4, 17-21, 18-5).
    pub const fn cw_max(self) -> u32 {
        1023
    }

    /// Every rate of the PHY, in increasing bit rate (so a rate-adaptation
    /// ladder can walk the slice). g interleaves CCK and ERP-OFDM by speed.
    pub fn rates(self) -> &'static [Rate] {
        match self {
            Standard::B => &RATES_B,
            Standard::A => &RATES_A,
            Standard::G => &RATES_G,
        }
    }

    /// The mandatory rates, used as the BSS basic rate set, ascending.
    /// b: 1, 2 (16.1.1 — 5.5/11 are optional in the basic set).
    /// a: 6, 12, 24 (17.1.1; also what the ns-3 AP advertises in the anchors).
    /// g: the mandatory ERP rates 1, 2, 5.5, 11 (DSSS/CCK) and 6, 12, 24
    /// (ERP-OFDM) (18.1.1). Because `control_rate` only picks within the
    /// eliciting frame's modulation class, OFDM data is answered from the
    /// ERP-OFDM subset 6/12/24 and CCK data from 1/2/5.5/11.
    pub fn basic_rates(self) -> &'static [Rate] {
        match self {
            Standard::B => &BASIC_B,
            Standard::A => &BASIC_A,
            Standard::G => &BASIC_G,
        }
    }

    /// Rate of a control response (ACK, CTS) to a frame sent at `data`:
    /// the highest basic rate ≤ `data` in the same modulation class
    /// (802.11-2016 10.6.6.5.2). Never fails: if no basic rate of that class
    /// is ≤ `data` (e.g. a rate not in this standard), the slowest basic rate
    /// of the class is used, and if the class has none at all, the slowest
    /// basic rate of the standard.
    pub fn control_rate(self, data: Rate) -> Rate {
        // basic_rates() is ascending (tested), so within the class the first
        // entry is the slowest and the last one <= data is the best.
        let class = data.is_ofdm();
        let mut best: Option<Rate> = None;
        let mut slowest_in_class: Option<Rate> = None;
        for &r in self.basic_rates().iter().filter(|r| r.is_ofdm() == class) {
            if slowest_in_class.is_none() {
                slowest_in_class = Some(r);
            }
            if r.kbps <= data.kbps {
                best = Some(r);
            }
        }
        best.or(slowest_in_class)
            .unwrap_or(self.lowest_basic_rate())
    }

    /// Slowest basic rate (1 Mb/s for b and g, 6 Mb/s for a).
    pub fn lowest_basic_rate(self) -> Rate {
        match self {
            Standard::B | Standard::G => Rate::B1,
            Standard::A => Rate::OFDM6,
        }
    }

    /// EIFS = aSIFSTime + DIFS + ACKTxTime, with ACKTxTime the time to send
    /// an ACK at the lowest mandatory rate with the long preamble
    /// (802.11-2016 10.3.2.3.7). b: 10+50+304 = 364 µs; a: 16+34+44 = 94 µs
    /// (the anchor's ns-3 value); g: 10+28+304 = 342 µs, because g's lowest
    /// mandatory rate is DSSS 1 Mb/s.
    pub fn eifs(self) -> Duration {
        let ack = tx_duration(self, self.lowest_basic_rate(), Preamble::Long, ACK_BYTES);
        self.sifs() + self.difs() + ack
    }

    /// Nominal band: 2.4 for b/g, 5.0 for a. For labels and sanity checks;
    /// propagation should use `center_freq_mhz`.
    pub const fn band_ghz(self) -> f64 {
        match self {
            Standard::B | Standard::G => 2.4,
            Standard::A => 5.0,
        }
    }

    /// Noise bandwidth of the PHY's main modulation: 22 MHz for b, 20 MHz
    /// for a and g. g's DSSS/CCK frames occupy 22 MHz; use
    /// `Modulation::bandwidth_hz` for per-frame precision.
    pub const fn bandwidth_hz(self) -> f64 {
        match self {
            Standard::B => 22e6,
            Standard::A | Standard::G => 20e6,
        }
    }

    /// Default channel: 1 (2412 MHz) at 2.4 GHz, 36 (5180 MHz) at 5 GHz,
    /// the channels ns-3 3.44 picks when none is configured.
    pub const fn default_channel(self) -> u8 {
        match self {
            Standard::B | Standard::G => 1,
            Standard::A => 36,
        }
    }

    /// Whether `ch` is a channel number of this PHY.
    /// 2.4 GHz: 1..=13, plus 14 for b only (DSSS in Japan; 802.11-2016
    /// 15.4.4.3, Table 15-6; ERP excludes it, 18.4.3). 5 GHz: the 20 MHz
    /// channels of 802.11-2016 Annex E Table E-1 (US operating classes 1–5):
    /// 36–64 and 100–144 every 4, 149–165 every 4.
    pub const fn valid_channel(self, ch: u8) -> bool {
        match self {
            Standard::B => ch >= 1 && ch <= 14,
            Standard::G => ch >= 1 && ch <= 13,
            Standard::A => {
                (ch & 3 == 0 && ((ch >= 36 && ch <= 64) || (ch >= 100 && ch <= 144)))
                    || (ch >= 149 && ch <= 165 && ch & 3 == 1)
            }
        }
    }

    /// Centre frequency of channel `ch` in MHz, `None` if invalid.
    /// 2.4 GHz: 2407 + 5·ch, channel 14 at 2484 (Table 15-6). 5 GHz:
    /// 5000 + 5·ch (802.11-2016 17.3.8.4.2, channel starting frequency 5 GHz).
    pub const fn center_freq_mhz(self, ch: u8) -> Option<u32> {
        if !self.valid_channel(ch) {
            return None;
        }
        match self {
            Standard::B | Standard::G => {
                if ch == 14 {
                    Some(2484)
                } else {
                    Some(2407 + 5 * ch as u32)
                }
            }
            Standard::A => Some(5000 + 5 * ch as u32),
        }
    }
}

/// DSSS long PLCP preamble + header: 144 + 48 bits at 1 Mb/s
/// (802.11-2016 16.2.2.2, Table 16-2).
const DSSS_LONG_PLCP_US: u64 = 192;
/// DSSS short PLCP: 72-bit preamble at 1 Mb/s + 48-bit header at 2 Mb/s
/// (802.11-2016 16.2.2.3).
const DSSS_SHORT_PLCP_US: u64 = 96;
/// OFDM PLCP preamble (10 short + 2 long training symbols) and SIGNAL
/// symbol: T_PREAMBLE = 16 µs, T_SIGNAL = 4 µs, T_SYM = 4 µs (Table 17-5).
const OFDM_PREAMBLE_US: u64 = 16;
const OFDM_SIGNAL_US: u64 = 4;
const OFDM_SYMBOL_US: u64 = 4;
/// SERVICE field (16 bits) and convolutional tail (6 bits) that precede and
/// follow the PSDU in the OFDM DATA field (17.3.5.2, 17.3.5.3).
const OFDM_SERVICE_BITS: u64 = 16;
const OFDM_TAIL_BITS: u64 = 6;
/// aSignalExtension after every ERP-OFDM PPDU, so that a 2.4 GHz receiver
/// gets the 16 µs OFDM decoding time behind a 10 µs SIFS (Table 18-5).
const ERP_SIGNAL_EXTENSION_US: u64 = 6;

/// Time from the start of a PPDU to the first PSDU bit: the PLCP preamble
/// and header (DSSS) or preamble and SIGNAL (OFDM). The medium uses it to
/// split a reception into a header chunk and a payload chunk.
pub fn plcp_duration(rate: Rate, preamble: Preamble) -> Duration {
    if rate.is_ofdm() {
        us(OFDM_PREAMBLE_US + OFDM_SIGNAL_US)
    } else if preamble == Preamble::Short && rate.kbps > 1_000 {
        us(DSSS_SHORT_PLCP_US)
    } else {
        us(DSSS_LONG_PLCP_US)
    }
}

/// Modulation and length in bits of the PLCP header, which must decode for
/// the receiver to lock on. OFDM SIGNAL: 24 bits, BPSK rate 1/2 (17.3.4).
/// DSSS long: 48 bits at DBPSK 1 Mb/s; short: 48 bits at DQPSK 2 Mb/s
/// (16.2.2.2, 16.2.2.3). The preamble itself is not modelled as bits.
pub fn plcp_header(rate: Rate, preamble: Preamble) -> (Modulation, u32) {
    if rate.is_ofdm() {
        (Modulation::Bpsk12, 24)
    } else if preamble == Preamble::Short && rate.kbps > 1_000 {
        (Modulation::Dqpsk, 48)
    } else {
        (Modulation::Dbpsk, 48)
    }
}

/// TXTIME of a PPDU carrying an `mpdu_bytes`-byte MPDU (the PSDU,
/// FCS included).
///
/// DSSS/HR-DSSS (802.11-2016 16.3.4 TXTIME): PLCP preamble + header (192 µs
/// long, 96 µs short) + ceil(8·LENGTH_bytes / rate) µs. The ceiling to whole
/// microseconds is what the PLCP LENGTH field encodes (16.2.3.5), so 5.5 and
/// 11 Mb/s frames are padded to a µs boundary. Short preamble at 1 Mb/s is
/// not defined and silently becomes long.
///
/// OFDM (17.4.3, equation 17-29): T_PREAMBLE + T_SIGNAL +
/// T_SYM × ceil((16 + 8·LENGTH + 6) / N_DBPS). For `Standard::G` an
/// ERP-OFDM PPDU is followed by the 6 µs signal extension (18.5.3 /
/// Table 18-5), counted here because the medium is busy during it.
///
/// The formula follows `rate.modulation`; the standard only adds the ERP
/// signal extension. Mismatched pairs (an OFDM rate with `Standard::B`)
/// therefore still give a sensible time rather than an error.
/// Arithmetic is in u64; every u32 size fits without overflow.
pub fn tx_duration(std: Standard, rate: Rate, preamble: Preamble, mpdu_bytes: u32) -> Duration {
    let bits = 8 * mpdu_bytes as u64;
    match rate.modulation.n_dbps() {
        Some(n_dbps) => {
            let symbols = (OFDM_SERVICE_BITS + bits + OFDM_TAIL_BITS).div_ceil(n_dbps as u64);
            let ext = if std == Standard::G {
                ERP_SIGNAL_EXTENSION_US
            } else {
                0
            };
            us(OFDM_PREAMBLE_US + OFDM_SIGNAL_US + OFDM_SYMBOL_US * symbols + ext)
        }
        None => {
            // kbps > 0 for every constructed Rate, but a hand-built Rate could
            // carry 0: clamp so the division is always defined.
            let kbps = rate.kbps.max(1) as u64;
            let payload_us = (bits * 1000).div_ceil(kbps);
            plcp_duration(rate, preamble) + us(payload_us)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(std: Standard, r: Rate, p: Preamble, b: u32) -> u64 {
        tx_duration(std, r, p, b).as_micros()
    }

    #[test]
    fn dsss_durations() {
        // 14-byte ACK at 1 Mb/s: 192 + 112 = 304 µs.
        assert_eq!(t(Standard::B, Rate::B1, Preamble::Long, 14), 304);
        // Short preamble is not allowed at 1 Mb/s: stays long.
        assert_eq!(t(Standard::B, Rate::B1, Preamble::Short, 14), 304);
        // ACK at 2 Mb/s short: 96 + 56 = 152 µs.
        assert_eq!(t(Standard::B, Rate::B2, Preamble::Short, 14), 152);
        // 1500 B IP + 36 B MAC overhead = 1536 B at 11 Mb/s:
        // 12288 bits / 11 = 1117.09 -> 1118 µs, + 192 = 1310 µs.
        assert_eq!(t(Standard::B, Rate::B11, Preamble::Long, 1536), 1310);
        assert_eq!(t(Standard::B, Rate::B11, Preamble::Short, 1536), 1214);
        // 5.5 Mb/s: 12288 / 5.5 = 2234.18 -> 2235 µs + 192.
        assert_eq!(t(Standard::B, Rate::B5_5, Preamble::Long, 1536), 2427);
        // ACK at 5.5: 112 / 5.5 = 20.36 -> 21 µs.
        assert_eq!(t(Standard::B, Rate::B5_5, Preamble::Long, 14), 213);
        // Durations are whole microseconds.
        assert_eq!(
            tx_duration(Standard::B, Rate::B11, Preamble::Long, 1536).0 % 1000,
            0
        );
    }

    #[test]
    fn ofdm_durations() {
        // ACK at 6 Mb/s: (16+112+6)/24 = 5.58 -> 6 symbols: 20 + 24 = 44 µs.
        assert_eq!(t(Standard::A, Rate::OFDM6, Preamble::Long, 14), 44);
        // ACK at 24 Mb/s: 134/96 -> 2 symbols: 28 µs (anchor README).
        assert_eq!(t(Standard::A, Rate::OFDM24, Preamble::Long, 14), 28);
        // RTS (20 B) at 6 Mb/s: 182/24 -> 8 symbols: 52 µs.
        assert_eq!(t(Standard::A, Rate::OFDM6, Preamble::Long, 20), 52);
        // 1536-byte MPDU at 54: (16+12288+6)/216 = 56.99 -> 57: 20 + 228 = 248.
        assert_eq!(t(Standard::A, Rate::OFDM54, Preamble::Long, 1536), 248);
        // Anchor MPDUs: 1528 B -> 2064 / 248 µs, 1564 B -> 2112 / 256 µs.
        assert_eq!(t(Standard::A, Rate::OFDM6, Preamble::Long, 1528), 2064);
        assert_eq!(t(Standard::A, Rate::OFDM54, Preamble::Long, 1528), 248);
        assert_eq!(t(Standard::A, Rate::OFDM6, Preamble::Long, 1564), 2112);
        assert_eq!(t(Standard::A, Rate::OFDM54, Preamble::Long, 1564), 256);
        // ERP-OFDM adds the 6 µs signal extension.
        assert_eq!(t(Standard::G, Rate::OFDM54, Preamble::Long, 1536), 254);
        assert_eq!(t(Standard::G, Rate::OFDM6, Preamble::Short, 14), 50);
        // CCK in g is unchanged.
        assert_eq!(t(Standard::G, Rate::B11, Preamble::Long, 1536), 1310);
        // Zero-length and huge PSDUs do not panic.
        assert_eq!(t(Standard::A, Rate::OFDM6, Preamble::Long, 0), 24);
        let _ = tx_duration(Standard::B, Rate::B1, Preamble::Long, u32::MAX);
        let _ = tx_duration(Standard::G, Rate::OFDM6, Preamble::Long, u32::MAX);
        let zero = Rate {
            kbps: 0,
            modulation: Modulation::Dbpsk,
        };
        let _ = tx_duration(Standard::B, zero, Preamble::Long, 100);
    }

    #[test]
    fn ifs_and_cw() {
        assert_eq!(Standard::A.difs().as_micros(), 34);
        assert_eq!(Standard::B.difs().as_micros(), 50);
        assert_eq!(Standard::G.difs().as_micros(), 28);
        assert_eq!(Standard::A.eifs().as_micros(), 94);
        assert_eq!(Standard::B.eifs().as_micros(), 364);
        assert_eq!(Standard::G.eifs().as_micros(), 342);
        assert_eq!(
            (
                Standard::A.cw_min(),
                Standard::B.cw_min(),
                Standard::G.cw_min()
            ),
            (15, 31, 15)
        );
        assert_eq!(Standard::A.cw_max(), 1023);
    }

    #[test]
    fn control_rates() {
        let a = Standard::A;
        assert_eq!(a.control_rate(Rate::OFDM6), Rate::OFDM6);
        assert_eq!(a.control_rate(Rate::OFDM9), Rate::OFDM6);
        assert_eq!(a.control_rate(Rate::OFDM18), Rate::OFDM12);
        assert_eq!(a.control_rate(Rate::OFDM54), Rate::OFDM24);
        let b = Standard::B;
        assert_eq!(b.control_rate(Rate::B1), Rate::B1);
        assert_eq!(b.control_rate(Rate::B11), Rate::B2);
        let g = Standard::G;
        assert_eq!(g.control_rate(Rate::B11), Rate::B11);
        assert_eq!(g.control_rate(Rate::B5_5), Rate::B5_5);
        assert_eq!(g.control_rate(Rate::OFDM9), Rate::OFDM6);
        assert_eq!(g.control_rate(Rate::OFDM54), Rate::OFDM24);
        // Wrong class for the standard: falls back, never panics.
        assert_eq!(a.control_rate(Rate::B11), Rate::OFDM6);
        assert_eq!(b.control_rate(Rate::OFDM54), Rate::B1);
    }

    #[test]
    fn rate_sets_sorted_and_parse() {
        for s in [Standard::A, Standard::B, Standard::G] {
            assert!(s.rates().windows(2).all(|w| w[0].kbps < w[1].kbps));
            assert!(s.basic_rates().windows(2).all(|w| w[0].kbps < w[1].kbps));
            assert!(s.basic_rates().iter().all(|r| s.rates().contains(r)));
            for r in s.rates() {
                assert_eq!(Rate::from_mbps(s, r.mbps()), Some(*r));
            }
        }
        assert_eq!(Rate::from_mbps(Standard::B, 5.5), Some(Rate::B5_5));
        assert_eq!(Rate::from_mbps(Standard::G, 54.0), Some(Rate::OFDM54));
        assert_eq!(Rate::from_mbps(Standard::A, 11.0), None);
        assert_eq!(Rate::from_mbps(Standard::A, f64::NAN), None);
        assert_eq!(Rate::from_mbps(Standard::A, f64::INFINITY), None);
    }

    #[test]
    fn channels() {
        assert_eq!(Standard::B.center_freq_mhz(1), Some(2412));
        assert_eq!(Standard::G.center_freq_mhz(6), Some(2437));
        assert_eq!(Standard::G.center_freq_mhz(13), Some(2472));
        assert_eq!(Standard::B.center_freq_mhz(14), Some(2484));
        assert_eq!(Standard::G.center_freq_mhz(14), None);
        assert_eq!(Standard::B.center_freq_mhz(0), None);
        assert_eq!(Standard::A.center_freq_mhz(36), Some(5180));
        assert_eq!(Standard::A.center_freq_mhz(165), Some(5825));
        assert_eq!(Standard::A.center_freq_mhz(144), Some(5720));
        assert_eq!(Standard::A.center_freq_mhz(37), None);
        assert_eq!(Standard::A.center_freq_mhz(68), None);
        assert_eq!(Standard::A.center_freq_mhz(1), None);
        let n = (0..=255u8)
            .filter(|&c| Standard::A.valid_channel(c))
            .count();
        assert_eq!(n, 8 + 12 + 5);
        for s in [Standard::A, Standard::B, Standard::G] {
            assert!(s.valid_channel(s.default_channel()));
        }
    }

    #[test]
    fn plcp() {
        assert_eq!(plcp_duration(Rate::OFDM54, Preamble::Short).as_micros(), 20);
        assert_eq!(plcp_duration(Rate::B11, Preamble::Short).as_micros(), 96);
        assert_eq!(plcp_duration(Rate::B1, Preamble::Short).as_micros(), 192);
        assert_eq!(
            plcp_header(Rate::OFDM54, Preamble::Long),
            (Modulation::Bpsk12, 24)
        );
        assert_eq!(
            plcp_header(Rate::B11, Preamble::Short),
            (Modulation::Dqpsk, 48)
        );
        assert_eq!(
            plcp_header(Rate::B2, Preamble::Long),
            (Modulation::Dbpsk, 48)
        );
    }
}
