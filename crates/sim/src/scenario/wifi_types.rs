//! The declared wireless part of a scenario as the reader leaves it: the
//! types the `[wifi]`, `[[radios]]` and `[[wifi_errors]]` readers share
//! (`wifi.rs`, `wifi_medium.rs`, `wifi_errors.rs`), kept in a leaf so that
//! those readers import each other in one direction only.

use airtcp_core::Duration;
use airtcp_wifi::medium::RadioSpec;
use airtcp_wifi::phy::{PathLoss, Shadowing, Standard};

use crate::network::addr::Prefix;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RadioMode {
    Ap { ssid: String },
    /// A station of network `ssid`, associated with AP radio `ap` at the start.
    Station { ssid: String, ap: Option<usize> },
    AdHoc,
}

/// One radio of a node: its interface on the medium.
#[derive(Clone, Debug)]
pub struct RadioDecl {
    pub node: usize,
    pub mode: RadioMode,
    pub spec: RadioSpec,
    pub subnet: Prefix,
    pub addr: u32,
    /// Random waypoint parameters `(area, speed_min, speed_max, pause)`: the
    /// model is seeded from the run's seed when the network is built.
    pub random_waypoint: Option<RandomWaypoint>,
}

/// `(area (x0, y0, x1, y1), speed_min, speed_max, pause)` of a random waypoint radio.
pub type RandomWaypoint = ((f64, f64, f64, f64), f64, f64, Duration);

#[derive(Clone, Debug)]
pub struct WifiSpec {
    /// The `[wifi]`, `[[radios]]` and `[[wifi_errors]]` values as written,
    /// for the resolved scenario in summary.json (with resolved addresses).
    pub raw: [serde_json::Value; 3],
    pub standard: Standard,
    pub path_loss: PathLoss,
    pub shadowing: Option<Shadowing>,
    pub radios: Vec<RadioDecl>,
    /// `(from radio, to radio, frame error rate, smallest MPDU it hits)`.
    pub errors: Vec<(usize, usize, f64, u32)>,
    /// `medium = "p2p"`: plain point-to-point cells instead of 802.11.
    pub p2p: Option<P2pSpec>,
}

/// The plain point-to-point wireless hop (`network/cells.rs`): `[wifi]
/// rate` as a bit rate, `p2p_delay` of propagation, `short_retry_limit`
/// attempts before a frame to a station out of the cell is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P2pSpec {
    pub bps: u64,
    pub delay: Duration,
    pub attempts: u32,
}
