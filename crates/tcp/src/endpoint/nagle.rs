//! Nagle's algorithm (RFC 896) as Linux runs it with TCP_NODELAY unset
//! (tcp_output.c `tcp_nagle_test` / `tcp_nagle_check`, with Greg
//! Minshall's variant `tcp_minshall_check`): the last, sub-MSS segment of
//! the write queue waits while an earlier sub-MSS segment is still
//! unacknowledged, so at most one small segment is in flight. Full
//! segments never wait, nor does a segment carrying FIN (`tcp_nagle_test`;
//! `tcp_send_fin` also pushes with TCP_NAGLE_OFF). TCP_CORK and
//! autocorking (`tcp_autocorking`, which only waits for the local qdisc)
//! are not modelled.

use super::Endpoint;

impl Endpoint {
    /// Whether a new segment of `len` bytes (without FIN) must wait.
    pub(super) fn nagle_holds(&mut self, len: u32) -> bool {
        if self.cfg.nodelay || len >= self.send_mss || self.tp.packets_out == 0 {
            return false;
        }
        // tcp_minshall_check: snd_sml in (snd_una, snd_nxt].
        let hold = self.snd_sml > self.snd_una && self.snd_sml <= self.snd_nxt;
        if hold && self.nagle_held_at != Some(self.snd_nxt) {
            self.nagle_held_at = Some(self.snd_nxt);
            self.stats.nagle_deferrals += 1;
        }
        hold
    }

    /// `tcp_minshall_update`: remember the end of the last small segment.
    pub(super) fn minshall_update(&mut self, len: u32, end: u64) {
        if len < self.send_mss {
            self.snd_sml = end;
        }
    }
}
