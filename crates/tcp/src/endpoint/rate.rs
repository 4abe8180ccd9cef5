//! Delivery rate sampling as Linux net/ipv4/tcp_rate.c does it, for the
//! modules that implement `cong_control` (BBR): every transmission stamps the
//! segment with `delivered` and the send/delivery clocks
//! (`tcp_rate_skb_sent`), the ACK path offers each segment it newly delivers
//! as the sample's reference (`tcp_rate_skb_delivered`), and once per ACK
//! the accumulated reference becomes a `RateSample` (`tcp_rate_gen`).
//!
//! It is a file of its own because only the `cong_control` modules consume
//! the sample: the ACK path merely threads a `RateAcc` through its
//! per-segment loops and hands the finished sample on, so tcp_rate.c's logic
//! reads as one piece here.

use super::scoreboard::{TxSeg, EVER_RETRANS};
use super::Endpoint;
use crate::cc::RateSample;

/// Per-ACK accumulation of `struct rate_sample` (tcp_rate.c).
#[derive(Default)]
pub(super) struct RateAcc {
    pub(super) rs: RateSample,
    have_prior: bool,
    last_end: u64,
}

impl Endpoint {
    /// `tcp_rate_skb_sent`.
    pub(super) fn rate_skb_sent(&mut self, s: &mut TxSeg) {
        if self.tp.packets_out == 0 {
            self.first_tx_mstamp = self.tp.tcp_mstamp;
            self.tp.delivered_mstamp = self.tp.tcp_mstamp;
        }
        s.tx_first_tx_mstamp = self.first_tx_mstamp;
        s.tx_delivered_mstamp = self.tp.delivered_mstamp;
        s.tx_delivered = self.tp.delivered;
        s.tx_app_limited = self.tp.app_limited != 0;
    }

    /// `tcp_rate_skb_delivered`.
    pub(super) fn rate_skb_delivered(&mut self, s: &TxSeg, ra: &mut RateAcc) {
        let tx = s.tx_time.as_micros();
        if !ra.have_prior || tx > self.first_tx_mstamp || (tx == self.first_tx_mstamp && s.end() > ra.last_end) {
            ra.have_prior = true;
            ra.rs.prior_delivered = s.tx_delivered;
            ra.rs.prior_mstamp = s.tx_delivered_mstamp;
            ra.rs.is_app_limited = s.tx_app_limited;
            ra.rs.is_retrans = s.has(EVER_RETRANS);
            ra.last_end = s.end();
            self.first_tx_mstamp = tx;
            ra.rs.interval_us = tx as i64 - s.tx_first_tx_mstamp as i64;
        }
    }

    /// `tcp_rate_gen`.
    pub(super) fn rate_gen(&mut self, delivered: u32, lost: u32, prior_in_flight: u32, ra: RateAcc) -> RateSample {
        let tp = &mut self.tp;
        if tp.app_limited != 0 && (tp.delivered.wrapping_sub(tp.app_limited) as i32) > 0 {
            tp.app_limited = 0;
        }
        if delivered > 0 {
            tp.delivered_mstamp = tp.tcp_mstamp;
        }
        let mut rs = ra.rs;
        rs.acked_sacked = delivered;
        rs.losses = lost as i32;
        rs.prior_in_flight = prior_in_flight;
        if !ra.have_prior {
            rs.delivered = -1;
            rs.interval_us = -1;
            return rs;
        }
        rs.delivered = tp.delivered.wrapping_sub(rs.prior_delivered) as i32;
        let snd_us = rs.interval_us;
        let ack_us = tp.tcp_mstamp as i64 - rs.prior_mstamp as i64;
        rs.interval_us = snd_us.max(ack_us);
        rs.snd_interval_us = snd_us.max(0) as u32;
        rs.rcv_interval_us = ack_us.max(0) as u32;
        if rs.interval_us < tp.min_rtt_us as i64 {
            rs.interval_us = -1;
        }
        rs
    }
}
