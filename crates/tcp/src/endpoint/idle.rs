//! Congestion-window restart after idle (RFC 5681 §4.1; RFC 7661 §1
//! explains why Linux keeps it on): Linux 6.6
//! `tcp_slow_start_after_idle_check` (include/net/tcp.h) runs when the
//! application queues new data with nothing in flight and calls
//! `tcp_cwnd_restart` (tcp_output.c) if nothing was sent for longer than
//! the RTO (`net.ipv4.tcp_slow_start_after_idle = 1`). Here the check runs
//! when that data is about to be sent, which the driver does at once.

use super::Endpoint;
use crate::cc::{CaEvent, CongestionOps};

impl Endpoint {
    /// `tcp_slow_start_after_idle_check`: not for modules with their own
    /// `cong_control` (BBR keeps its model across idle periods).
    pub(super) fn slow_start_after_idle_check(&mut self) {
        if !self.cfg.slow_start_after_idle || self.tp.packets_out > 0 || self.cc.has_cong_control() {
            return;
        }
        // Once per idle period: Linux checks once per skb the application
        // queues, here every send attempt would check again (zero window).
        if self.idle_restarted_at == Some(self.tp.lsndtime) {
            return;
        }
        let delta = self.tp.jiffies.wrapping_sub(self.tp.lsndtime) as i32 as i64;
        let rto = self.rto_jiffies();
        if delta > rto {
            self.idle_restarted_at = Some(self.tp.lsndtime);
            self.cwnd_restart(delta, rto);
        }
    }

    /// `icsk_rto` in jiffies (with the current backoff, as the kernel's).
    pub(super) fn rto_jiffies(&self) -> i64 {
        (self.rtt.rto().as_nanos() / self.ns_per_jiffy()) as i64
    }

    /// `tcp_cwnd_restart`: ssthresh keeps 3/4 of the old cwnd
    /// (`tcp_current_ssthresh`), cwnd halves per RTO of idleness but not
    /// below min(IW, cwnd).
    fn cwnd_restart(&mut self, mut delta: i64, rto: i64) {
        self.cc.cwnd_event(&mut self.tp, CaEvent::CwndRestart);
        self.tp.snd_ssthresh = self.current_ssthresh();
        let mut cwnd = self.tp.snd_cwnd;
        let restart_cwnd = self.cfg.initial_cwnd.min(cwnd);
        loop {
            delta -= rto.max(1);
            if delta <= 0 || cwnd <= restart_cwnd {
                break;
            }
            cwnd >>= 1;
        }
        self.tp.snd_cwnd = cwnd.max(restart_cwnd);
        self.stats.cwnd_restarts += 1;
    }
}
