//! Mobility files: ns-2 `setdest` scenarios and `t,x,y` CSV traces.
//!
//! Both parsers stop at the first problem with an error `line N: ...`
//! (1-based) naming the offending field, and never panic.

use std::collections::BTreeMap;

use airtcp_core::Instant;

use super::{secs_to_instant, Mobility, Pos};

/// One `setdest` command of one node.
#[derive(Clone, Copy, Debug)]
struct SetDest {
    t: Instant,
    x: f64,
    y: f64,
    speed: f64,
}

/// What the file says about one node.
#[derive(Clone, Debug, Default)]
struct NodeScript {
    x: f64,
    y: f64,
    z: f64,
    cmds: Vec<SetDest>,
}

/// Parse an ns-2 movement scenario as CMU's `setdest` tool writes it
/// (ns-2 `indep-utils/cmu-scen-gen/setdest`):
///
/// ```text
/// $node_(0) set X_ 83.364600000000
/// $node_(0) set Y_ 239.096700000000
/// $node_(0) set Z_ 0.000000000000
/// $god_ set-dist 0 1 2
/// $ns_ at 2.000000000000 "$node_(0) setdest 369.463244915743 170.519203111152 3.371785899154"
/// $ns_ at 2.000000000000 "$god_ set-dist 0 1 1"
/// ```
///
/// Semantics are ns-2's `MobileNode::set_destination`: `set X_/Y_/Z_` give
/// the initial position (default 0, whatever the line order, as Tcl runs them
/// before the scheduler starts); `$ns_ at T "... setdest X Y S"` makes the
/// node leave, at T, from wherever it is then (possibly mid-way to an earlier
/// destination) straight toward (X, Y) at S m/s, and stop there. Speed 0
/// stops the node where it is. Commands are applied in time order, ties in
/// file order (the ns-2 scheduler's order). Each node becomes a
/// [`Mobility::Trace`] of the waypoints where its motion changes, starting
/// with its initial position at time 0; nodes are returned by index.
///
/// Ignored: blank lines, `#` comment lines (setdest's header and statistics
/// footer), and `$god_` lines, direct or scheduled (GOD's shortest-path
/// hints). Anything else is an error. Times are seconds, finite and
/// non-negative; coordinates finite; speeds finite and non-negative.
pub fn parse_setdest(text: &str) -> Result<Vec<(u32, Mobility)>, String> {
    let mut nodes: BTreeMap<u32, NodeScript> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || strip_word(line, "$god_").is_some() {
            continue;
        }
        if let Some(rest) = strip_word(line, "$ns_") {
            let rest = strip_word(rest, "at")
                .ok_or_else(|| format!("line {n}: expected `at` after `$ns_`"))?;
            let (t_tok, rest) = split_word(rest);
            let t = parse_f64(t_tok, n, "time")?;
            let t = secs_to_instant(t).ok_or_else(|| {
                format!(
                    "line {n}: time {t_tok} must be a non-negative number of seconds below 2^64 ns"
                )
            })?;
            let inner = rest
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .ok_or_else(|| format!("line {n}: the command scheduled at {t_tok} must be one double-quoted string"))?
                .trim();
            if strip_word(inner, "$god_").is_some() {
                continue;
            }
            let (node_tok, rest) = split_word(inner);
            let idx = parse_node(node_tok, n)?;
            let mut it = rest.split_whitespace();
            match it.next() {
                Some("setdest") => {}
                Some(other) => {
                    return Err(format!(
                        "line {n}: unsupported scheduled node command `{other}` (only setdest)"
                    ))
                }
                None => return Err(format!("line {n}: missing command after {node_tok}")),
            }
            let x = parse_finite(it.next(), n, "setdest X")?;
            let y = parse_finite(it.next(), n, "setdest Y")?;
            let speed = parse_finite(it.next(), n, "setdest speed")?;
            if speed < 0.0 {
                return Err(format!("line {n}: setdest speed {speed} is negative"));
            }
            if let Some(extra) = it.next() {
                return Err(format!(
                    "line {n}: unexpected `{extra}` after the setdest speed"
                ));
            }
            nodes
                .entry(idx)
                .or_default()
                .cmds
                .push(SetDest { t, x, y, speed });
        } else if line.starts_with("$node_(") {
            let (node_tok, rest) = split_word(line);
            let idx = parse_node(node_tok, n)?;
            let mut it = rest.split_whitespace();
            match it.next() {
                Some("set") => {}
                Some(other) => {
                    return Err(format!(
                        "line {n}: unsupported node command `{other}` (only `set X_|Y_|Z_`)"
                    ))
                }
                None => return Err(format!("line {n}: missing command after {node_tok}")),
            }
            let var = it
                .next()
                .ok_or_else(|| format!("line {n}: missing variable after `set`"))?;
            let field = match var {
                "X_" => "X_",
                "Y_" => "Y_",
                "Z_" => "Z_",
                other => {
                    return Err(format!(
                        "line {n}: unsupported variable `{other}` (only X_, Y_, Z_)"
                    ))
                }
            };
            let v = parse_finite(it.next(), n, field)?;
            if let Some(extra) = it.next() {
                return Err(format!(
                    "line {n}: unexpected `{extra}` after the {field} value"
                ));
            }
            let node = nodes.entry(idx).or_default();
            match field {
                "X_" => node.x = v,
                "Y_" => node.y = v,
                _ => node.z = v,
            }
        } else {
            let (tok, _) = split_word(line);
            return Err(format!("line {n}: unrecognised command `{tok}` (expected `$node_(i) set`, `$ns_ at` or `$god_`)"));
        }
    }
    Ok(nodes
        .into_iter()
        .map(|(idx, script)| (idx, Mobility::Trace(compile(script))))
        .collect())
}

/// Turn a node's initial position and setdest commands into waypoints.
fn compile(mut s: NodeScript) -> Vec<(Instant, Pos)> {
    // Stable: equal times keep file order.
    s.cmds.sort_by_key(|c| c.t);
    let mut w: Vec<(Instant, Pos)> = Vec::with_capacity(2 * s.cmds.len() + 1);
    w.push((
        Instant::ZERO,
        Pos {
            x: s.x,
            y: s.y,
            z: s.z,
        },
    ));
    for c in &s.cmds {
        // Where the node is at c.t. The list ends either with the node at
        // rest (last time <= c.t) or with an arrival still ahead (> c.t).
        let len = w.len();
        let (tl, pl) = w[len - 1];
        let here = if tl > c.t && len >= 2 {
            // Cut the trip short: replace the future arrival by the point
            // reached at c.t.
            let (tp, pp) = w[len - 2];
            let f = (c.t.0 - tp.0) as f64 / (tl.0 - tp.0) as f64;
            let p = pp.lerp(&pl, f);
            w.pop();
            if tp < c.t {
                w.push((c.t, p));
            }
            p
        } else {
            if tl < c.t {
                // At rest until c.t.
                w.push((c.t, pl));
            }
            pl
        };
        let dest = Pos {
            x: c.x,
            y: c.y,
            z: here.z,
        };
        let d = here.dist(&dest);
        if c.speed > 0.0 && d > 0.0 {
            // At least 1 ns, so that waypoint times strictly increase.
            let ns = (d / c.speed * 1e9).round();
            let ns = if ns >= u64::MAX as f64 {
                u64::MAX
            } else {
                (ns as u64).max(1)
            };
            w.push((Instant(c.t.0.saturating_add(ns)), dest));
        }
    }
    w
}

/// Parse a `t,x,y` trace: one waypoint per line, `t` in seconds (finite,
/// non-negative, strictly increasing), `x` and `y` in metres (finite),
/// `z` = 0. The first non-blank line may be a header (recognised by a
/// first field that is not a number). Blank lines and `#` comment lines are
/// skipped; fields may carry spaces around them. Returns a
/// [`Mobility::Trace`] with the same semantics as [`Mobility::Waypoints`].
pub fn parse_csv(text: &str) -> Result<Mobility, String> {
    let mut w: Vec<(Instant, Pos)> = Vec::new();
    let mut seen_content = false;
    let mut lines = 0;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        lines = n;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first_content = !seen_content;
        seen_content = true;
        let mut fields = line.split(',').map(str::trim);
        let t_tok = fields.next().unwrap_or("");
        if first_content && t_tok.parse::<f64>().is_err() {
            continue; // header
        }
        let t = parse_finite(Some(t_tok), n, "t")?;
        let x = parse_finite(fields.next(), n, "x")?;
        let y = parse_finite(fields.next(), n, "y")?;
        if fields.next().is_some() {
            return Err(format!("line {n}: expected 3 fields t,x,y, found more"));
        }
        let t_ns = secs_to_instant(t).ok_or_else(|| {
            format!("line {n}: t = {t_tok} must be a non-negative number of seconds below 2^64 ns")
        })?;
        if let Some(&(prev, _)) = w.last() {
            if t_ns <= prev {
                return Err(format!(
                    "line {n}: t = {t_tok} is not after the previous time ({} s)",
                    prev.as_secs_f64()
                ));
            }
        }
        w.push((t_ns, Pos { x, y, z: 0.0 }));
    }
    if w.is_empty() {
        return Err(format!(
            "line {}: no waypoints (expected rows t,x,y)",
            lines.max(1)
        ));
    }
    Ok(Mobility::Trace(w))
}

/// `s` without the leading word `w`, if `s` starts with that whole word.
fn strip_word<'a>(s: &'a str, w: &str) -> Option<&'a str> {
    let rest = s.strip_prefix(w)?;
    if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        Some(rest.trim_start())
    } else {
        None
    }
}

/// The first whitespace-delimited word of `s` and the rest, trimmed.
fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim_start()),
        None => (s, ""),
    }
}

/// `$node_(7)` → 7.
fn parse_node(tok: &str, n: usize) -> Result<u32, String> {
    tok.strip_prefix("$node_(")
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|d| d.parse::<u32>().ok())
        .ok_or_else(|| format!("line {n}: bad node reference `{tok}` (expected $node_(<index>))"))
}

fn parse_f64(tok: &str, n: usize, field: &str) -> Result<f64, String> {
    if tok.is_empty() {
        return Err(format!("line {n}: missing {field}"));
    }
    tok.parse::<f64>()
        .map_err(|_| format!("line {n}: {field} `{tok}` is not a number"))
}

fn parse_finite(tok: Option<&str>, n: usize, field: &str) -> Result<f64, String> {
    let tok = tok.ok_or_else(|| format!("line {n}: missing {field}"))?;
    let v = parse_f64(tok, n, field)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("line {n}: {field} `{tok}` is not a finite number"))
    }
}
