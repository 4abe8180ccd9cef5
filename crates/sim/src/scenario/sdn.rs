//! `[sdn]`: seed 000's SDN control plane — a controller node, the
//! switches and access points that run an OpenFlow-style datapath, one
//! control channel per datapath (latency each way, controller processing
//! time), and the controller's applications.
//!
//! ```toml
//! [sdn]
//! controller = "ctl"            # a node (it needs no links: the control
//!                               # channels are out of band)
//! applications = ["mobility", "statistics", "zwa", "forwarding"]
//!                               # any of forwarding, mobility, statistics,
//!                               # zwa; they run in that fixed order
//!                               # (mobility, statistics, zwa, forwarding);
//!                               # zwa and statistics need mobility
//! switches = ["s1", "s2", "ap1"]  # nodes forwarding by flow table; dpid =
//!                               # position + 1; port = the node's
//!                               # interface number + 1 (links in scenario
//!                               # order, then its radio)
//! zwa_replay_rto = "200ms"      # first RTO of the ZWA replay (default 200ms)
//!
//! [[sdn.channels]]              # one per switch, required
//! switch = "s1"
//! latency = "2ms"               # one way, each direction (default 0)
//! processing = "1ms"            # controller time per message it receives
//!                               # (default 0); a notice sent at T0 is
//!                               # handled at T0 + latency + processing
//! ```

use airtcp_core::Duration;

use super::value::{Table, R};
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

pub const APP_NAMES: &str = "forwarding, mobility, statistics, zwa";

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

pub(super) fn sdn(root: &Table, nodes: &[NodeSpec], index: &super::names::NodeIndex) -> R<Option<SdnSpec>> {
    let Some(f) = root.opt("sdn") else { return Ok(None) };
    let t = f.table()?;
    t.known(&["controller", "applications", "switches", "channels", "zwa_replay_rto"])?;
    let node = |f: &super::value::Field| -> R<usize> {
        let s = f.str()?;
        index.get(s).ok_or_else(|| f.err(format!("unknown node \"{s}\"")))
    };
    let controller = node(&t.req("controller")?)?;
    let mut apps = SdnApps::default();
    let af = t.req("applications")?;
    for i in 0..af.list()?.len() {
        let item = af.item(i);
        let slot = match item.str()? {
            "forwarding" => &mut apps.forwarding,
            "mobility" => &mut apps.mobility,
            "statistics" => &mut apps.statistics,
            "zwa" => &mut apps.zwa,
            other => return Err(item.err(format!("unknown application \"{other}\" (known: {APP_NAMES})"))),
        };
        if *slot {
            return Err(item.err("application listed twice"));
        }
        *slot = true;
    }
    if (apps.zwa || apps.statistics) && !apps.mobility {
        return Err(af.err("zwa and statistics need the mobility application"));
    }
    let sf = t.req("switches")?;
    let mut sw_nodes: Vec<usize> = Vec::new();
    for i in 0..sf.list()?.len() {
        let item = sf.item(i);
        let n = node(&item)?;
        if n == controller {
            return Err(item.err(format!("the controller \"{}\" cannot be a switch", nodes[n].name)));
        }
        if sw_nodes.contains(&n) {
            return Err(item.err(format!("switch \"{}\" listed twice", nodes[n].name)));
        }
        sw_nodes.push(n);
    }
    let mut chans: Vec<Option<(Duration, Duration)>> = vec![None; sw_nodes.len()];
    if let Some(cf) = t.opt("channels") {
        for i in 0..cf.list()?.len() {
            let ct = cf.item(i).table()?;
            ct.known(&["switch", "latency", "processing"])?;
            let swf = ct.req("switch")?;
            let n = node(&swf)?;
            let Some(k) = sw_nodes.iter().position(|&s| s == n) else {
                return Err(swf.err(format!("\"{}\" is not in sdn.switches", nodes[n].name)));
            };
            if chans[k].is_some() {
                return Err(swf.err(format!("second control channel for switch \"{}\"", nodes[n].name)));
            }
            let d = |key: &str| ct.opt(key).map(|f| f.duration()).transpose().map(|d| d.unwrap_or(Duration::ZERO));
            chans[k] = Some((d("latency")?, d("processing")?));
        }
    }
    let mut switches = Vec::with_capacity(sw_nodes.len());
    for (k, &n) in sw_nodes.iter().enumerate() {
        let Some((latency, processing)) = chans[k] else {
            return Err(sf.item(k).err(format!("switch \"{}\" has no control channel (add [[sdn.channels]] switch = \"{}\")", nodes[n].name, nodes[n].name)));
        };
        switches.push(SdnSwitch { node: n, latency, processing });
    }
    let zwa_replay_rto = match t.opt("zwa_replay_rto") {
        Some(f) => {
            let d = f.duration()?;
            if d == Duration::ZERO {
                return Err(f.err("zwa_replay_rto must be positive"));
            }
            d
        }
        None => Duration::from_millis(200),
    };
    Ok(Some(SdnSpec { controller, apps, switches, zwa_replay_rto }))
}
