//! Linux's PSH on TSO chunks (`TcpConfig::push_tso`): since 4.11 ("tcp:
//! force a PSH flag on TSO packets", `__tcp_transmit_skb`) every skb
//! transmitted with more than one segment carries PSH, which segmentation
//! leaves on its last segment; a one-segment skb carries PSH only if the
//! writer pushed it. Since 4.x the writer queues 64 KiB skbs
//! (`tcp_xmit_size_goal`) and `tcp_write_xmit` cuts them at transmission
//! into chunks of `tcp_tso_autosize` segments, so where PSH falls is set by
//! what each transmission opportunity sends: with two-segment chunks
//! (below ~23 Mb/s) an ACK that releases two segments sends `. P`, one
//! that releases three `. P .`, one that releases one `.`.
//!
//! Why it matters: a Linux receiver ACKs a full segment with PSH once the
//! reader has it (`push_ack = "full"`), so the sender's PSH placement
//! decides which lone segments wait for the delayed-ACK timer
//! (docs/emulate.md, the kernel-vs-model check).
//!
//! Here a chunk is the run of new segments one transmission opportunity
//! (one instant) sends, cut into pieces of `tcp_tso_autosize` segments
//! and of at most half the congestion window (`tcp_cwnd_test`); the last
//! piece's length is what the congestion window, the peer's window and
//! the data written allow at its start. Retransmissions are their own
//! one-segment chunks (a retransmitted segment usually is one: the SACKed
//! rest of its skb has been split off).

use airtcp_core::Instant;

use super::Endpoint;

/// `sysctl_tcp_min_tso_segs` default (3.12).
const TCP_MIN_TSO_SEGS: u64 = 2;
/// `sk_pacing_shift` default: about 1 ms of data per TSO chunk (4.20).
const SK_PACING_SHIFT: u32 = 10;
/// `sysctl_tcp_tso_rtt_log` default (5.18): chunks grow on short paths.
const TCP_TSO_RTT_LOG: u32 = 9;
/// `GSO_LEGACY_MAX_SIZE`: a device's default `gso_max_size`.
const GSO_MAX_SIZE: u64 = 65_536;
/// `sysctl_tcp_pacing_ss_ratio` / `sysctl_tcp_pacing_ca_ratio` (percent).
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;

/// The chunk being sent: when, where the next segment of it starts, how
/// many segments it has and how many are out.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TsoChunk {
    at: Option<Instant>,
    next_start: u64,
    len: u32,
    sent: u32,
}

impl Endpoint {
    /// `tcp_update_pacing_rate` (bytes/s): 200 % of cwnd·MSS/SRTT in slow
    /// start below half ssthresh, 120 % after; a module's own rate (BBR)
    /// when it sets one.
    fn linux_pacing_rate(&self) -> u64 {
        if self.tp.pacing_requested && self.tp.pacing_rate > 0 {
            return self.tp.pacing_rate;
        }
        let tp = &self.tp;
        if tp.srtt_us == 0 {
            return u64::MAX;
        }
        let ratio = if tp.snd_cwnd < tp.snd_ssthresh / 2 {
            PACING_SS_RATIO
        } else {
            PACING_CA_RATIO
        };
        let rate = tp.mss_cache as u64
            * ((1_000_000 / 100) << 3)
            * ratio
            * tp.snd_cwnd.max(tp.packets_out) as u64;
        rate / tp.srtt_us as u64
    }

    /// `tcp_tso_autosize` with `tcp_min_tso_segs`: about 1 ms of data at
    /// the pacing rate, more on paths of a few ms, at least two segments.
    fn tso_segs(&self) -> u64 {
        let mss = self.send_mss.max(1) as u64;
        let mut bytes = self.linux_pacing_rate() >> SK_PACING_SHIFT;
        let r = self.tp.min_rtt_us >> TCP_TSO_RTT_LOG;
        if self.tp.min_rtt_us != u32::MAX && r < 32 {
            bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
        }
        (bytes.min(GSO_MAX_SIZE) / mss).max(TCP_MIN_TSO_SEGS)
    }

    /// Whether new segment `[start, start + len)`, sent at `now`, ends a
    /// chunk of more than one segment.
    pub(super) fn tso_pushes(&mut self, now: Instant, start: u64, len: u32) -> bool {
        let c = self.tso_chunk;
        let continues = c.at == Some(now) && c.next_start == start && c.sent < c.len;
        if !continues {
            // A new chunk: as long as the window and the data allow now.
            let mss = self.send_mss.max(1) as u64;
            // `tcp_cwnd_test`: what the window allows, but at most half the
            // window ("ensure we have at least 2 GSO packets in flight"), so
            // a window of 2 or 3 goes out one segment per chunk, no PSH.
            // This segment is already counted in flight (`transmit_new`).
            let cwnd = self.tp.snd_cwnd;
            let cwnd_quota = (cwnd + 1).saturating_sub(self.tp.packets_in_flight()).min((cwnd >> 1).max(1)) as u64;
            let wnd_end = self.snd_una + self.snd_wnd as u64;
            let wnd_quota = wnd_end.saturating_sub(start).div_ceil(mss);
            let data_quota = self.data_end().saturating_sub(start).div_ceil(mss);
            let n = self
                .tso_segs()
                .min(cwnd_quota.max(1))
                .min(wnd_quota.max(1))
                .min(data_quota.max(1));
            self.tso_chunk = TsoChunk {
                at: Some(now),
                next_start: start,
                len: n as u32,
                sent: 0,
            };
        }
        let c = &mut self.tso_chunk;
        c.sent += 1;
        c.next_start = start + len as u64;
        c.len > 1 && c.sent == c.len
    }
}
