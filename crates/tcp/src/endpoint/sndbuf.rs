//! Send-buffer growth (Linux 6.6 `tcp_sndbuf_expand`, `tcp_new_space`,
//! tcp_input.c): an unlocked send buffer starts at `tcp_wmem[1]` and is
//! resized to hold two windows' worth of segments (three for BBR) whenever
//! the application was waiting for room and cwnd was not the limit.
//!
//! Linux counts skb memory (`sk_wmem_queued`, truesize) against the buffer;
//! here the buffer holds payload bytes, as with TSO/GSO skbs whose overhead
//! is small. The size it grows to still uses the kernel's worst-case
//! per-segment memory, so an expanded buffer holds about three times the
//! payload of max(cwnd, IW) segments for MSS 1460.

use super::Endpoint;
use crate::cc::CongestionOps;

/// `TCP_INIT_CWND`: the buffer holds at least this many segments.
const TCP_INIT_CWND: u64 = 10;
/// `MAX_TCP_HEADER` = L1_CACHE_ALIGN(128 + MAX_HEADER) on x86-64.
const MAX_TCP_HEADER: u64 = 320;
/// SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64.
const SHINFO_SIZE: u64 = 320;
/// SKB_DATA_ALIGN(sizeof(struct sk_buff)) on x86-64.
const SKB_SIZE: u64 = 256;

impl Endpoint {
    /// The send buffer in force: fixed `snd_buf`, or the grown one.
    pub(super) fn sndbuf(&self) -> u64 {
        if self.cfg.snd_buf_autotune {
            self.sk_sndbuf as u64
        } else {
            self.cfg.snd_buf as u64
        }
    }

    /// `tcp_sndbuf_expand`: 2 (BBR's `sndbuf_expand`: 3) ×
    /// max(IW, cwnd, reordering + 1) segments of worst-case memory
    /// (a non-GSO skb per segment, its head a power-of-two kmalloc).
    pub(super) fn sndbuf_expand(&mut self) {
        if !self.cfg.snd_buf_autotune {
            return;
        }
        let mss = self.send_mss.max(self.tp.mss_cache) as u64;
        let per_mss = (mss + MAX_TCP_HEADER + SHINFO_SIZE).next_power_of_two() + SKB_SIZE;
        let nr_segs = TCP_INIT_CWND.max(self.tp.snd_cwnd as u64).max(self.cfg.dupack_threshold as u64 + 1);
        let factor = if self.cc.has_cong_control() { 3 } else { 2 };
        let sndmem = factor * nr_segs * per_mss;
        if (self.sk_sndbuf as u64) < sndmem {
            self.sk_sndbuf = sndmem.min(self.cfg.tcp_wmem[2] as u64) as u32;
            self.stats.sndbuf_max = self.stats.sndbuf_max.max(self.sk_sndbuf as u64);
        }
    }

    /// `tcp_check_space` / `tcp_new_space` after the pending segments went
    /// out: acknowledged data freed room while the writer was waiting
    /// (`SOCK_QUEUE_SHRUNK` and `SOCK_NOSPACE`), so the buffer may grow
    /// unless cwnd is full (`tcp_should_expand_sndbuf`).
    pub(super) fn check_space(&mut self) {
        if !self.snd_queue_shrunk {
            return;
        }
        self.snd_queue_shrunk = false;
        if !self.snd_nospace {
            return;
        }
        self.snd_nospace = false;
        if self.tp.packets_in_flight() < self.tp.snd_cwnd {
            self.sndbuf_expand();
        }
    }

    /// The writer is waiting for room: it asked for more than fit, or
    /// cannot add a full segment (a writer of whole segments, like the
    /// simulator's bulk application, stops there).
    pub(super) fn note_writer_blocked(&mut self) {
        if self.send_capacity() < self.send_mss as u64 {
            self.snd_nospace = true;
        }
    }
}
