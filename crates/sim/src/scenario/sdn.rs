//! `[sdn]`: seed 000's SDN control plane — a controller node, the
//! switches and access points that run an OpenFlow-style datapath, one
//! control channel per datapath (`[[sdn.channels]]`: latency each way,
//! controller processing time), and the controller's applications. Each
//! key is one entry of [`sdn_keys`] or [`channel_keys`]: the accepted keys,
//! the reader, the resolved scenario's `sdn` record and the reference
//! page's tables come from them.
//!
//! The keys are read in the tables' order ([`Section::read_in_order`]),
//! because each is checked against the ones before it: the switches
//! against the controller, the channels against the switches.

use airtcp_core::Duration;
use serde_json::{json, Value};

use super::doc::{Doc, KeyPath};
use super::keys::{key_name, Codec, Dur, Key, Section, REQUIRED};
use super::names::NodeIndex;
use super::value::{Field, Table, R};
use super::NodeSpec;

/// The controller's applications (seed 000's modules and Floodlight's
/// forwarding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SdnApps {
    pub forwarding: bool,
    pub mobility: bool,
    pub statistics: bool,
    pub zwa: bool,
}

/// The applications by name, in the order the controller runs them
/// (`network::sdn`), which is the order the resolved scenario lists them.
const APPS: [&str; 4] = ["mobility", "statistics", "zwa", "forwarding"];

impl SdnApps {
    fn slot(&mut self, name: &str) -> Option<&mut bool> {
        match name {
            "mobility" => Some(&mut self.mobility),
            "statistics" => Some(&mut self.statistics),
            "zwa" => Some(&mut self.zwa),
            "forwarding" => Some(&mut self.forwarding),
            _ => None,
        }
    }

    fn names(mut self) -> Vec<&'static str> {
        APPS.into_iter().filter(|a| *self.slot(a).expect("an application")).collect()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SdnSwitch {
    pub node: usize,
    pub latency: Duration,
    pub processing: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SdnSpec {
    pub controller: usize,
    pub apps: SdnApps,
    /// Datapaths in declaration order (dpid = index + 1).
    pub switches: Vec<SdnSwitch>,
    pub zwa_replay_rto: Duration,
}

/// An `[sdn]` table being read or written: the spec, with the nodes its
/// names resolve against.
#[derive(Clone)]
pub struct Sdn<'a> {
    nodes: &'a [NodeSpec],
    /// Node names to indices (only while reading).
    index: Option<&'a NodeIndex>,
    spec: SdnSpec,
    /// The switch whose `[[sdn.channels]]` entry is being read or written.
    channel: usize,
    /// Which switches have a control channel so far (reading).
    has_channel: Vec<bool>,
    /// Where `switches` is: a switch without a channel is reported there.
    switches_at: KeyPath,
}

impl<'a> Sdn<'a> {
    fn node(&self, f: &Field) -> R<usize> {
        let s = f.str()?;
        self.index.expect("keys are read with the node index").get(s).ok_or_else(|| f.err(format!("unknown node \"{s}\"")))
    }

    fn name(&self, node: usize) -> Value {
        json!(self.nodes[node].name)
    }

    /// Every switch has its control channel (after `channels`, whether
    /// given or not, and before anything later is read).
    fn check_channels(&self, doc: &Doc) -> R<()> {
        match self.has_channel.iter().position(|&c| !c) {
            None => Ok(()),
            Some(k) => {
                let name = &self.nodes[self.spec.switches[k].node].name;
                Err(doc.err(&self.switches_at.index(k), format!("switch \"{name}\" has no control channel (add [[sdn.channels]] switch = \"{name}\")")))
            }
        }
    }
}

/// Every `[sdn]` key.
pub fn sdn_keys<'a>() -> [Key<Sdn<'a>>; 5] {
    [
        Key {
            name: "controller",
            ty: "node name",
            doc: "The node that runs the controller. It needs no links: the control channels are out of band.",
            default: REQUIRED,
            read: |s, f| {
                s.spec.controller = s.node(f)?;
                Ok(())
            },
            write: |s| Some(s.name(s.spec.controller)),
        },
        Key {
            name: "applications",
            ty: "list of `\"mobility\"` | `\"statistics\"` | `\"zwa\"` | `\"forwarding\"`",
            doc: "The controller's applications (seed 000's mobility manager, statistics and zero-window-ACK modules, and Floodlight's reactive forwarding). They run in the order above whatever the list's order; `zwa` and `statistics` need `mobility`.",
            default: REQUIRED,
            read: |s, f| {
                for i in 0..f.list()?.len() {
                    let item = f.item(i);
                    let name = item.str()?;
                    let Some(slot) = s.spec.apps.slot(name) else {
                        let mut known = APPS;
                        known.sort_unstable();
                        return Err(item.err(format!("unknown application \"{name}\" (known: {})", known.join(", "))));
                    };
                    if *slot {
                        return Err(item.err("application listed twice"));
                    }
                    *slot = true;
                }
                let a = s.spec.apps;
                if (a.zwa || a.statistics) && !a.mobility {
                    return Err(f.err("zwa and statistics need the mobility application"));
                }
                Ok(())
            },
            write: |s| Some(json!(s.spec.apps.names())),
        },
        Key {
            name: "switches",
            ty: "list of node names",
            doc: "The nodes that forward by flow table (switches and access points), not the controller. A datapath's id is its position + 1; its port numbers are the node's interface numbers + 1 (links in scenario order, then its radio).",
            default: REQUIRED,
            read: |s, f| {
                s.switches_at = f.path.clone();
                for i in 0..f.list()?.len() {
                    let item = f.item(i);
                    let n = s.node(&item)?;
                    if n == s.spec.controller {
                        return Err(item.err(format!("the controller \"{}\" cannot be a switch", s.nodes[n].name)));
                    }
                    if s.spec.switches.iter().any(|w| w.node == n) {
                        return Err(item.err(format!("switch \"{}\" listed twice", s.nodes[n].name)));
                    }
                    s.spec.switches.push(SdnSwitch { node: n, latency: Duration::ZERO, processing: Duration::ZERO });
                    s.has_channel.push(false);
                }
                Ok(())
            },
            write: |s| Some(s.spec.switches.iter().map(|w| s.name(w.node)).collect()),
        },
        Key {
            name: "channels",
            ty: "list of `[[sdn.channels]]` tables",
            doc: "Each switch's control channel, exactly one per switch (the keys of `[[sdn.channels]]` below).",
            default: "one per switch",
            read: |s, f| {
                let keys = channel_keys();
                let channel = Section { path: "sdn.channels", keys: &keys };
                for i in 0..f.list()?.len() {
                    channel.read_in_order(&f.item(i).table()?, s)?;
                }
                s.check_channels(f.doc)
            },
            write: |s| {
                let keys = channel_keys();
                let channel = Section { path: "sdn.channels", keys: &keys };
                let mut at = s.clone();
                let list = (0..s.spec.switches.len())
                    .map(|k| {
                        at.channel = k;
                        channel.write(&at)
                    })
                    .collect();
                Some(Value::Array(list))
            },
        },
        Key {
            name: "zwa_replay_rto",
            ty: "duration > 0",
            doc: "The first retransmission timeout of the zero-window-ACK module's replay.",
            default: "`\"200ms\"`",
            read: |s, f| {
                s.check_channels(f.doc)?;
                let d = f.duration()?;
                if d == Duration::ZERO {
                    return Err(f.err(format!("{} must be positive", key_name(f))));
                }
                s.spec.zwa_replay_rto = d;
                Ok(())
            },
            write: |s| Some(Dur::write(&s.spec.zwa_replay_rto)),
        },
    ]
}

/// Every `[[sdn.channels]]` key (of the switch `Sdn::channel`).
pub fn channel_keys<'a>() -> [Key<Sdn<'a>>; 3] {
    [
        Key {
            name: "switch",
            ty: "node name",
            doc: "The switch (one of `sdn.switches`) this channel joins to the controller.",
            default: REQUIRED,
            read: |s, f| {
                let n = s.node(f)?;
                let Some(k) = s.spec.switches.iter().position(|w| w.node == n) else {
                    return Err(f.err(format!("\"{}\" is not in sdn.switches", s.nodes[n].name)));
                };
                if s.has_channel[k] {
                    return Err(f.err(format!("second control channel for switch \"{}\"", s.nodes[n].name)));
                }
                s.has_channel[k] = true;
                s.channel = k;
                Ok(())
            },
            write: |s| Some(s.name(s.spec.switches[s.channel].node)),
        },
        Key {
            name: "latency",
            ty: Dur::TY,
            doc: "One way, each direction.",
            default: "`\"0s\"`",
            read: |s, f| {
                s.spec.switches[s.channel].latency = f.duration()?;
                Ok(())
            },
            write: |s| Some(Dur::write(&s.spec.switches[s.channel].latency)),
        },
        Key {
            name: "processing",
            ty: Dur::TY,
            doc: "The controller's time per message it receives: a notice sent at T0 is handled at T0 + latency + processing.",
            default: "`\"0s\"`",
            read: |s, f| {
                s.spec.switches[s.channel].processing = f.duration()?;
                Ok(())
            },
            write: |s| Some(Dur::write(&s.spec.switches[s.channel].processing)),
        },
    ]
}

/// The spec before any key is read: what an absent optional key leaves.
fn sdn_default() -> SdnSpec {
    SdnSpec { controller: 0, apps: SdnApps::default(), switches: Vec::new(), zwa_replay_rto: Duration::from_millis(200) }
}

pub(super) fn sdn(root: &Table, nodes: &[NodeSpec], index: &NodeIndex) -> R<Option<SdnSpec>> {
    let Some(f) = root.opt("sdn") else { return Ok(None) };
    let t = f.table()?;
    let mut s = Sdn { nodes, index: Some(index), spec: sdn_default(), channel: 0, has_channel: Vec::new(), switches_at: KeyPath::root() };
    let keys = sdn_keys();
    Section { path: "sdn", keys: &keys }.read_in_order(&t, &mut s)?;
    s.check_channels(t.doc)?;
    Ok(Some(s.spec))
}

/// The control plane as the resolved scenario's `sdn` table (it loads back
/// to the same spec).
pub fn sdn_json(spec: &SdnSpec, nodes: &[NodeSpec]) -> Value {
    let s = Sdn { nodes, index: None, spec: spec.clone(), channel: 0, has_channel: Vec::new(), switches_at: KeyPath::root() };
    let keys = sdn_keys();
    Section { path: "sdn", keys: &keys }.write(&s)
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn sdn_zwa(over: &[(&str, &str)]) -> Scenario {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/sdn-zwa.toml");
        let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Scenario::from_path(&path, &over).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A controller, two switches and `sdn` after them.
    fn two_switches(sdn: &str) -> Result<Scenario, String> {
        let text = format!("[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"c0\"\n[[nodes]]\nname = \"s1\"\n[[nodes]]\nname = \"s2\"\n[[links]]\na = \"s1\"\nb = \"s2\"\nrate = \"1Mbps\"\n{sdn}");
        Scenario::from_toml_str(&text, "t.toml", &[]).map_err(|e| e.to_string())
    }

    #[test]
    fn resolved_sdn_loads_back_to_the_same_control_plane() {
        for over in [
            vec![],
            vec![("sdn.applications", r#"["forwarding", "mobility"]"#), ("sdn.zwa_replay_rto", "\"350ms\""), ("sdn.channels.2.processing", "\"0s\"")],
        ] {
            let s = sdn_zwa(&over);
            let json = s.to_json();
            let back = Scenario::from_json_str(&json.to_string(), "back.json", &[]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back.sdn, s.sdn, "{over:?}");
            assert_eq!(back.to_json(), json);
        }
    }

    #[test]
    fn resolved_sdn_fills_every_default() {
        let s = two_switches("[sdn]\ncontroller = \"c0\"\napplications = [\"zwa\", \"forwarding\", \"mobility\"]\nswitches = [\"s2\", \"s1\"]\n[[sdn.channels]]\nswitch = \"s1\"\n[[sdn.channels]]\nswitch = \"s2\"\nlatency = \"2ms\"\n").unwrap();
        assert_eq!(
            s.to_json()["sdn"],
            serde_json::json!({
                "controller": "c0",
                // In the order the controller runs them.
                "applications": ["mobility", "zwa", "forwarding"],
                "switches": ["s2", "s1"],
                // In the switches' order (datapath ids 1, 2).
                "channels": [{ "switch": "s2", "latency": "2ms", "processing": "0s" }, { "switch": "s1", "latency": "0s", "processing": "0s" }],
                "zwa_replay_rto": "200ms",
            })
        );
    }

    /// Keys are checked in the table's order: a switch without a channel
    /// (found after `channels`) before a bad `zwa_replay_rto`, although the
    /// document lists that key first.
    #[test]
    fn a_switch_without_a_channel_is_reported_before_a_later_key() {
        let e = two_switches("[sdn]\nzwa_replay_rto = \"0s\"\ncontroller = \"c0\"\napplications = [\"forwarding\"]\nswitches = [\"s1\", \"s2\"]\n[[sdn.channels]]\nswitch = \"s1\"\n").unwrap_err();
        assert_eq!(e, "t.toml:17: sdn.switches[1]: switch \"s2\" has no control channel (add [[sdn.channels]] switch = \"s2\")");
        let e = two_switches("[sdn]\nzwa_replay_rto = \"0s\"\ncontroller = \"c0\"\napplications = [\"forwarding\"]\nswitches = []\n").unwrap_err();
        assert_eq!(e, "t.toml:14: sdn.zwa_replay_rto: zwa_replay_rto must be positive");
        let e = two_switches("[sdn]\nswitches = [\"c0\"]\napplications = [\"zwa\"]\ncontroller = \"c0\"\n").unwrap_err();
        assert_eq!(e, "t.toml:15: sdn.applications: zwa and statistics need the mobility application");
    }

    #[test]
    fn every_listed_application_reads() {
        let keys = super::sdn_keys();
        let listed = crate::scenario::keys::listed_values(keys[1].ty);
        assert_eq!(listed.len(), 4);
        for app in listed {
            // zwa and statistics need mobility beside them.
            let with = if app == "\"mobility\"" { String::new() } else { ", \"mobility\"".into() };
            let s = two_switches(&format!("[sdn]\ncontroller = \"c0\"\napplications = [{app}{with}]\nswitches = []\n")).unwrap_or_else(|e| panic!("{app}: {e}"));
            let want: serde_json::Value = serde_json::from_str(app).unwrap();
            assert!(s.to_json()["sdn"]["applications"].as_array().unwrap().contains(&want), "{app}");
        }
    }
}
