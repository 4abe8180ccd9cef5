//! `[[udp_flows]]`: UDP applications, each a sender on one node and an
//! iperf-style receiver on another. The types a flow resolves to and the
//! sender trace format; every key is declared in `super::udp_keys`.

use airtcp_core::Duration;

/// iperf 2's default UDP payload (`-l` for UDP: 1470 bytes).
pub const DEFAULT_SIZE: u32 = 1470;
/// Largest payload of one IPv4 datagram: 65535 - 20 (IPv4) - 8 (UDP).
pub const MAX_SIZE: u32 = 65_507;
/// Default MAC-queue backlog of a saturated sender: enough that the queue
/// never runs dry between a release and the refill that follows it.
pub const DEFAULT_BACKLOG: u32 = 4;

/// How an on/off source draws its period lengths (ns-3 OnOffApplication's
/// OnTime / OffTime random variables).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Periods {
    Constant,
    Exponential,
    /// Pareto with this shape; the scale gives the configured mean.
    Pareto { shape: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub enum UdpApp {
    /// One datagram every `size x 8 / rate` seconds.
    Cbr { rate_bps: u64 },
    /// ns-3's OnOffApplication: `rate_bps` while on; period lengths drawn
    /// with the given means.
    OnOff { rate_bps: u64, on: Duration, off: Duration, periods: Periods },
    /// Keeps `backlog` datagrams in the sending radio's MAC queue.
    Saturated { backlog: u32 },
    /// Datagrams at the trace's times (after the start) and sizes.
    Trace { file: String, entries: Vec<(Duration, u32)> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct UdpFlowSpec {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub start: Duration,
    pub stop: Duration,
    /// Payload bytes of each datagram (a trace sets its own).
    pub size: u32,
    pub app: UdpApp,
}

/// A sender trace: one datagram per line, `<seconds after the start>
/// <payload bytes>` separated by spaces, a tab or a comma; `#` starts a
/// comment. Times must not decrease. Errors give the 1-based line.
pub fn parse_trace(text: &str) -> Result<Vec<(Duration, u32)>, (usize, String)> {
    let mut out = Vec::new();
    let mut last = Duration::ZERO;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split(|c: char| c == ',' || c.is_whitespace()).filter(|s| !s.is_empty());
        let (Some(t), Some(b), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err((i + 1, format!("expected \"<seconds> <bytes>\", got \"{line}\"")));
        };
        let secs: f64 = t.parse().map_err(|_| (i + 1, format!("time \"{t}\" is not a number of seconds")))?;
        let at = super::units::seconds_to_duration(secs, t).map_err(|m| (i + 1, m))?;
        let bytes: u32 = b.parse().map_err(|_| (i + 1, format!("size \"{b}\" is not a whole number of bytes")))?;
        if bytes == 0 || bytes > MAX_SIZE {
            return Err((i + 1, format!("size {bytes} is outside 1..={MAX_SIZE} bytes")));
        }
        if at < last {
            return Err((i + 1, format!("time {secs} s is before the previous line's")));
        }
        last = at;
        out.push((at, bytes));
    }
    if out.is_empty() {
        return Err((0, "the trace has no datagrams".into()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_lines_are_parsed_with_comments_and_separators() {
        let t = parse_trace("# voice\n0 160\n0.02, 160\n0.040\t200 # talk spurt\n\n").unwrap();
        assert_eq!(t, vec![(Duration::ZERO, 160), (Duration::from_millis(20), 160), (Duration::from_millis(40), 200)]);
    }

    #[test]
    fn trace_errors_name_the_line() {
        assert_eq!(parse_trace("0 10\n0.5 x\n").unwrap_err().0, 2);
        assert!(parse_trace("1 10\n0.5 10\n").unwrap_err().1.contains("before the previous"));
        assert!(parse_trace("-1 10\n").unwrap_err().1.contains("negative"));
        assert!(parse_trace("0 0\n").unwrap_err().1.contains("outside"));
        assert!(parse_trace("# nothing\n").unwrap_err().1.contains("no datagrams"));
    }
}
