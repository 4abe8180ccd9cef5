//! An iperf-style UDP receiver: counts datagrams and bytes, finds loss and
//! reordering from the sequence numbers, and measures one-way delay and
//! the interarrival jitter of RFC 3550 §6.4.1 from the send times the
//! datagrams carry.

use airtcp_core::Instant;

#[derive(Clone, Debug, Default)]
pub struct UdpReceiver {
    /// Distinct datagrams received, and their payload bytes.
    pub received: u64,
    pub bytes: u64,
    /// Datagrams that arrived after one with a higher sequence number.
    pub out_of_order: u64,
    /// Copies of a datagram already received.
    pub duplicates: u64,
    /// One past the highest sequence number received (0: none yet).
    pub seq_end: u64,
    /// Sequence numbers seen, one bit each (grows with the highest one).
    seen: Vec<u64>,
    /// RFC 3550's J, in ns (kept as a float: J += (|D| - J) / 16).
    pub jitter_ns: f64,
    /// Transit time (arrival - send) of the previous arrival, ns.
    prev_transit: Option<i64>,
    /// One-way delays of the distinct datagrams: sum, min, max, latest (ns).
    pub delay_sum_ns: u128,
    pub delay_min_ns: u64,
    pub delay_max_ns: u64,
    pub delay_last_ns: u64,
}

impl UdpReceiver {
    /// A datagram `seq`, sent at `sent_ns`, of `len` payload bytes arrives at `now`.
    pub fn on_datagram(&mut self, now: Instant, seq: u32, sent_ns: u64, len: u32) {
        let (word, bit) = (seq as usize / 64, seq % 64);
        if word >= self.seen.len() {
            self.seen.resize((word + 1).next_power_of_two(), 0);
        }
        if self.seen[word] >> bit & 1 == 1 {
            self.duplicates += 1;
            return;
        }
        self.seen[word] |= 1 << bit;
        self.received += 1;
        self.bytes += len as u64;
        if (seq as u64) < self.seq_end {
            self.out_of_order += 1;
        } else {
            self.seq_end = seq as u64 + 1;
        }
        // RFC 3550 §6.4.1: D(i-1, i) = (Rj - Ri) - (Sj - Si) = transit_j - transit_i,
        // J(i) = J(i-1) + (|D(i-1, i)| - J(i-1)) / 16, in order of arrival.
        let transit = now.0 as i64 - sent_ns as i64;
        if let Some(prev) = self.prev_transit {
            let d = (transit - prev).unsigned_abs() as f64;
            self.jitter_ns += (d - self.jitter_ns) / 16.0;
        }
        self.prev_transit = Some(transit);
        let delay = now.0.saturating_sub(sent_ns);
        if self.received == 1 || delay < self.delay_min_ns {
            self.delay_min_ns = delay;
        }
        self.delay_max_ns = self.delay_max_ns.max(delay);
        self.delay_sum_ns += delay as u128;
        self.delay_last_ns = delay;
    }

    /// Datagrams missing below the highest received, as iperf counts loss
    /// (datagrams still in flight or sent after the last arrival are not
    /// counted: the receiver cannot know of them).
    pub fn lost(&self) -> u64 {
        self.seq_end - self.received
    }

    pub fn delay_mean_ns(&self) -> Option<f64> {
        (self.received > 0).then(|| self.delay_sum_ns as f64 / self.received as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant(ms * 1_000_000)
    }

    #[test]
    fn loss_reorder_and_duplicates_from_sequence_numbers() {
        let mut r = UdpReceiver::default();
        for (seq, t) in [(0, 10), (1, 11), (3, 13), (2, 14), (3, 15), (6, 16)] {
            r.on_datagram(at(t), seq, 0, 100);
        }
        assert_eq!((r.received, r.bytes, r.out_of_order, r.duplicates), (5, 500, 1, 1));
        assert_eq!(r.seq_end, 7);
        assert_eq!(r.lost(), 2, "4 and 5 missing");
    }

    #[test]
    fn jitter_follows_rfc3550_estimator() {
        // Sent every 20 ms; transits 5, 7, 5, 5 ms: |D| = 2, 2, 0 ms.
        let mut r = UdpReceiver::default();
        for (i, transit) in [5u64, 7, 5, 5].iter().enumerate() {
            let sent = i as u64 * 20_000_000;
            r.on_datagram(Instant(sent + transit * 1_000_000), i as u32, sent, 160);
        }
        let mut j = 0.0f64;
        for d in [2e6, 2e6, 0.0] {
            j += (d - j) / 16.0;
        }
        assert_eq!(r.jitter_ns, j);
        assert!((r.jitter_ns - 227_050.781_25).abs() < 1e-6);
        assert_eq!((r.delay_min_ns, r.delay_max_ns, r.delay_last_ns), (5_000_000, 7_000_000, 5_000_000));
        assert_eq!(r.delay_mean_ns(), Some(5.5e6));
    }

    #[test]
    fn constant_delay_has_no_jitter() {
        let mut r = UdpReceiver::default();
        for i in 0..100u32 {
            let sent = i as u64 * 1_000_000;
            r.on_datagram(Instant(sent + 3_000_000), i, sent, 1000);
        }
        assert_eq!(r.jitter_ns, 0.0);
        assert_eq!(r.lost(), 0);
    }
}
