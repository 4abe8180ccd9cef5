//! The run's TCP metrics through `airtcp-analyze`: each flow's client socket
//! is a capture point. Every segment the client's endpoint hands to the
//! network and every segment the network hands to it goes through the same
//! per-direction analysis (`airtcp_analyze::Tap`) as a packet capture, so a
//! run's `summary.json` and `airtcp analyze` of a capture taken beside the
//! sender compute retransmissions, timeouts, bytes, goodput and delivery
//! interruptions by one definition (docs/analyze.md).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

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
    /// The header of the last segment of each direction (0: leaving the
    /// client, 1: reaching it), addresses filled in once: a segment rewrites
    /// only the fields it carries, instead of building a whole `TcpInfo`.
    info: [TcpInfo; 2],
}

impl SocketTap {
    pub fn new(client: [u8; 4], server: [u8; 4]) -> Self {
        let header = |src, dst| TcpInfo { src: Endpoint::v4(src, 0), dst: Endpoint::v4(dst, 0), ..TcpInfo::default() };
        SocketTap { tap: Tap::forward_only(SUMMARY_MIN_GAP_NS), info: [header(client, server), header(server, client)] }
    }

    /// A segment leaving the client's endpoint (`outgoing`) or reaching it.
    #[inline]
    pub fn segment(&mut self, now: Instant, seg: &Segment, outgoing: bool) {
        let info = &mut self.info[usize::from(!outgoing)];
        set_tcp_info(info, seg);
        self.tap.packet(now.0 as i64, info, &mut Discard);
    }

    /// The data direction's totals, and the handshake as seen by the client.
    pub fn finish(&mut self) -> FlowAnalysis {
        match self.tap.finish(&mut Discard) {
            Some(c) => FlowAnalysis {
                seen_at: Cow::Borrowed("client_socket"),
                min_gap_s: SUMMARY_MIN_GAP_NS as f64 / 1e9,
                handshake_rtt_s: c.syn_to_synack_ns.map(|x| x as f64 / 1e9),
                data: c.fwd,
            },
            None => FlowAnalysis {
                seen_at: Cow::Borrowed("client_socket"),
                min_gap_s: SUMMARY_MIN_GAP_NS as f64 / 1e9,
                handshake_rtt_s: None,
                data: DirSummary { capture_point: Cow::Borrowed("unknown"), ..DirSummary::default() },
            },
        }
    }
}

/// `summary.json`'s `flows[i].analysis`: the client-to-server direction as
/// `airtcp analyze` defines it, seen at the client's socket (every key of
/// a capture's per-direction summary, with the same meaning).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowAnalysis {
    /// Where the packets were seen.
    pub seen_at: Cow<'static, str>,
    /// Shortest delivery gap listed in `interruptions`.
    pub min_gap_s: f64,
    /// SYN sent to SYN/ACK received.
    pub handshake_rtt_s: Option<f64>,
    #[serde(flatten)]
    pub data: DirSummary,
}

/// The header fields the analysis reads, from a simulated segment, written
/// over the previous segment's (same addresses). SACK blocks past
/// `n_sack` are left as they were: they are not part of the header
/// (`TcpInfo::sack`).
#[inline]
fn set_tcp_info(info: &mut TcpInfo, seg: &Segment) {
    let n = (seg.sack_len as usize).min(info.sack.len()).min(seg.sack_blocks.len());
    for (d, s) in info.sack.iter_mut().zip(&seg.sack_blocks[..n]) {
        *d = (s.0 .0, s.1 .0);
    }
    info.n_sack = n as u8;
    info.src.port = seg.src_port;
    info.dst.port = seg.dst_port;
    info.seq = seg.seq.0;
    info.ack = seg.ack.0;
    // The analysis reads FIN, SYN, RST and ACK, whose bits are the
    // header's (RFC 9293 §3.1) in both representations.
    info.flags = seg.flags.0;
    info.window = seg.window;
    info.payload_len = seg.payload_len;
    info.mss = seg.mss;
    info.wscale = seg.wscale;
    info.sack_permitted = seg.sack_permitted;
    info.ts = seg.timestamps;
}
