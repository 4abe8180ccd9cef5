//! Typed configurations of the built-in agents, as a scenario declares them.
//! The simulator's scenario reader fills these (with file:line errors); the
//! agents trust them to be valid.

use airtcp_core::Duration;
use airtcp_tcp::TcpConfig;

use crate::agent::IfaceId;

/// Seed 004's packet error generator.
#[derive(Clone, Debug, PartialEq)]
pub struct PegConfig {
    /// Probability of dropping a packet leaving the node (`Send_Data_Drop_Rate`).
    pub send_drop_rate: f64,
    /// Probability of dropping a packet arriving at the node (`Recv_Data_Drop_Rate`).
    pub recv_drop_rate: f64,
    /// Drop only TCP segments carrying payload (the seed's "data"); `false`
    /// drops any packet, ACKs and control traffic included.
    pub data_only: bool,
    /// Only this interface; `None` for every interface of the node.
    pub iface: Option<IfaceId>,
}

/// How Snoop times its local retransmissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnoopTimer {
    /// A fixed timeout (seed 004: 1 s).
    Fixed(Duration),
    /// From the local RTT (Balakrishnan et al. 1995 §3; the seed's future
    /// work): RFC 6298-style SRTT + 4·RTTVAR over wireless-hop samples,
    /// clamped to `[min, max]`, `initial` before the first sample.
    Adaptive {
        /// Timeout before the first local RTT sample.
        initial: Duration,
        /// Lower clamp of the computed timeout.
        min: Duration,
        /// Upper clamp of the computed timeout.
        max: Duration,
    },
}

/// The Snoop proxy (Balakrishnan, Seshan, Amir, Katz, MobiCom 1995).
#[derive(Clone, Debug, PartialEq)]
pub struct SnoopConfig {
    /// The interface facing the wireless hop: data leaving through it is
    /// cached, ACKs arriving on it are snooped.
    pub wireless: IfaceId,
    /// How long Snoop waits for a wireless ACK before retransmitting locally.
    pub timer: SnoopTimer,
    /// Most segments cached per connection.
    pub cache_packets: u32,
}

/// The I-TCP split-connection proxy (Bakre and Badrinath, ICDCS 1995).
#[derive(Clone, Debug)]
pub struct ItcpConfig {
    /// The interface facing the mobile host.
    pub wireless: IfaceId,
    /// Bytes the proxy holds between its two connections.
    pub relay_bytes: u64,
    /// TCP of the connection facing the fixed host.
    pub fixed_tcp: TcpConfig,
    /// TCP of the connection facing the mobile host.
    pub wireless_tcp: TcpConfig,
}
