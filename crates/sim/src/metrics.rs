//! The run's TCP metrics through `airtcp-analyze`: each flow's client socket
//! is a capture point. Every segment the client's endpoint hands to the
//! network and every segment the network hands to it goes through the same
//! per-direction analysis (`airtcp_analyze::Tap`) as a packet capture, so a
//! run's `summary.json` and `airtcp analyze` of a capture taken beside the
//! sender compute retransmissions, timeouts, bytes, goodput and delivery
//! interruptions by one definition (docs/analyze.md).

use serde::Serialize;

use airtcp_analyze::decode::{Endpoint, TcpInfo};
use airtcp_analyze::model::{DirSummary, Discard};
use airtcp_analyze::Tap;
use airtcp_core::{Instant, Segment};

/// Shortest gap in in-order delivery reported as an interruption in a run's
/// summary: the same default as `airtcp analyze --min-gap` (1 s), so a run
/// and a capture of it list the same interruptions without options.
pub const SUMMARY_MIN_GAP_NS: i64 = 1_000_000_000;

/// The analysis of one flow at its client's socket.
pub struct SocketTap {
    tap: Tap,
    client: [u8; 4],
    server: [u8; 4],
}

impl SocketTap {
    pub fn new(client: [u8; 4], server: [u8; 4]) -> Self {
        SocketTap { tap: Tap::new(SUMMARY_MIN_GAP_NS), client, server }
    }

    /// A segment leaving the client's endpoint (`outgoing`) or reaching it.
    #[inline]
    pub fn segment(&mut self, now: Instant, seg: &Segment, outgoing: bool) {
        let (src, dst) = if outgoing { (self.client, self.server) } else { (self.server, self.client) };
        let info = tcp_info(seg, src, dst);
        self.tap.packet(now.0 as i64, &info, &mut Discard);
    }

    /// The data direction's totals, and the handshake as seen by the client.
    pub fn finish(&mut self) -> FlowAnalysis {
        match self.tap.finish(&mut Discard) {
            Some(c) => FlowAnalysis {
                seen_at: "client_socket",
                min_gap_s: SUMMARY_MIN_GAP_NS as f64 / 1e9,
                handshake_rtt_s: c.syn_to_synack_ns.map(|x| x as f64 / 1e9),
                data: c.fwd,
            },
            None => FlowAnalysis {
                seen_at: "client_socket",
                min_gap_s: SUMMARY_MIN_GAP_NS as f64 / 1e9,
                handshake_rtt_s: None,
                data: DirSummary { capture_point: "unknown", ..DirSummary::default() },
            },
        }
    }
}

/// `summary.json`'s `flows[i].analysis`: the client-to-server direction as
/// `airtcp analyze` defines it, seen at the client's socket (every key of
/// a capture's per-direction summary, with the same meaning).
#[derive(Clone, Debug, Serialize)]
pub struct FlowAnalysis {
    /// Where the packets were seen.
    pub seen_at: &'static str,
    /// Shortest delivery gap listed in `interruptions`.
    pub min_gap_s: f64,
    /// SYN sent to SYN/ACK received.
    pub handshake_rtt_s: Option<f64>,
    #[serde(flatten)]
    pub data: DirSummary,
}

/// The header fields the analysis reads, from a simulated segment.
#[inline]
fn tcp_info(seg: &Segment, src: [u8; 4], dst: [u8; 4]) -> TcpInfo {
    let mut sack = [(0u32, 0u32); 4];
    let n = (seg.sack_len as usize).min(sack.len()).min(seg.sack_blocks.len());
    for (d, s) in sack.iter_mut().zip(&seg.sack_blocks[..n]) {
        *d = (s.0 .0, s.1 .0);
    }
    TcpInfo {
        src: Endpoint::v4(src, seg.src_port),
        dst: Endpoint::v4(dst, seg.dst_port),
        seq: seg.seq.0,
        ack: seg.ack.0,
        // The analysis reads FIN, SYN, RST and ACK, whose bits are the
        // header's (RFC 9293 §3.1) in both representations.
        flags: seg.flags.0,
        window: seg.window,
        payload_len: seg.payload_len,
        mss: seg.mss,
        wscale: seg.wscale,
        sack_permitted: seg.sack_permitted,
        ts: seg.timestamps,
        sack,
        n_sack: n as u8,
        mac: None,
    }
}
