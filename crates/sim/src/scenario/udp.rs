//! `[[udp_flows]]`: UDP applications, each a sender on one node and an
//! iperf-style receiver on another.
//!
//! ```toml
//! [[udp_flows]]
//! name = "voice"            # default "udp<i>"; unique among UDP flows
//! from = "sta0"             # sender
//! to = "server"             # receiver
//! start = "1s"              # first datagram (default 0)
//! stop = "9s"               # no datagram from then on (default: end of run)
//! size = 1470               # UDP payload bytes per datagram (default 1470, iperf's)
//! app = "cbr"               # cbr | onoff | saturated | trace
//! rate = "1Mbps"            # cbr; onoff: the rate while on
//! on_time = "1s"            # onoff: mean on period (default 1s, ns-3's OnOff)
//! off_time = "1s"           # onoff: mean off period (default 1s)
//! periods = "exponential"   # onoff: exponential | pareto | constant
//! pareto_shape = 1.5        # onoff, pareto: shape > 1 (default 1.5)
//! backlog = 4               # saturated: datagrams kept in the radio's MAC queue
//! file = "voip.txt"         # trace: lines "<seconds after start> <payload bytes>"
//! ```

use std::path::Path;

use airtcp_core::Duration;
use serde_json::{json, Map, Value};

use super::doc::KeyPath;
use super::units::{format_duration, format_rate};
use super::value::{Field, Table, R};
use super::{NodeSpec, SimSpec};

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

const KEYS: &[&str] = &[
    "name", "from", "to", "start", "stop", "size", "app", "rate", "on_time", "off_time", "periods", "pareto_shape", "backlog",
    "file",
];

/// Keys each app takes besides the common ones.
fn app_keys(app: &str) -> &'static [&'static str] {
    match app {
        "cbr" => &["rate"],
        "onoff" => &["rate", "on_time", "off_time", "periods", "pareto_shape"],
        "saturated" => &["backlog"],
        _ => &["file"],
    }
}

/// Every UDP flow of the scenario. `radio_only[n]`: node n's only
/// interface is an 802.11 radio (what a saturated sender needs).
pub(super) fn udp_flows(
    items: Vec<Table>,
    nodes: &[NodeSpec],
    node_ref: &dyn Fn(&Field) -> R<usize>,
    connected: &dyn Fn(usize, usize) -> bool,
    radio_only: &[bool],
    sim: &SimSpec,
) -> R<Vec<UdpFlowSpec>> {
    if items.len() > super::names::MAX_FLOWS {
        let t = &items[0];
        return Err(t.doc.err(&KeyPath::root().key("udp_flows"), format!("at most {} UDP flows", super::names::MAX_FLOWS)));
    }
    let mut out: Vec<UdpFlowSpec> = Vec::with_capacity(items.len());
    for (i, t) in items.iter().enumerate() {
        t.known(KEYS)?;
        let name = match t.opt("name") {
            Some(f) => {
                let n = super::names::check_name(&f, "UDP flow")?;
                if let Some(j) = out.iter().position(|x| x.name == n) {
                    return Err(f.err(format!("duplicate UDP flow name \"{n}\" (also udp_flows[{j}])")));
                }
                n
            }
            None => format!("udp{i}"),
        };
        let from = node_ref(&t.req("from")?)?;
        let tf = t.req("to")?;
        let to = node_ref(&tf)?;
        if from == to {
            return Err(tf.err(format!("a UDP flow needs two different nodes (from = to = \"{}\")", nodes[to].name)));
        }
        if !connected(from, to) {
            return Err(tf.err(format!("no route from \"{}\" to \"{}\" (the nodes are not connected)", nodes[from].name, nodes[to].name)));
        }
        let start = t.opt("start").map(|f| f.duration()).transpose()?.unwrap_or(Duration::ZERO);
        if start >= sim.duration {
            let f = t.opt("start").expect("a start past the end was given");
            return Err(f.err(format!("start {} is not before the end of the run ({})", format_duration(start), format_duration(sim.duration))));
        }
        let stop = match t.opt("stop") {
            Some(f) => {
                let s = f.duration()?;
                if s <= start {
                    return Err(f.err(format!("stop {} is not after start {}", format_duration(s), format_duration(start))));
                }
                s.min(sim.duration)
            }
            None => sim.duration,
        };
        let size = match t.opt("size") {
            Some(f) => {
                let n = f.size_u32()?;
                if n == 0 || n > MAX_SIZE {
                    return Err(f.err(format!("size {n} is outside 1..={MAX_SIZE} bytes (one IPv4 datagram)")));
                }
                n
            }
            None => DEFAULT_SIZE,
        };
        let (app_name, app_f) = match t.opt("app") {
            Some(f) => (f.str()?, Some(f)),
            None => return Err(t.doc.err(&t.path.key("app"), "missing required key (cbr, onoff, saturated, trace)")),
        };
        if !["cbr", "onoff", "saturated", "trace"].contains(&app_name) {
            let f = app_f.expect("app given");
            return Err(f.err(format!("unknown UDP app \"{app_name}\" (known: cbr, onoff, saturated, trace)")));
        }
        let allowed = app_keys(app_name);
        for k in ["rate", "on_time", "off_time", "periods", "pareto_shape", "backlog", "file"] {
            if let (Some(f), false) = (t.opt(k), allowed.contains(&k)) {
                return Err(f.err(format!("app \"{app_name}\" takes no {k} (it takes: {})", allowed.join(", "))));
            }
        }
        if app_name == "trace" {
            if let Some(f) = t.opt("size") {
                return Err(f.err("a trace sets each datagram's size (drop size)"));
            }
        }
        let app = match app_name {
            "cbr" => UdpApp::Cbr { rate_bps: t.req("rate")?.rate()? },
            "onoff" => {
                let rate_bps = t.req("rate")?.rate()?;
                let period = |k: &str| -> R<Duration> {
                    match t.opt(k) {
                        Some(f) => {
                            let d = f.duration()?;
                            if d == Duration::ZERO {
                                return Err(f.err(format!("{k} must be positive")));
                            }
                            Ok(d)
                        }
                        None => Ok(Duration::from_secs(1)),
                    }
                };
                let (on, off) = (period("on_time")?, period("off_time")?);
                let periods = match t.opt("periods") {
                    None => Periods::Exponential,
                    Some(f) => match f.str()? {
                        "exponential" => Periods::Exponential,
                        "constant" => Periods::Constant,
                        "pareto" => Periods::Pareto { shape: 1.5 },
                        other => return Err(f.err(format!("unknown periods \"{other}\" (known: exponential, pareto, constant)"))),
                    },
                };
                let periods = match (periods, t.opt("pareto_shape")) {
                    (Periods::Pareto { .. }, Some(f)) => {
                        let shape = f.f64()?;
                        if !(shape > 1.0 && shape.is_finite()) {
                            return Err(f.err(format!("pareto_shape {shape} must be above 1 (the mean is infinite otherwise)")));
                        }
                        Periods::Pareto { shape }
                    }
                    (_, Some(f)) => return Err(f.err("pareto_shape needs periods = \"pareto\"")),
                    (p, None) => p,
                };
                UdpApp::OnOff { rate_bps, on, off, periods }
            }
            "saturated" => {
                if !radio_only[from] {
                    return Err(t.req("from")?.err(format!(
                        "a saturated sender is paced by its radio's MAC queue: \"{}\" needs an 802.11 radio as its only interface \
                         (on a wired or p2p first hop use app = \"cbr\" at the link's rate)",
                        nodes[from].name
                    )));
                }
                let backlog = match t.opt("backlog") {
                    Some(f) => {
                        let b = f.u32()?;
                        if b == 0 {
                            return Err(f.err("backlog must be at least 1 datagram"));
                        }
                        b
                    }
                    None => DEFAULT_BACKLOG,
                };
                UdpApp::Saturated { backlog }
            }
            _ => {
                let f = t.req("file")?;
                let file = f.str()?.to_string();
                let path = super::trace::resolve(&t.doc.origin, &file);
                let text = std::fs::read_to_string(&path).map_err(|e| f.err(format!("cannot read trace file {}: {e}", path.display())))?;
                let entries = parse_trace(&text).map_err(|(line, m)| f.err(format!("{}:{line}: {m}", path.display())))?;
                UdpApp::Trace { file: path_text(&path), entries }
            }
        };
        out.push(UdpFlowSpec { name, from, to, start, stop, size, app });
    }
    Ok(out)
}

fn path_text(p: &Path) -> String {
    p.display().to_string()
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

/// The resolved `[[udp_flows]]` entries (every default filled in).
pub(super) fn udp_flows_json(flows: &[UdpFlowSpec], nodes: &[NodeSpec]) -> Value {
    let v: Vec<Value> = flows
        .iter()
        .map(|f| {
            let mut m = Map::new();
            m.insert("name".into(), json!(f.name));
            m.insert("from".into(), json!(nodes[f.from].name));
            m.insert("to".into(), json!(nodes[f.to].name));
            m.insert("start".into(), json!(format_duration(f.start)));
            m.insert("stop".into(), json!(format_duration(f.stop)));
            match &f.app {
                UdpApp::Cbr { rate_bps } => {
                    m.insert("app".into(), json!("cbr"));
                    m.insert("rate".into(), json!(format_rate(*rate_bps)));
                }
                UdpApp::OnOff { rate_bps, on, off, periods } => {
                    m.insert("app".into(), json!("onoff"));
                    m.insert("rate".into(), json!(format_rate(*rate_bps)));
                    m.insert("on_time".into(), json!(format_duration(*on)));
                    m.insert("off_time".into(), json!(format_duration(*off)));
                    let p = match periods {
                        Periods::Constant => "constant",
                        Periods::Exponential => "exponential",
                        Periods::Pareto { shape } => {
                            m.insert("pareto_shape".into(), json!(shape));
                            "pareto"
                        }
                    };
                    m.insert("periods".into(), json!(p));
                }
                UdpApp::Saturated { backlog } => {
                    m.insert("app".into(), json!("saturated"));
                    m.insert("backlog".into(), json!(backlog));
                }
                UdpApp::Trace { file, .. } => {
                    m.insert("app".into(), json!("trace"));
                    m.insert("file".into(), json!(file));
                }
            }
            if !matches!(f.app, UdpApp::Trace { .. }) {
                m.insert("size".into(), json!(f.size));
            }
            Value::Object(m)
        })
        .collect();
    Value::Array(v)
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
