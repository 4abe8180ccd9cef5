//! Quantities with units as scenario files write them: durations
//! ("10ms", "1.5s"), rates ("10Mbps") and sizes ("128KiB"). Decimal text is
//! converted with integer arithmetic so "0.1s" is exactly 100_000_000 ns.

use airtcp_core::Duration;

/// Parse a non-negative decimal `text` and multiply by `scale` exactly,
/// rounding to the nearest unit. Returns None on malformed text or overflow.
fn scaled_decimal(text: &str, scale: u64) -> Option<u64> {
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (text, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !digits_ok(int) || !digits_ok(frac) {
        return None;
    }
    let int: String = int.chars().filter(|&c| c != '_').collect();
    let frac: String = frac.chars().filter(|&c| c != '_').collect();
    let whole: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut value = whole.checked_mul(scale as u128)?;
    // Fraction: frac / 10^len * scale, rounded to nearest.
    if !frac.is_empty() {
        let f = frac.trim_end_matches('0');
        if f.len() > 30 {
            return None;
        }
        if !f.is_empty() {
            let num: u128 = f.parse().ok()?;
            let den = 10u128.pow(f.len() as u32);
            let part = (num * scale as u128 + den / 2) / den;
            value = value.checked_add(part)?;
        }
    }
    u64::try_from(value).ok()
}

/// Split "12.5ms" into ("12.5", "ms").
fn split_unit(text: &str) -> (&str, &str) {
    let t = text.trim();
    let pos = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_' || c == '-' || c == '+')).unwrap_or(t.len());
    (t[..pos].trim(), t[pos..].trim())
}

/// Why a quantity was rejected; the caller adds the key.
pub type UnitError = String;

/// Duration text: a number followed by ns, us, ms, s, min or h.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    let (num, unit) = split_unit(text);
    if num.starts_with('-') {
        return Err(format!("negative duration \"{text}\""));
    }
    let scale = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "" => return Err(format!("duration \"{text}\" needs a unit (ns, us, ms, s, min, h)")),
        _ => return Err(format!("unknown duration unit in \"{text}\" (use ns, us, ms, s, min, h)")),
    };
    let num = num.strip_prefix('+').unwrap_or(num);
    scaled_decimal(num, scale).map(Duration).ok_or_else(|| format!("malformed duration \"{text}\""))
}

/// A plain number of seconds (TOML/JSON number) as a duration.
pub fn seconds_to_duration(s: f64, shown: &str) -> Result<Duration, UnitError> {
    if !s.is_finite() {
        return Err(format!("duration {shown} is not finite"));
    }
    if s < 0.0 {
        return Err(format!("negative duration {shown}"));
    }
    let ns = (s * 1e9).round();
    if ns >= u64::MAX as f64 {
        return Err(format!("duration {shown} is too large"));
    }
    Ok(Duration(ns as u64))
}

/// Rate text in bits per second: bps, kbps, Mbps, Gbps (also b/s, kb/s, Mb/s, Gb/s).
pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    let (num, unit) = split_unit(text);
    if num.starts_with('-') {
        return Err(format!("negative rate \"{text}\""));
    }
    let scale = match unit {
        "bps" | "b/s" => 1,
        "kbps" | "Kbps" | "kb/s" | "Kb/s" => 1_000,
        "Mbps" | "mbps" | "Mb/s" => 1_000_000,
        "Gbps" | "gbps" | "Gb/s" => 1_000_000_000,
        "" => return Err(format!("rate \"{text}\" needs a unit (bps, kbps, Mbps, Gbps)")),
        _ => return Err(format!("unknown rate unit in \"{text}\" (use bps, kbps, Mbps, Gbps)")),
    };
    let num = num.strip_prefix('+').unwrap_or(num);
    scaled_decimal(num, scale).ok_or_else(|| format!("malformed rate \"{text}\""))
}

/// Size text in bytes: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, UnitError> {
    let (num, unit) = split_unit(text);
    if num.starts_with('-') {
        return Err(format!("negative size \"{text}\""));
    }
    let scale = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(format!("unknown size unit in \"{text}\" (use B, KB, MB, GB, KiB, MiB, GiB)")),
    };
    let num = num.strip_prefix('+').unwrap_or(num);
    scaled_decimal(num, scale).ok_or_else(|| format!("malformed size \"{text}\""))
}

/// Canonical text of a duration: the largest unit that represents it exactly.
pub fn format_duration(d: Duration) -> String {
    let ns = d.0;
    for (unit, scale) in [("s", 1_000_000_000u64), ("ms", 1_000_000), ("us", 1_000)] {
        if ns != 0 && ns % scale == 0 {
            return format!("{}{unit}", ns / scale);
        }
    }
    if ns == 0 {
        return "0s".into();
    }
    format!("{ns}ns")
}

/// Canonical text of a rate: the largest unit that represents it exactly.
pub fn format_rate(bps: u64) -> String {
    for (unit, scale) in [("Gbps", 1_000_000_000u64), ("Mbps", 1_000_000), ("kbps", 1_000)] {
        if bps != 0 && bps % scale == 0 {
            return format!("{}{unit}", bps / scale);
        }
    }
    format!("{bps}bps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_exactly() {
        assert_eq!(parse_duration("10ms").unwrap(), Duration(10_000_000));
        assert_eq!(parse_duration("0.1s").unwrap(), Duration(100_000_000));
        assert_eq!(parse_duration("1.5 s").unwrap(), Duration(1_500_000_000));
        assert_eq!(parse_duration("200us").unwrap(), Duration(200_000));
        assert_eq!(parse_duration("7ns").unwrap(), Duration(7));
        assert_eq!(parse_duration("2min").unwrap(), Duration(120_000_000_000));
        assert_eq!(parse_duration("-5ms").unwrap_err(), "negative duration \"-5ms\"");
        assert!(parse_duration("5").unwrap_err().contains("needs a unit"));
        assert!(parse_duration("5 parsecs").unwrap_err().contains("unknown duration unit"));
        assert!(parse_duration("1.2.3s").unwrap_err().contains("malformed"));
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate("10Mbps").unwrap(), 10_000_000);
        assert_eq!(parse_rate("1.5Mbps").unwrap(), 1_500_000);
        assert_eq!(parse_rate("2 Mb/s").unwrap(), 2_000_000);
        assert_eq!(parse_rate("64kbps").unwrap(), 64_000);
        assert_eq!(parse_size("128KiB").unwrap(), 131_072);
        assert_eq!(parse_size("64MiB").unwrap(), 67_108_864);
        assert_eq!(parse_size("1500").unwrap(), 1500);
    }

    #[test]
    fn canonical_text_round_trips() {
        for d in [Duration(0), Duration(1), Duration(1_500_000), Duration(60_000_000_000), Duration(123_456)] {
            assert_eq!(parse_duration(&format_duration(d)).unwrap(), d);
        }
        for r in [1u64, 2_000_000, 10_500_000, 1_000_000_000, 123] {
            assert_eq!(parse_rate(&format_rate(r)).unwrap(), r);
        }
        assert_eq!(format_duration(Duration(4_216_000)), "4216us");
        assert_eq!(format_rate(2_000_000), "2Mbps");
    }
}
