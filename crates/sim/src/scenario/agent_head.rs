//! The keys every `[[agents]]` entry has whatever its kind (`node`, `kind`,
//! `name`), declared once: the reader, the resolved record's writer and the
//! reference page's table come from [`head_keys`]. The kind's own keys are
//! in its table (`agents.rs`, `mobileip.rs`).

use airtcp_agents::AgentSpec;
use serde_json::{json, Value};

use super::agent_decl::AgentDecl;
use super::keys::{Key, REQUIRED};
use super::names::NodeIndex;
use super::value::R;
use super::NodeSpec;

/// Every agent kind, in the order the "unknown agent kind" message and the
/// reference page list them; `KINDS_TEXT` and `KINDS_TY` are the same list
/// as message text and as the page's type column.
macro_rules! agent_kinds {
    ($first:literal $(, $k:literal)*) => {
        pub(super) const KINDS: &[&str] = &[$first $(, $k)*];
        const KINDS_TEXT: &str = concat!($first $(, ", ", $k)*);
        const KINDS_TY: &str = concat!("`\"", $first, "\"`" $(, " | `\"", $k, "\"`")*);
    };
}
agent_kinds!("peg", "snoop", "itcp", "home_agent", "foreign_agent", "mobile_node", "correspondent", "mtcp");

/// The kind an agent was declared as (the name its `kind` key spells).
pub(super) fn kind_of(spec: &AgentSpec) -> &'static str {
    match spec {
        AgentSpec::Peg(_) => "peg",
        AgentSpec::Snoop(_) => "snoop",
        AgentSpec::Itcp(_) => "itcp",
        AgentSpec::HomeAgent(_) => "home_agent",
        AgentSpec::ForeignAgent(_) => "foreign_agent",
        AgentSpec::MobileNode(_) => "mobile_node",
        AgentSpec::Correspondent(_) => "correspondent",
        AgentSpec::Mtcp(_) => "mtcp",
    }
}

/// The common keys of one agent being read (against the nodes and the
/// agents declared before it) or written.
pub(super) struct Head<'a> {
    pub(super) nodes: &'a [NodeSpec],
    /// Node names, while reading.
    pub(super) index: Option<&'a NodeIndex>,
    /// The agents before this one (for the duplicate-name check).
    pub(super) earlier: &'a [AgentDecl],
    pub(super) node: usize,
    pub(super) kind: &'static str,
    /// As written; `None` takes the default name.
    pub(super) name: Option<String>,
}

impl<'a> Head<'a> {
    pub(super) fn reading(nodes: &'a [NodeSpec], index: &'a NodeIndex, earlier: &'a [AgentDecl]) -> Self {
        Head { nodes, index: Some(index), earlier, node: 0, kind: KINDS[0], name: None }
    }

    pub(super) fn of(a: &'a AgentDecl, nodes: &'a [NodeSpec]) -> Self {
        Head { nodes, index: None, earlier: &[], node: a.node, kind: kind_of(&a.spec), name: Some(a.name.clone()) }
    }

    /// The agent's name: as written, or `<node>.<kind><i>` for the `i`-th
    /// agent of the scenario.
    pub(super) fn name_or_default(&self, i: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("{}.{}{i}", self.nodes[self.node].name, self.kind))
    }
}

/// `node` and `kind` are read before the kind's own keys (which depend on
/// both), `name` after them, so a bad kind key is reported before a bad name.
pub(super) fn head_keys<'a>() -> [Key<Head<'a>>; 3] {
    [
        Key {
            name: "node",
            ty: "node name",
            doc: "The node the agent sits in.",
            read: |h, f| {
                let s = f.str()?;
                h.node = h.index.expect("read with the nodes").get(s).ok_or_else(|| f.err(format!("unknown node \"{s}\"")))?;
                Ok(())
            },
            write: |h| Some(json!(h.nodes[h.node].name)),
            default: REQUIRED,
        },
        Key {
            name: "kind",
            ty: KINDS_TY,
            doc: "What the agent is; its own keys are in the table of that kind below.",
            read: |h, f| {
                let s = f.str()?;
                h.kind = KINDS.iter().copied().find(|k| *k == s).ok_or_else(|| f.err(format!("unknown agent kind \"{s}\" (known: {KINDS_TEXT})")))?;
                Ok(())
            },
            write: |h| Some(json!(h.kind)),
            default: REQUIRED,
        },
        Key {
            name: "name",
            ty: "letters, digits, `_`, `-`, `.`",
            doc: "Unique among the agents; names the agent in counters, events and its random stream.",
            read: |h, f| {
                let n = super::names::check_name(f, "agent")?;
                if let Some(j) = h.earlier.iter().position(|a| a.name == n) {
                    return Err(f.err(format!("duplicate agent name \"{n}\" (also agents[{j}])")));
                }
                h.name = Some(n);
                Ok(())
            },
            write: |h| h.name.as_ref().map(|n| json!(n)),
            default: "`\"<node>.<kind><i>\"` (i: the agent's index)",
        },
    ]
}

/// Read one of the common keys (required ones fail when absent).
pub(super) fn read_head_key<'a>(t: &super::value::Table, key: &Key<Head<'a>>, h: &mut Head<'a>) -> R<()> {
    match t.opt(key.name) {
        Some(f) => (key.read)(h, &f),
        None if key.default == REQUIRED => t.req(key.name).map(|_| ()),
        None => Ok(()),
    }
}

/// The common keys of `a` for its resolved record.
pub(super) fn head_json(a: &AgentDecl, nodes: &[NodeSpec]) -> serde_json::Map<String, Value> {
    let h = Head::of(a, nodes);
    let mut m = serde_json::Map::new();
    for k in head_keys() {
        if let Some(v) = (k.write)(&h) {
            m.insert(k.name.into(), v);
        }
    }
    m
}
