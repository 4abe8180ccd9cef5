//! `[wifi]`: the wireless medium, each key one entry of [`WIFI`]. A key is
//! read and checked on its own into a [`WifiDecl`]; [`medium`] then builds
//! the medium, checking what depends on other keys (a rate of the
//! standard, `p2p_delay` only with `medium = "p2p"`). The resolved scenario
//! records `[wifi]` as written (`wifi::wifi_json`), so these keys have no
//! writer of their own.

use airtcp_core::Duration;
use airtcp_wifi::mac::{MacParams, RateControl};
use airtcp_wifi::phy::{PathLoss, Preamble, RadioParams, Rate, Shadowing, Standard};
use serde_json::Value;

use super::doc::KeyPath;
use super::keys::{Key, Section};
use super::value::{Field, Table, R};
use super::wifi_types::P2pSpec;
use crate::network::addr::Prefix;

/// ns-2 / ns-3 log-distance defaults: exponent 3, 1 m reference, 46.6777 dB
/// at 1 m (ns-3 `LogDistancePropagationLossModel`, Friis at 5.15 GHz).
const LOG_DISTANCE: (f64, f64, f64) = (3.0, 1.0, 46.6777);
/// ns-2 `TwoRayGround` antennas 1.5 m above the ground.
const ANTENNA_HEIGHT_M: f64 = 1.5;
/// Ad hoc radios' subnet unless `adhoc_subnet` is given.
pub(super) const AUTO_ADHOC: (u32, u8) = (0xC0A8_0000, 16);

#[derive(Clone, Copy, PartialEq)]
enum Propagation {
    LogDistance,
    Friis,
    TwoRay,
}

/// `[wifi]` as declared: every key given, read and checked on its own.
#[derive(Default)]
pub struct WifiDecl {
    standard: Option<Standard>,
    ns2_radio: bool,
    tx_power_dbm: Option<f64>,
    rx_sensitivity_dbm: Option<f64>,
    cca_threshold_dbm: Option<f64>,
    noise_figure_db: Option<f64>,
    preamble_min_snr_db: Option<f64>,
    preamble_min_rssi_dbm: Option<f64>,
    frequency_hz: Option<f64>,
    system_loss: Option<f64>,
    propagation: Option<Propagation>,
    exponent: Option<f64>,
    reference_m: Option<f64>,
    reference_loss_db: Option<f64>,
    antenna_height_m: Option<f64>,
    shadowing_db: Option<f64>,
    /// Mb/s and where it was written: it must be a rate of the standard.
    rate: Option<(f64, KeyPath)>,
    preamble: Option<Preamble>,
    rts_threshold: Option<u32>,
    rate_control: Option<RateControl>,
    queue_packets: Option<u32>,
    short_retry_limit: Option<u32>,
    long_retry_limit: Option<u32>,
    p2p: bool,
    /// The delay and where it was written (only with `medium = "p2p"`).
    p2p_delay: Option<(Duration, KeyPath)>,
    adhoc_subnet: Option<Prefix>,
}

pub(super) fn finite(f: &Field) -> R<f64> {
    let x = f.f64()?;
    if !x.is_finite() {
        return Err(f.err(format!("{x} is not a finite number")));
    }
    Ok(x)
}

fn positive(f: &Field) -> R<f64> {
    let x = finite(f)?;
    if x <= 0.0 {
        return Err(f.err(format!("{x} must be positive")));
    }
    Ok(x)
}

pub(super) fn at_least_one(f: &Field, key: &str) -> R<u32> {
    let n = f.u32()?;
    if n == 0 {
        return Err(f.err(format!("{key} must be at least 1")));
    }
    Ok(n)
}

/// "54Mbps" / "5.5Mbps" text or a number of Mb/s.
pub(super) fn mbps(f: &Field) -> R<f64> {
    match f.v {
        Value::String(_) => Ok(f.rate()? as f64 / 1e6),
        _ => finite(f),
    }
}

pub(super) fn std_letter(s: Standard) -> &'static str {
    match s {
        Standard::A => "a",
        Standard::B => "b",
        Standard::G => "g",
    }
}

/// `mbps` as one of the standard's rates; the error is at `path`.
pub(super) fn rate_of(t: &Table, path: &KeyPath, mbps: f64, std: Standard) -> R<Rate> {
    Rate::from_mbps(std, mbps).ok_or_else(|| {
        let known: Vec<String> = std.rates().iter().map(|r| format!("{}", r.mbps())).collect();
        t.doc.err(path, format!("{mbps} Mb/s is not a rate of 802.11{} (known: {})", std_letter(std), known.join(", ")))
    })
}

pub(super) fn rate_control(f: &Field) -> R<RateControl> {
    match f.str()? {
        "constant" => Ok(RateControl::Constant),
        "minstrel" => Ok(RateControl::Minstrel),
        s => Err(f.err(format!("unknown rate_control \"{s}\" (known: constant, minstrel)"))),
    }
}

/// A `[wifi]` key that stores `$read(f)` in `Some` of field `$name`.
macro_rules! opt_key {
    ($name:ident, $ty:expr, $default:expr, $doc:expr, $read:expr) => {
        Key {
            name: stringify!($name),
            ty: $ty,
            doc: $doc,
            default: $default,
            read: |d, f| {
                d.$name = Some($read(f)?);
                Ok(())
            },
            write: |_| None,
        }
    };
}

pub static WIFI: Section<'static, WifiDecl> = Section {
    path: "wifi",
    keys: &[
        Key {
            name: "standard",
            ty: "`\"a\"` | `\"b\"` | `\"g\"`",
            doc: "The PHY: 802.11a (OFDM, 5 GHz), 802.11b (DSSS/CCK) or 802.11g (ERP-OFDM, 2.4 GHz); also `\"802.11a\"`, ... It sets the rates, channels, timing and the default `frequency_hz`.",
            default: "`\"a\"`",
            read: |d, f| {
                d.standard = Some(match f.str()? {
                    "a" | "802.11a" => Standard::A,
                    "b" | "802.11b" => Standard::B,
                    "g" | "802.11g" => Standard::G,
                    s => return Err(f.err(format!("unknown standard \"{s}\" (known: a, b, g)"))),
                });
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "propagation",
            ty: "`\"log-distance\"` | `\"friis\"` | `\"two-ray\"`",
            doc: "Path loss: log-distance (`exponent`, `reference_m`, `reference_loss_db`; ns-3's default), Friis free space (`frequency_hz`, `system_loss`) or ns-2's two-ray ground (`antenna_height_m` too).",
            default: "`\"log-distance\"`",
            read: |d, f| {
                d.propagation = Some(match f.str()? {
                    "log-distance" => Propagation::LogDistance,
                    "friis" => Propagation::Friis,
                    "two-ray" => Propagation::TwoRay,
                    s => return Err(f.err(format!("unknown propagation \"{s}\" (known: log-distance, friis, two-ray)"))),
                });
                Ok(())
            },
            write: |_| None,
        },
        opt_key!(exponent, "number > 0", "`3.0`", "log-distance: path-loss exponent.", positive),
        opt_key!(reference_m, "number > 0 (m)", "`1.0`", "log-distance: reference distance.", positive),
        opt_key!(reference_loss_db, "number (dB)", "`46.6777`", "log-distance: loss at the reference distance (ns-3's value for 1 m at 5.15 GHz).", finite),
        opt_key!(frequency_hz, "number > 0 (Hz)", "the standard's default channel", "friis / two-ray: carrier frequency.", positive),
        opt_key!(antenna_height_m, "number > 0 (m)", "`1.5`", "two-ray: height of every antenna (ns-2's default).", positive),
        Key {
            name: "system_loss",
            ty: "number ≥ 1",
            doc: "friis / two-ray: system loss factor L (1 = none).",
            default: "`1.0`",
            read: |d, f| {
                let x = positive(f)?;
                if x < 1.0 {
                    return Err(f.err(format!("system_loss {x} must be at least 1 (a loss factor)")));
                }
                d.system_loss = Some(x);
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "shadowing_db",
            ty: "number ≥ 0 (dB)",
            doc: "Sigma of log-normal shadowing added to the path loss; 0 turns it off.",
            default: "`0`",
            read: |d, f| {
                let s = finite(f)?;
                if s < 0.0 {
                    return Err(f.err(format!("shadowing_db {s} must not be negative")));
                }
                d.shadowing_db = Some(s);
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "rate",
            ty: "rate or number (Mb/s)",
            doc: "Data rate of every radio (a radio's own `rate` overrides it); one of the standard's rates.",
            default: "the standard's highest",
            read: |d, f| {
                d.rate = Some((mbps(f)?, f.path.clone()));
                Ok(())
            },
            write: |_| None,
        },
        opt_key!(rts_threshold, "integer (bytes)", "`65535`", "MPDUs above this size are sent after RTS/CTS (a radio's own overrides it).", |f: &Field| f.u32()),
        opt_key!(queue_packets, "integer ≥ 1", "`500`", "Interface queue of every radio (a radio's own overrides it).", |f: &Field| at_least_one(f, "queue_packets")),
        opt_key!(short_retry_limit, "integer ≥ 1", "`7`", "Transmission attempts of a frame without RTS (dot11ShortRetryLimit); on the p2p medium, attempts before a frame to a station out of its cell is dropped.", |f: &Field| at_least_one(f, "short_retry_limit")),
        opt_key!(long_retry_limit, "integer ≥ 1", "`4`", "Transmission attempts of a frame sent after RTS (dot11LongRetryLimit).", |f: &Field| at_least_one(f, "long_retry_limit")),
        Key {
            name: "preamble",
            ty: "`\"long\"` | `\"short\"`",
            doc: "802.11b PLCP preamble.",
            default: "`\"long\"`",
            read: |d, f| {
                d.preamble = Some(match f.str()? {
                    "long" => Preamble::Long,
                    "short" => Preamble::Short,
                    s => return Err(f.err(format!("unknown preamble \"{s}\" (known: long, short)"))),
                });
                Ok(())
            },
            write: |_| None,
        },
        opt_key!(tx_power_dbm, "number (dBm)", "`16.0206` (ns-3)", "Transmit power of every radio (a radio's own overrides it).", finite),
        opt_key!(rx_sensitivity_dbm, "number (dBm)", "`-101` (ns-3)", "Weakest signal a radio receives.", finite),
        opt_key!(cca_threshold_dbm, "number (dBm)", "`-62` (ns-3)", "Energy that makes clear-channel assessment report busy.", finite),
        opt_key!(noise_figure_db, "number (dB)", "`7` (ns-3)", "Receiver noise figure.", finite),
        Key {
            name: "radio_profile",
            ty: "`\"ns3\"` | `\"ns2\"`",
            doc: "The radio thresholds the keys above start from: ns-3's `YansWifiPhy`, or ns-2's WaveLAN (`RXThresh_`, `CSThresh_`) without preamble detection.",
            default: "`\"ns3\"`",
            read: |d, f| {
                d.ns2_radio = match f.str()? {
                    "ns3" => false,
                    "ns2" => true,
                    s => return Err(f.err(format!("unknown radio_profile \"{s}\" (known: ns3, ns2)"))),
                };
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "adhoc_subnet",
            ty: "prefix",
            doc: "The subnet of the ad hoc radios.",
            default: "`\"192.168.0.0/16\"`",
            read: |d, f| {
                d.adhoc_subnet = Some(Prefix::parse(f.str()?).map_err(|m| f.err(m))?);
                Ok(())
            },
            write: |_| None,
        },
        opt_key!(rate_control, "`\"constant\"` | `\"minstrel\"`", "`\"constant\"`", "Rate adaptation of every radio (a radio's own overrides it).", rate_control),
        opt_key!(preamble_min_snr_db, "number (dB)", "`4.0` (ns-3)", "Preamble detection: a radio locks on a frame only above this SINR.", finite),
        opt_key!(preamble_min_rssi_dbm, "number (dBm)", "`-82.0` (ns-3)", "Preamble detection: ...and above this power.", finite),
        Key {
            name: "medium",
            ty: "`\"802.11\"` | `\"p2p\"`",
            doc: "The 802.11 medium, or plain point-to-point cells: `rate` as a bit rate, `p2p_delay` of propagation, no contention ([the p2p variant](wifi.md#the-plain-point-to-point-variant)).",
            default: "`\"802.11\"`",
            read: |d, f| {
                d.p2p = match f.str()? {
                    "802.11" | "80211" => false,
                    "p2p" => true,
                    s => return Err(f.err(format!("unknown medium \"{s}\" (known: 802.11, p2p)"))),
                };
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "p2p_delay",
            ty: "duration",
            doc: "p2p: propagation delay of the hop; only with `medium = \"p2p\"`.",
            default: "`\"0s\"`",
            read: |d, f| {
                d.p2p_delay = Some((f.duration()?, f.path.clone()));
                Ok(())
            },
            write: |_| None,
        },
    ],
};

/// The medium `[wifi]` declares.
pub(super) struct Medium {
    pub standard: Standard,
    pub phy: RadioParams,
    pub path_loss: PathLoss,
    pub shadowing: Option<Shadowing>,
    pub mac: MacParams,
    pub p2p: Option<P2pSpec>,
    pub adhoc_subnet: Prefix,
}

/// Read `[wifi]` (`w`, an empty table when the scenario has none).
pub(super) fn medium(w: &Table) -> R<Medium> {
    WIFI.known(w)?;
    let mut d = WifiDecl::default();
    WIFI.read_present(w, &mut d)?;
    let standard = d.standard.unwrap_or(Standard::A);
    let mut phy = if d.ns2_radio { RadioParams::ns2() } else { RadioParams::default() };
    let set = |into: &mut f64, v: Option<f64>| {
        if let Some(v) = v {
            *into = v;
        }
    };
    set(&mut phy.tx_power_dbm, d.tx_power_dbm);
    set(&mut phy.rx_sensitivity_dbm, d.rx_sensitivity_dbm);
    set(&mut phy.cca_threshold_dbm, d.cca_threshold_dbm);
    set(&mut phy.noise_figure_db, d.noise_figure_db);
    set(&mut phy.preamble.min_snr_db, d.preamble_min_snr_db);
    set(&mut phy.preamble.min_rssi_dbm, d.preamble_min_rssi_dbm);
    let freq = d.frequency_hz.unwrap_or_else(|| standard.center_freq_mhz(standard.default_channel()).unwrap_or(5180) as f64 * 1e6);
    let system_loss = d.system_loss.unwrap_or(1.0);
    let path_loss = match d.propagation.unwrap_or(Propagation::LogDistance) {
        Propagation::LogDistance => PathLoss::LogDistance {
            exponent: d.exponent.unwrap_or(LOG_DISTANCE.0),
            reference_m: d.reference_m.unwrap_or(LOG_DISTANCE.1),
            reference_loss_db: d.reference_loss_db.unwrap_or(LOG_DISTANCE.2),
        },
        Propagation::Friis => PathLoss::Friis { freq_hz: freq, system_loss },
        Propagation::TwoRay => {
            let h = d.antenna_height_m.unwrap_or(ANTENNA_HEIGHT_M);
            PathLoss::TwoRayGround { freq_hz: freq, tx_height_m: h, rx_height_m: h, system_loss }
        }
    };
    let shadowing = d.shadowing_db.filter(|&s| s > 0.0).map(|sigma_db| Shadowing { sigma_db });
    let default_rate = match &d.rate {
        Some((mbps, path)) => rate_of(w, path, *mbps, standard)?,
        None => *standard.rates().last().expect("every standard has rates"),
    };
    let mut mac = MacParams::new(standard, default_rate);
    mac.broadcast_rate = standard.lowest_basic_rate();
    if let Some(p) = d.preamble {
        mac.preamble = p;
    }
    if let Some(n) = d.rts_threshold {
        mac.rts_threshold = n;
    }
    if let Some(r) = d.rate_control {
        mac.rate_control = r;
    }
    if let Some(n) = d.queue_packets {
        mac.queue_limit = n;
    }
    if let Some(n) = d.short_retry_limit {
        mac.short_retry_limit = n;
    }
    if let Some(n) = d.long_retry_limit {
        mac.long_retry_limit = n;
    }
    let p2p = match (d.p2p, d.p2p_delay) {
        (true, delay) => Some(P2pSpec {
            bps: default_rate.kbps as u64 * 1000,
            delay: delay.map_or(Duration::ZERO, |(d, _)| d),
            attempts: mac.short_retry_limit,
        }),
        (false, Some((_, path))) => return Err(w.doc.err(&path, "p2p_delay needs medium = \"p2p\"")),
        (false, None) => None,
    };
    let adhoc_subnet = d.adhoc_subnet.unwrap_or(Prefix::new(AUTO_ADHOC.0, AUTO_ADHOC.1));
    Ok(Medium { standard, phy, path_loss, shadowing, mac, p2p, adhoc_subnet })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::doc::Doc;

    fn medium_of(json: &str) -> R<Medium> {
        let doc = Doc::from_json(json, "t.json")?;
        medium(&Table::new(&doc, KeyPath::root().key("wifi"), &doc.root)?)
    }

    /// The number a key's default column states (`` `7` ``, `` `16.0206` (ns-3) ``).
    fn stated(key: &str) -> f64 {
        let d = WIFI.key(key).expect("declared").default;
        d.split('`').nth(1).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{key}: default {d} is not a number"))
    }

    #[test]
    fn stated_defaults_are_the_built_medium() {
        let m = medium_of("{}").unwrap();
        let PathLoss::LogDistance { exponent, reference_m, reference_loss_db } = m.path_loss else { panic!("log-distance by default") };
        assert_eq!((stated("exponent"), stated("reference_m"), stated("reference_loss_db")), (exponent, reference_m, reference_loss_db));
        let mac = [m.mac.rts_threshold, m.mac.queue_limit, m.mac.short_retry_limit, m.mac.long_retry_limit].map(f64::from);
        assert_eq!([stated("rts_threshold"), stated("queue_packets"), stated("short_retry_limit"), stated("long_retry_limit")], mac);
        let phy = [m.phy.tx_power_dbm, m.phy.rx_sensitivity_dbm, m.phy.cca_threshold_dbm, m.phy.noise_figure_db, m.phy.preamble.min_snr_db, m.phy.preamble.min_rssi_dbm];
        let keys = ["tx_power_dbm", "rx_sensitivity_dbm", "cca_threshold_dbm", "noise_figure_db", "preamble_min_snr_db", "preamble_min_rssi_dbm"];
        assert_eq!(keys.map(stated), phy);
        let two_ray = medium_of(r#"{"propagation": "two-ray"}"#).unwrap();
        let PathLoss::TwoRayGround { tx_height_m, system_loss, .. } = two_ray.path_loss else { panic!("two-ray") };
        assert_eq!((stated("antenna_height_m"), stated("system_loss")), (tx_height_m, system_loss));
        assert_eq!((m.standard, m.p2p, m.shadowing.is_none()), (Standard::A, None, true));
    }

    #[test]
    fn keys_that_depend_on_others_are_checked_at_their_line() {
        let e = medium_of(r#"{"standard": "b", "rate": "54Mbps"}"#).err().unwrap().to_string();
        assert_eq!(e, "t.json: wifi.rate: 54 Mb/s is not a rate of 802.11b (known: 1, 2, 5.5, 11)");
        let e = medium_of(r#"{"p2p_delay": "1ms"}"#).err().unwrap().to_string();
        assert_eq!(e, "t.json: wifi.p2p_delay: p2p_delay needs medium = \"p2p\"");
        let p = medium_of(r#"{"medium": "p2p", "p2p_delay": "1ms", "rate": 11, "standard": "b"}"#).unwrap().p2p.unwrap();
        assert_eq!((p.bps, p.delay, p.attempts), (11_000_000, Duration::from_millis(1), 7));
    }
}
