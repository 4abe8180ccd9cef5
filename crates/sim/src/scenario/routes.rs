//! `[[route_changes]]`: forwarding changes at a time in the run — a link's
//! interface at a node going down or up, a static route added or removed —
//! applied as typed `network::RouteChange` events. Each key is one entry of
//! [`route_keys`], tagged with the actions that have it (as `[links.loss]`
//! tags its keys with their model): the accepted keys of each action, the
//! reader, the resolved JSON and the reference page's table come from it.

use airtcp_core::Duration;
use serde_json::{Map, Value};

use super::keys::{Key, REQUIRED};
use super::names::local_iface;
use super::names::NodeIndex;
use super::units::format_duration;
use super::value::{Field, Table, R};
use super::{LinkSpec, NodeSpec};
use crate::network::{Prefix, RouteChange};

/// One scheduled change.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteChangeSpec {
    pub at: Duration,
    pub change: RouteChange,
}

/// What a change does, as `action` names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    Down,
    Up,
    Add,
    Remove,
}

/// Every action with its name, in the order messages list them.
const ACTIONS: [(Action, &str); 4] = [(Action::Down, "down"), (Action::Up, "up"), (Action::Add, "add"), (Action::Remove, "remove")];

impl Action {
    fn name(self) -> &'static str {
        ACTIONS.iter().find(|(a, _)| *a == self).expect("every action is listed").1
    }
}

/// A change being read (its keys fill `at`, `node`, `action`, then the
/// action's own keys, each checked against the ones before) or written.
pub struct Change<'c> {
    nodes: &'c [NodeSpec],
    /// The node names (only while reading).
    index: Option<&'c NodeIndex>,
    links: &'c [LinkSpec],
    /// The end of the run (only while reading).
    end: Duration,
    at: Duration,
    node: usize,
    action: Action,
    /// The node's interface on `link` (down, up) or `via` (add).
    iface: u32,
    prefix: Option<Prefix>,
}

/// A `[[route_changes]]` key and the actions that have it (empty: every action).
pub struct RouteKey<'c> {
    pub actions: &'static [Action],
    pub key: Key<Change<'c>>,
}

impl RouteKey<'_> {
    fn of(&self, action: Action) -> bool {
        self.actions.is_empty() || self.actions.contains(&action)
    }
}

/// The node's interface on the link named by `f`.
fn read_iface(c: &mut Change, f: &Field) -> R<()> {
    let s = f.str()?;
    let li = c.links.iter().position(|l| l.name == s).ok_or_else(|| f.err(format!("unknown link \"{s}\"")))?;
    c.iface = local_iface(c.links, c.node, li).ok_or_else(|| f.err(format!("link \"{s}\" does not attach to node \"{}\"", c.nodes[c.node].name)))?;
    Ok(())
}

/// The name of the link of the node's interface.
fn link_name(c: &Change) -> String {
    let n = c.node;
    c.links.iter().filter(|l| l.a == n || l.b == n).nth(c.iface as usize).map(|l| l.name.clone()).unwrap_or_default()
}

fn write_iface(c: &Change) -> Option<Value> {
    Some(Value::from(link_name(c)))
}

/// Every `[[route_changes]]` key, in the order they are read and the
/// unknown-key message and the reference page list them; the keys of every
/// action come first (`action` decides which others the table may hold).
pub fn route_keys<'c>() -> [RouteKey<'c>; 6] {
    const LINK_STATE: &[Action] = &[Action::Down, Action::Up];
    [
        RouteKey {
            actions: &[],
            key: Key {
                name: "at",
                ty: "duration",
                doc: "When the change is applied; before the end of the run.",
                default: REQUIRED,
                read: |c, f| {
                    let at = f.duration()?;
                    if at >= c.end {
                        return Err(f.err(format!("at {} is not before the end of the run ({})", format_duration(at), format_duration(c.end))));
                    }
                    c.at = at;
                    Ok(())
                },
                write: |c| Some(Value::from(format_duration(c.at))),
            },
        },
        RouteKey {
            actions: &[],
            key: Key {
                name: "node",
                ty: "node name",
                doc: "The node whose forwarding changes.",
                default: REQUIRED,
                read: |c, f| {
                    let name = f.str()?;
                    c.node = c.index.expect("reading").get(name).ok_or_else(|| f.err(format!("unknown node \"{name}\"")))?;
                    Ok(())
                },
                write: |c| Some(Value::from(c.nodes[c.node].name.as_str())),
            },
        },
        RouteKey {
            actions: &[],
            key: Key {
                name: "action",
                ty: "`\"down\"` | `\"up\"` | `\"add\"` | `\"remove\"`",
                doc: "Take the node's interface on `link` down or up (routes are recomputed around it), add a static route to `prefix` out of `via`, or remove the static route to `prefix`.",
                default: REQUIRED,
                read: |c, f| {
                    let s = f.str()?;
                    c.action = ACTIONS.iter().find(|(_, n)| *n == s).map(|(a, _)| *a).ok_or_else(|| {
                        let known: Vec<&str> = ACTIONS.iter().map(|(_, n)| *n).collect();
                        f.err(format!("unknown action \"{s}\" (known: {})", known.join(", ")))
                    })?;
                    Ok(())
                },
                write: |c| Some(Value::from(c.action.name())),
            },
        },
        RouteKey {
            actions: LINK_STATE,
            key: Key { name: "link", ty: "link name", doc: "The link (attached to `node`) whose interface goes down or up.", default: REQUIRED, read: read_iface, write: write_iface },
        },
        RouteKey {
            actions: &[Action::Add, Action::Remove],
            key: Key {
                name: "prefix",
                ty: "prefix",
                doc: "The static route's destination, `a.b.c.d/len` without host bits.",
                default: REQUIRED,
                read: |c, f| {
                    c.prefix = Some(Prefix::parse(f.str()?).map_err(|m| f.err(m))?);
                    Ok(())
                },
                write: |c| c.prefix.map(|p| Value::from(p.to_string())),
            },
        },
        RouteKey {
            actions: &[Action::Add],
            key: Key { name: "via", ty: "link name", doc: "The link (attached to `node`) the route sends `prefix` out of.", default: REQUIRED, read: read_iface, write: write_iface },
        },
    ]
}

/// Read `key` of table `t` into `c`: a key marked required fails when absent.
fn read_key<'c>(t: &Table, key: &Key<Change<'c>>, c: &mut Change<'c>) -> R<()> {
    match t.opt(key.name) {
        Some(f) => (key.read)(c, &f),
        None if key.default == REQUIRED => t.req(key.name).map(|_| ()),
        None => Ok(()),
    }
}

/// Every `[[route_changes]]` table: the keys of every action in the
/// table's order (so a bad `at` is reported before an unknown key), then
/// the keys the change's action accepts, then that action's own keys.
pub(super) fn route_changes(list: Vec<Table>, nodes: &[NodeSpec], index: &NodeIndex, links: &[LinkSpec], end: Duration) -> R<Vec<RouteChangeSpec>> {
    let keys = route_keys();
    let mut out = Vec::with_capacity(list.len());
    for t in &list {
        let mut c = Change { nodes, index: Some(index), links, end, at: Duration::ZERO, node: 0, action: Action::Down, iface: 0, prefix: None };
        for k in keys.iter().filter(|k| k.actions.is_empty()) {
            read_key(t, &k.key, &mut c)?;
        }
        let own: Vec<&RouteKey> = keys.iter().filter(|k| k.of(c.action)).collect();
        t.known(&own.iter().map(|k| k.key.name).collect::<Vec<_>>())?;
        for k in own.iter().filter(|k| !k.actions.is_empty()) {
            read_key(t, &k.key, &mut c)?;
        }
        let node = c.node as u32;
        let prefix = || c.prefix.expect("required for add and remove");
        let change = match c.action {
            Action::Down | Action::Up => RouteChange::IfaceState { node, iface: c.iface, up: c.action == Action::Up },
            Action::Add => RouteChange::Add { node, prefix: prefix(), iface: c.iface },
            Action::Remove => RouteChange::Remove { node, prefix: prefix() },
        };
        out.push(RouteChangeSpec { at: c.at, change });
    }
    Ok(out)
}

impl<'c> Change<'c> {
    /// A change to write back (or describe).
    fn of(r: &RouteChangeSpec, nodes: &'c [NodeSpec], links: &'c [LinkSpec]) -> Self {
        let (node, action, iface, prefix) = match r.change {
            RouteChange::IfaceState { node, iface, up } => (node, if up { Action::Up } else { Action::Down }, iface, None),
            RouteChange::Add { node, prefix, iface } => (node, Action::Add, iface, Some(prefix)),
            RouteChange::Remove { node, prefix } => (node, Action::Remove, 0, Some(prefix)),
        };
        Change { nodes, index: None, links, end: Duration::ZERO, at: r.at, node: node as usize, action, iface, prefix }
    }
}

/// The change as scenario JSON (it loads back to the same change).
pub fn route_change_json(r: &RouteChangeSpec, nodes: &[NodeSpec], links: &[LinkSpec]) -> Value {
    let c = Change::of(r, nodes, links);
    let mut m = Map::new();
    for k in route_keys().iter().filter(|k| k.of(c.action)) {
        if let Some(v) = (k.key.write)(&c) {
            m.insert(k.key.name.to_string(), v);
        }
    }
    Value::Object(m)
}

/// One line for the event log: "node down link" / "node add prefix via link" / "node remove prefix".
pub fn route_change_text(r: &RouteChangeSpec, nodes: &[NodeSpec], links: &[LinkSpec]) -> String {
    let c = Change::of(r, nodes, links);
    let node = &nodes[c.node].name;
    let link = link_name(&c);
    let prefix = c.prefix.map(|p| p.to_string()).unwrap_or_default();
    match c.action {
        Action::Add => format!("{node} add {prefix} via {link}"),
        Action::Remove => format!("{node} remove {prefix}"),
        a => format!("{node} {} {link}", a.name()),
    }
}

/// The reference page's table of `[[route_changes]]`: an action's own keys say which actions.
pub(super) fn reference_table() -> String {
    super::key_rows::table(route_keys().into_iter().map(|k| {
        let doc = match k.actions {
            [] => k.key.doc.to_string(),
            some => format!("{}: {}", some.iter().map(|a| format!("`{}`", a.name())).collect::<Vec<_>>().join(", "), k.key.doc),
        };
        (format!("`{}`", k.key.name), k.key.ty, k.key.default, doc)
    }))
}

#[cfg(test)]
mod tests {
    use super::super::keys::listed_values;
    use super::*;

    /// The `action` type column lists every action, each of which reads.
    #[test]
    fn the_action_column_lists_every_action() {
        let keys = route_keys();
        let listed: Vec<&str> = listed_values(keys[2].key.ty).into_iter().map(|v| v.trim_matches('"')).collect();
        assert_eq!(listed, ACTIONS.iter().map(|(_, n)| *n).collect::<Vec<_>>());
        // Each action has a key of its own (what it changes).
        for (a, name) in ACTIONS {
            assert!(keys.iter().any(|k| k.actions.contains(&a)), "{name}");
        }
    }
}
