//! `[[udp_flows]]`, each key one entry of [`udp_flow_keys`]: the accepted
//! keys, the reader, the resolved JSON and the reference page's table come
//! from it (the types and the sender trace format are in `super::udp`).
//!
//! A flow's keys are read in the table's order, each checked against the
//! keys before it (`to` against `from`, `stop` against `start`, every key
//! after `app` against the app), so the first error of a flow is the same
//! whatever order the file writes its keys in. `app` also rejects the keys
//! of other apps before any of them is read.

use airtcp_core::Duration;
use serde_json::{json, Value};

use super::doc::KeyPath;
use super::keys::{Key, Section};
use super::names::{check_name, MAX_FLOWS};
use super::udp::{parse_trace, Periods, UdpApp, UdpFlowSpec, DEFAULT_BACKLOG, DEFAULT_SIZE, MAX_SIZE};
use super::units::{format_duration, format_rate};
use super::value::{Field, Table, R};
use super::{NodeSpec, SimSpec};

/// The apps, as `app` names them.
const APPS: &str = "cbr, onoff, saturated, trace";

/// Keys each app takes besides the common ones.
fn app_keys(app: &UdpApp) -> &'static [&'static str] {
    match app {
        UdpApp::Cbr { .. } => &["rate"],
        UdpApp::OnOff { .. } => &["rate", "on_time", "off_time", "periods", "pareto_shape"],
        UdpApp::Saturated { .. } => &["backlog"],
        UdpApp::Trace { .. } => &["file"],
    }
}

fn app_name(app: &UdpApp) -> &'static str {
    match app {
        UdpApp::Cbr { .. } => "cbr",
        UdpApp::OnOff { .. } => "onoff",
        UdpApp::Saturated { .. } => "saturated",
        UdpApp::Trace { .. } => "trace",
    }
}

/// What a flow's keys are checked against while it is read.
pub(super) struct Checks<'a> {
    /// The flow's table (`app` checks which other keys it has).
    pub table: &'a Table<'a>,
    pub node_ref: &'a dyn Fn(&Field) -> R<usize>,
    pub connected: &'a dyn Fn(usize, usize) -> bool,
    /// `radio_only[n]`: node n's only interface is an 802.11 radio.
    pub radio_only: &'a [bool],
    pub sim: &'a SimSpec,
    /// The flows declared before this one (names are unique).
    pub earlier: &'a [UdpFlowSpec],
}

/// A UDP flow being read, or written back.
pub struct Udp<'a> {
    nodes: &'a [NodeSpec],
    /// `None` when writing.
    checks: Option<Checks<'a>>,
    spec: UdpFlowSpec,
}

impl<'a> Udp<'a> {
    fn checks(&self) -> &Checks<'a> {
        self.checks.as_ref().expect("only a flow being read is checked")
    }

    fn name_of(&self, node: usize) -> Value {
        Value::from(self.nodes[node].name.as_str())
    }

    /// A positive duration (an on/off period).
    fn period(f: &Field, key: &str) -> R<Duration> {
        let d = f.duration()?;
        if d == Duration::ZERO {
            return Err(f.err(format!("{key} must be positive")));
        }
        Ok(d)
    }

    fn onoff(&mut self) -> (&mut Duration, &mut Duration, &mut Periods) {
        match &mut self.spec.app {
            UdpApp::OnOff { on, off, periods, .. } => (on, off, periods),
            _ => unreachable!("`app` rejects the on/off keys of other apps before they are read"),
        }
    }

    /// Check a key the table does not have: what is required (`from`, `to`,
    /// `app`, and what the app needs) is reported where the flow's first
    /// error would be.
    fn absent(&self, key: &str) -> R<()> {
        let t = self.checks().table;
        match (key, &self.spec.app) {
            ("from" | "to", _) | ("rate", UdpApp::Cbr { .. } | UdpApp::OnOff { .. }) | ("file", UdpApp::Trace { .. }) => t.req(key).map(|_| ()),
            ("app", _) => Err(t.doc.err(&t.path.key("app"), format!("missing required key ({APPS})"))),
            _ => Ok(()),
        }
    }
}

/// Every `[[udp_flows]]` key, in the order they are read and errors and
/// the reference page list them.
pub fn udp_flow_keys<'a>() -> [Key<Udp<'a>>; 14] {
    [
        Key {
            name: "name",
            ty: "name",
            doc: "Names the flow in summary.json's `udp_flows` and its on/off random stream (its series files are `udp<i>.csv` by position); letters, digits, `_`, `-`, `.`; unique among UDP flows.",
            default: "`\"udp<i>\"`, i its position",
            read: |u, f| {
                let n = check_name(f, "UDP flow")?;
                if let Some(j) = u.checks().earlier.iter().position(|x| x.name == n) {
                    return Err(f.err(format!("duplicate UDP flow name \"{n}\" (also udp_flows[{j}])")));
                }
                u.spec.name = n;
                Ok(())
            },
            write: |u| Some(Value::from(u.spec.name.as_str())),
        },
        Key {
            name: "from",
            ty: "node name",
            doc: "The sender.",
            default: "required",
            read: |u, f| {
                u.spec.from = (u.checks().node_ref)(f)?;
                Ok(())
            },
            write: |u| Some(u.name_of(u.spec.from)),
        },
        Key {
            name: "to",
            ty: "node name",
            doc: "The receiver (iperf-style: it counts, times and orders what arrives); a node other than `from`, connected to it by links or radios.",
            default: "required",
            read: |u, f| {
                let to = (u.checks().node_ref)(f)?;
                let from = u.spec.from;
                if from == to {
                    return Err(f.err(format!("a UDP flow needs two different nodes (from = to = \"{}\")", u.nodes[to].name)));
                }
                if !(u.checks().connected)(from, to) {
                    return Err(f.err(format!("no route from \"{}\" to \"{}\" (the nodes are not connected)", u.nodes[from].name, u.nodes[to].name)));
                }
                u.spec.to = to;
                Ok(())
            },
            write: |u| Some(u.name_of(u.spec.to)),
        },
        Key {
            name: "start",
            ty: "duration",
            doc: "The first datagram; before the end of the run.",
            default: "`\"0s\"`",
            read: |u, f| {
                let s = f.duration()?;
                let end = u.checks().sim.duration;
                if s >= end {
                    return Err(f.err(format!("start {} is not before the end of the run ({})", format_duration(s), format_duration(end))));
                }
                u.spec.start = s;
                Ok(())
            },
            write: |u| Some(Value::from(format_duration(u.spec.start))),
        },
        Key {
            name: "stop",
            ty: "duration",
            doc: "No datagram from then on; after `start` (a later one than the end of the run is the end of the run).",
            default: "the end of the run",
            read: |u, f| {
                let s = f.duration()?;
                if s <= u.spec.start {
                    return Err(f.err(format!("stop {} is not after start {}", format_duration(s), format_duration(u.spec.start))));
                }
                u.spec.stop = s.min(u.checks().sim.duration);
                Ok(())
            },
            write: |u| Some(Value::from(format_duration(u.spec.stop))),
        },
        Key {
            name: "size",
            ty: "size (bytes)",
            doc: "UDP payload bytes of each datagram, 1 to 65507 (one IPv4 datagram); not with `app = \"trace\"`, whose lines set each size.",
            default: "`1470` (iperf 2's `-l` for UDP)",
            read: |u, f| {
                let n = f.size_u32()?;
                if n == 0 || n > MAX_SIZE {
                    return Err(f.err(format!("size {n} is outside 1..={MAX_SIZE} bytes (one IPv4 datagram)")));
                }
                u.spec.size = n;
                Ok(())
            },
            write: |u| (!matches!(u.spec.app, UdpApp::Trace { .. })).then(|| json!(u.spec.size)),
        },
        Key {
            name: "app",
            ty: "`\"cbr\"` | `\"onoff\"` | `\"saturated\"` | `\"trace\"`",
            doc: "What the sender does: `cbr` one datagram every size·8/`rate`; `onoff` ns-3's OnOffApplication (`rate` while on, periods drawn with means `on_time` / `off_time`); `saturated` keeps `backlog` datagrams in the sending radio's MAC queue (the sender's only interface must be an 802.11 radio); `trace` sends at the times and sizes of `file`. The keys below belong to one app each; another app's key is an error.",
            default: "required",
            read: |u, f| {
                let app = match f.str()? {
                    "cbr" => UdpApp::Cbr { rate_bps: 0 },
                    "onoff" => UdpApp::OnOff { rate_bps: 0, on: Duration::from_secs(1), off: Duration::from_secs(1), periods: Periods::Exponential },
                    "saturated" => UdpApp::Saturated { backlog: DEFAULT_BACKLOG },
                    "trace" => UdpApp::Trace { file: String::new(), entries: Vec::new() },
                    other => return Err(f.err(format!("unknown UDP app \"{other}\" (known: {APPS})"))),
                };
                let t = u.checks().table;
                let allowed = app_keys(&app);
                for k in ["rate", "on_time", "off_time", "periods", "pareto_shape", "backlog", "file"] {
                    if let (Some(g), false) = (t.opt(k), allowed.contains(&k)) {
                        return Err(g.err(format!("app \"{}\" takes no {k} (it takes: {})", app_name(&app), allowed.join(", "))));
                    }
                }
                if let (UdpApp::Trace { .. }, Some(g)) = (&app, t.opt("size")) {
                    return Err(g.err("a trace sets each datagram's size (drop size)"));
                }
                if matches!(app, UdpApp::Saturated { .. }) && !u.checks().radio_only[u.spec.from] {
                    return Err(t.req("from")?.err(format!(
                        "a saturated sender is paced by its radio's MAC queue: \"{}\" needs an 802.11 radio as its only interface \
                         (on a wired or p2p first hop use app = \"cbr\" at the link's rate)",
                        u.nodes[u.spec.from].name
                    )));
                }
                u.spec.app = app;
                Ok(())
            },
            write: |u| Some(Value::from(app_name(&u.spec.app))),
        },
        Key {
            name: "rate",
            ty: "rate",
            doc: "`cbr`: the sending rate; `onoff`: the rate while on.",
            default: "required (`cbr`, `onoff`)",
            read: |u, f| {
                let r = f.rate()?;
                match &mut u.spec.app {
                    UdpApp::Cbr { rate_bps } | UdpApp::OnOff { rate_bps, .. } => *rate_bps = r,
                    _ => unreachable!("`app` rejects rate for the other apps before it is read"),
                }
                Ok(())
            },
            write: |u| match u.spec.app {
                UdpApp::Cbr { rate_bps } | UdpApp::OnOff { rate_bps, .. } => Some(Value::from(format_rate(rate_bps))),
                _ => None,
            },
        },
        Key {
            name: "on_time",
            ty: "duration > 0",
            doc: "`onoff`: mean length of an on period (ns-3 OnOffApplication's OnTime).",
            default: "`\"1s\"`",
            read: |u, f| {
                *u.onoff().0 = Udp::period(f, "on_time")?;
                Ok(())
            },
            write: |u| match u.spec.app {
                UdpApp::OnOff { on, .. } => Some(Value::from(format_duration(on))),
                _ => None,
            },
        },
        Key {
            name: "off_time",
            ty: "duration > 0",
            doc: "`onoff`: mean length of an off period (OffTime); the sender starts with one.",
            default: "`\"1s\"`",
            read: |u, f| {
                *u.onoff().1 = Udp::period(f, "off_time")?;
                Ok(())
            },
            write: |u| match u.spec.app {
                UdpApp::OnOff { off, .. } => Some(Value::from(format_duration(off))),
                _ => None,
            },
        },
        Key {
            name: "periods",
            ty: "`\"exponential\"` | `\"pareto\"` | `\"constant\"`",
            doc: "`onoff`: how period lengths are drawn; a Pareto period has scale mean·(shape−1)/shape, so `on_time` / `off_time` stay the means.",
            default: "`\"exponential\"`",
            read: |u, f| {
                *u.onoff().2 = match f.str()? {
                    "exponential" => Periods::Exponential,
                    "constant" => Periods::Constant,
                    "pareto" => Periods::Pareto { shape: 1.5 },
                    other => return Err(f.err(format!("unknown periods \"{other}\" (known: exponential, pareto, constant)"))),
                };
                Ok(())
            },
            write: |u| match u.spec.app {
                UdpApp::OnOff { periods, .. } => Some(Value::from(match periods {
                    Periods::Constant => "constant",
                    Periods::Exponential => "exponential",
                    Periods::Pareto { .. } => "pareto",
                })),
                _ => None,
            },
        },
        Key {
            name: "pareto_shape",
            ty: "number > 1",
            doc: "`onoff` with `periods = \"pareto\"`: the shape (at or below 1 the mean is infinite).",
            default: "`1.5`",
            read: |u, f| {
                let periods = u.onoff().2;
                if !matches!(periods, Periods::Pareto { .. }) {
                    return Err(f.err("pareto_shape needs periods = \"pareto\""));
                }
                let shape = f.f64()?;
                if !(shape > 1.0 && shape.is_finite()) {
                    return Err(f.err(format!("pareto_shape {shape} must be above 1 (the mean is infinite otherwise)")));
                }
                *periods = Periods::Pareto { shape };
                Ok(())
            },
            write: |u| match u.spec.app {
                UdpApp::OnOff { periods: Periods::Pareto { shape }, .. } => Some(json!(shape)),
                _ => None,
            },
        },
        Key {
            name: "backlog",
            ty: "integer ≥ 1",
            doc: "`saturated`: datagrams kept in the radio's MAC queue, refilled each time the MAC releases one (enough that the queue never runs dry).",
            default: "`4`",
            read: |u, f| {
                let b = f.u32()?;
                if b == 0 {
                    return Err(f.err("backlog must be at least 1 datagram"));
                }
                u.spec.app = UdpApp::Saturated { backlog: b };
                Ok(())
            },
            write: |u| match u.spec.app {
                UdpApp::Saturated { backlog } => Some(json!(backlog)),
                _ => None,
            },
        },
        Key {
            name: "file",
            ty: "path",
            doc: "`trace`: one datagram per line, `<seconds after start> <payload bytes>` (space, tab or comma; `#` comments; times not decreasing); relative to the scenario file. Recorded as the path it resolved to.",
            default: "required (`trace`)",
            read: |u, f| {
                let file = f.str()?.to_string();
                let path = super::trace::resolve(&f.doc.origin, &file);
                let text = std::fs::read_to_string(&path).map_err(|e| f.err(format!("cannot read trace file {}: {e}", path.display())))?;
                let entries = parse_trace(&text).map_err(|(line, m)| f.err(format!("{}:{line}: {m}", path.display())))?;
                u.spec.app = UdpApp::Trace { file: path.display().to_string(), entries };
                Ok(())
            },
            write: |u| match &u.spec.app {
                UdpApp::Trace { file, .. } => Some(Value::from(file.as_str())),
                _ => None,
            },
        },
    ]
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
    if items.len() > MAX_FLOWS {
        let t = &items[0];
        return Err(t.doc.err(&KeyPath::root().key("udp_flows"), format!("at most {MAX_FLOWS} UDP flows")));
    }
    let mut out: Vec<UdpFlowSpec> = Vec::with_capacity(items.len());
    for (i, t) in items.iter().enumerate() {
        // The table is typed by the borrow of the flows before, so it is
        // made per flow (an array of function pointers).
        let keys = udp_flow_keys();
        let section = Section { path: "udp_flows", keys: &keys };
        section.known(t)?;
        let spec = UdpFlowSpec {
            name: format!("udp{i}"),
            from: 0,
            to: 0,
            start: Duration::ZERO,
            stop: sim.duration,
            size: DEFAULT_SIZE,
            app: UdpApp::Cbr { rate_bps: 0 },
        };
        let checks = Checks { table: t, node_ref, connected, radio_only, sim, earlier: &out };
        let mut u = Udp { nodes, checks: Some(checks), spec };
        for k in &keys {
            match t.opt(k.name) {
                Some(f) => (k.read)(&mut u, &f)?,
                None => u.absent(k.name)?,
            }
        }
        let spec = u.spec;
        out.push(spec);
    }
    Ok(out)
}

/// The resolved `[[udp_flows]]` entries (every default filled in).
pub(super) fn udp_flows_json(flows: &[UdpFlowSpec], nodes: &[NodeSpec]) -> Value {
    let keys = udp_flow_keys();
    let section = Section { path: "udp_flows", keys: &keys };
    Value::Array(flows.iter().map(|f| section.write(&Udp { nodes, checks: None, spec: f.clone() })).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    /// a - b wired, c alone; `lines` is one `[[udp_flows]]` entry.
    fn with_flow(lines: &str) -> Result<Scenario, String> {
        let text = format!(
            "[sim]\nduration = \"2s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[nodes]]\nname = \"c\"\n\
             [[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\n[[udp_flows]]\n{lines}\n"
        );
        Scenario::from_toml_str(&text, "t.toml", &[]).map_err(|e| e.to_string())
    }

    fn error(lines: &str) -> String {
        with_flow(lines).err().unwrap_or_else(|| panic!("accepted: {lines}"))
    }

    /// With two bad keys, the one read first is reported: keys are read in
    /// the table's order, `app` rejects another app's keys before any is
    /// read, and a missing key is reported where it would have been read.
    #[test]
    fn the_first_bad_key_in_reading_order_is_reported() {
        let cases = [
            ("from = \"a\"\nto = \"a\"\nstop = \"junk\"\napp = \"cbr\"", "t.toml:15: udp_flows[0].to: a UDP flow needs two different nodes (from = to = \"a\")"),
            ("from = \"a\"\nto = \"b\"\napp = \"cbr\"\nrate = \"fast\"\nbacklog = 1", "t.toml:18: udp_flows[0].backlog: app \"cbr\" takes no backlog (it takes: rate)"),
            ("from = \"a\"\nto = \"b\"\napp = \"trace\"\nsize = 100\nrate = \"1Mbps\"", "t.toml:18: udp_flows[0].rate: app \"trace\" takes no rate (it takes: file)"),
            ("from = \"a\"\nto = \"b\"\napp = \"trace\"\nsize = 100", "t.toml:17: udp_flows[0].size: a trace sets each datagram's size (drop size)"),
            ("from = \"a\"\nto = \"b\"\napp = \"onoff\"\non_time = 0", "t.toml:13: udp_flows[0].rate: missing required key"),
            ("from = \"a\"\nto = \"b\"\nsize = 0", "t.toml:16: udp_flows[0].size: size 0 is outside 1..=65507 bytes (one IPv4 datagram)"),
            ("from = \"a\"\nto = \"b\"", "t.toml:13: udp_flows[0].app: missing required key (cbr, onoff, saturated, trace)"),
            ("from = \"a\"\nto = \"b\"\napp = \"saturated\"\nbacklog = 0", "t.toml:14: udp_flows[0].from: a saturated sender is paced by its radio's MAC queue: \"a\" needs an 802.11 radio as its only interface (on a wired or p2p first hop use app = \"cbr\" at the link's rate)"),
            ("from = \"a\"\nto = \"b\"\napp = \"onoff\"\nrate = 1000\npareto_shape = 3.0\noff_time = 0", "t.toml:19: udp_flows[0].off_time: off_time must be positive"),
            ("from = \"a\"\nto = \"b\"\napp = \"onoff\"\nrate = 1000\npareto_shape = 3.0", "t.toml:18: udp_flows[0].pareto_shape: pareto_shape needs periods = \"pareto\""),
            ("from = \"a\"\nto = \"c\"\napp = \"cbr\"", "t.toml:15: udp_flows[0].to: no route from \"a\" to \"c\" (the nodes are not connected)"),
            ("from = \"a\"\nto = \"b\"\nstart = \"1s\"\nstop = 1", "t.toml:17: udp_flows[0].stop: stop 1s is not after start 1s"),
        ];
        let wrong: Vec<String> = cases.iter().filter(|(l, w)| error(l) != *w).map(|(l, _)| format!("{l:?}\n  got {}", error(l))).collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn unknown_key_lists_the_table_in_order() {
        let e = error("from = \"a\"\nto = \"b\"\napp = \"cbr\"\nrate = 1000\ncolour = 1");
        assert_eq!(e, "t.toml:18: udp_flows[0].colour: unknown key (known: name, from, to, start, stop, size, app, rate, on_time, off_time, periods, pareto_shape, backlog, file)");
    }

    /// Each app's record has its own keys and every default filled in, and
    /// reads back to the same flow.
    #[test]
    fn resolved_flow_records_its_app_and_reads_back() {
        let cases = [
            ("from = \"a\"\nto = \"b\"\napp = \"cbr\"\nrate = \"1Mbps\"\nstop = \"9s\"", r#"{"app":"cbr","from":"a","name":"udp0","rate":"1Mbps","size":1470,"start":"0s","stop":"2s","to":"b"}"#),
            (
                "name = \"v\"\nfrom = \"a\"\nto = \"b\"\napp = \"onoff\"\nrate = 250000\nperiods = \"pareto\"\npareto_shape = 2.5\non_time = \"200ms\"\noff_time = 0.3\nsize = \"1KiB\"\nstart = 0.5",
                r#"{"app":"onoff","from":"a","name":"v","off_time":"300ms","on_time":"200ms","pareto_shape":2.5,"periods":"pareto","rate":"250kbps","size":1024,"start":"500ms","stop":"2s","to":"b"}"#,
            ),
            ("from = \"a\"\nto = \"b\"\napp = \"onoff\"\nrate = 1000\nperiods = \"constant\"", r#"{"app":"onoff","from":"a","name":"udp0","off_time":"1s","on_time":"1s","periods":"constant","rate":"1kbps","size":1470,"start":"0s","stop":"2s","to":"b"}"#),
        ];
        for (lines, want) in cases {
            let s = with_flow(lines).unwrap();
            let j = s.to_json();
            assert_eq!(j["udp_flows"][0].to_string(), want);
            let back = Scenario::from_json_str(&j.to_string(), "back.json", &[]).unwrap();
            assert_eq!(back.udp_flows, s.udp_flows, "{lines}");
        }
    }

    /// The defaults the table states as a literal are what a flow without
    /// the key resolves to.
    #[test]
    fn stated_defaults_are_the_resolved_ones() {
        let onoff = with_flow("from = \"a\"\nto = \"b\"\napp = \"onoff\"\nrate = 1000").unwrap().to_json();
        let pareto = with_flow("from = \"a\"\nto = \"b\"\napp = \"onoff\"\nrate = 1000\nperiods = \"pareto\"").unwrap().to_json();
        let mut checked = 0;
        for k in udp_flow_keys() {
            let Some(literal) = k.default.strip_prefix('`').and_then(|d| d.split('`').next()).filter(|d| !d.contains('<')) else { continue };
            let resolved = [&onoff, &pareto].iter().find_map(|j| j["udp_flows"][0].get(k.name).cloned());
            match k.name {
                // A saturated sender's: its constant.
                "backlog" => assert_eq!(literal, DEFAULT_BACKLOG.to_string()),
                _ => assert_eq!(resolved.unwrap_or_else(|| panic!("{} not recorded", k.name)).to_string(), literal, "{}", k.name),
            }
            checked += 1;
        }
        // start, size, on_time, off_time, periods, pareto_shape, backlog.
        assert_eq!(checked, 7);
    }
}
