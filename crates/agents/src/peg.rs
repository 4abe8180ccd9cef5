//! Seed 004's packet error generator (PEG): a layer between IP and the link
//! that discards packets with a fixed probability, independently and
//! uniformly ("Generates packet loss (uniformly distributed)"), separately for
//! the two directions (`Send_Data_Drop_Rate`, `Recv_Data_Drop_Rate`).
//!
//! Draw discipline: exactly one uniform draw per *eligible* packet, whatever
//! the rates are (a zero rate still draws). So the stream position of a packet
//! depends only on which packets were eligible before it, never on the rates:
//! two runs that differ only in a drop rate use common random numbers, and the
//! packets dropped at rate p are a subset of those dropped at any rate > p.
//! Ineligible packets (another interface, or an ACK under `data_only`) draw
//! nothing, so control traffic does not shift the data packets' draws.

use airtcp_core::{Instant, Packet, RngStream};

use crate::agent::{Agent, Hook, HookMask, IfaceId, Injection, Verdict};
use crate::config::PegConfig;

/// One packet error generator (seed 004): drops packets independently with
/// the configured probability per direction, one draw per eligible packet.
pub struct Peg {
    cfg: PegConfig,
    rng: RngStream,
    send_seen: u64,
    send_dropped: u64,
    recv_seen: u64,
    recv_dropped: u64,
}

impl Peg {
    /// `rng` is the agent's own stream (the driver derives it from the master
    /// seed and the agent's name).
    pub fn new(cfg: PegConfig, rng: RngStream) -> Peg {
        Peg { cfg, rng, send_seen: 0, send_dropped: 0, recv_seen: 0, recv_dropped: 0 }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &PegConfig {
        &self.cfg
    }

    /// Whether the PEG acts on this packet at all: the configured interface,
    /// and under `data_only` a TCP segment with payload (the seed's "data").
    fn eligible(&self, iface: IfaceId, pkt: &Packet) -> bool {
        if self.cfg.iface.is_some_and(|i| i != iface) {
            return false;
        }
        !self.cfg.data_only || pkt.segment().is_some_and(|s| s.payload_len > 0)
    }
}

impl Agent for Peg {
    fn kind(&self) -> &'static str {
        "peg"
    }

    fn hooks(&self) -> HookMask {
        HookMask::INGRESS | HookMask::EGRESS
    }

    fn on_packet(&mut self, _now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if !matches!(hook, Hook::Egress | Hook::Ingress) || !self.eligible(iface, pkt) {
            return Verdict::Accept;
        }
        let (rate, seen, dropped) = match hook {
            Hook::Egress => (self.cfg.send_drop_rate, &mut self.send_seen, &mut self.send_dropped),
            _ => (self.cfg.recv_drop_rate, &mut self.recv_seen, &mut self.recv_dropped),
        };
        *seen += 1;
        if self.rng.bernoulli(rate) {
            *dropped += 1;
            Verdict::Drop
        } else {
            Verdict::Accept
        }
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        None
    }

    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn handle_timeout(&mut self, _now: Instant) {}

    /// Counts are of eligible packets only, so `dropped / seen` estimates the rate.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("send_seen", self.send_seen),
            ("send_dropped", self.send_dropped),
            ("recv_seen", self.recv_seen),
            ("recv_dropped", self.recv_dropped),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::{Segment, SeqNum, TcpFlags};

    const WLAN: IfaceId = IfaceId(1);
    const WIRED: IfaceId = IfaceId(0);

    fn peg(send: f64, recv: f64, data_only: bool, iface: Option<IfaceId>, seed: u64) -> Peg {
        let cfg = PegConfig { send_drop_rate: send, recv_drop_rate: recv, data_only, iface };
        Peg::new(cfg, RngStream::new(seed, "peg"))
    }

    fn data(seq: u32) -> Packet {
        let seg = Segment {
            src_port: 5000,
            dst_port: 80,
            seq: SeqNum(seq),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 1000,
            payload_len: 1000,
            ..Default::default()
        };
        Packet::tcp([10, 0, 0, 1], [10, 0, 1, 2], 64, 0, seg)
    }

    fn ack() -> Packet {
        let mut p = data(0);
        p.segment_mut().unwrap().payload_len = 0;
        p
    }

    /// Passes `n` data packets through `hook` on `iface`; returns how many were dropped.
    fn send_many(p: &mut Peg, hook: Hook, iface: IfaceId, n: u32) -> u64 {
        (0..n).filter(|&i| p.on_packet(Instant::ZERO, hook, iface, &mut data(i * 1000)) == Verdict::Drop).count()
            as u64
    }

    /// |drops - n·p| within 5 binomial standard deviations (a false failure
    /// is a < 1e-6 event; the seed is fixed anyway).
    fn assert_binomial(drops: u64, n: u64, p: f64) {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        assert!((drops as f64 - mean).abs() <= 5.0 * sd + 1e-9, "{drops} drops of {n} at p = {p}");
    }

    #[test]
    fn rate_zero_never_drops_and_rate_one_always_drops() {
        let mut p = peg(0.0, 1.0, false, None, 1);
        assert_eq!(send_many(&mut p, Hook::Egress, WLAN, 10_000), 0);
        assert_eq!(send_many(&mut p, Hook::Ingress, WLAN, 10_000), 10_000);
        assert_eq!(p.counters(), vec![("send_seen", 10_000), ("send_dropped", 0), ("recv_seen", 10_000), ("recv_dropped", 10_000)]);
    }

    #[test]
    fn rate_point_three_drops_within_binomial_bounds_both_directions() {
        let mut p = peg(0.3, 0.3, false, None, 7);
        let n = 50_000;
        assert_binomial(send_many(&mut p, Hook::Egress, WLAN, n), n as u64, 0.3);
        assert_binomial(send_many(&mut p, Hook::Ingress, WLAN, n), n as u64, 0.3);
    }

    #[test]
    fn data_only_lets_acks_and_handshakes_through_without_drawing() {
        let mut p = peg(1.0, 1.0, true, None, 3);
        let mut syn = ack();
        syn.segment_mut().unwrap().flags = TcpFlags::SYN;
        for _ in 0..100 {
            assert_eq!(p.on_packet(Instant::ZERO, Hook::Egress, WLAN, &mut ack()), Verdict::Accept);
            assert_eq!(p.on_packet(Instant::ZERO, Hook::Ingress, WLAN, &mut syn), Verdict::Accept);
        }
        assert_eq!(p.on_packet(Instant::ZERO, Hook::Egress, WLAN, &mut data(0)), Verdict::Drop);
        assert_eq!(p.counters()[0], ("send_seen", 1), "ACKs are not eligible");
        // Without data_only an ACK is fair game.
        let mut all = peg(1.0, 0.0, false, None, 3);
        assert_eq!(all.on_packet(Instant::ZERO, Hook::Egress, WLAN, &mut ack()), Verdict::Drop);
    }

    #[test]
    fn iface_filter_spares_other_interfaces() {
        let mut p = peg(1.0, 1.0, false, Some(WLAN), 5);
        assert_eq!(send_many(&mut p, Hook::Egress, WIRED, 1000), 0);
        assert_eq!(send_many(&mut p, Hook::Ingress, WIRED, 1000), 0);
        assert_eq!(send_many(&mut p, Hook::Egress, WLAN, 10), 10);
        assert_eq!(p.counters()[0], ("send_seen", 10));
    }

    #[test]
    fn same_seed_same_drops_and_rates_share_random_numbers() {
        let pattern = |seed: u64, rate: f64| -> Vec<bool> {
            let mut p = peg(rate, 0.0, true, None, seed);
            (0..2000)
                .map(|i| {
                    // Interleave ineligible ACKs: they must not shift the draws.
                    p.on_packet(Instant::ZERO, Hook::Egress, WLAN, &mut ack());
                    p.on_packet(Instant::ZERO, Hook::Egress, WLAN, &mut data(i)) == Verdict::Drop
                })
                .collect()
        };
        assert_eq!(pattern(11, 0.2), pattern(11, 0.2));
        assert_ne!(pattern(11, 0.2), pattern(12, 0.2));
        // Common random numbers: every drop at 0.1 is also a drop at 0.3.
        let (lo, hi) = (pattern(11, 0.1), pattern(11, 0.3));
        assert!(lo.iter().zip(&hi).all(|(l, h)| !l || *h));
    }

    #[test]
    fn forward_and_local_in_are_ignored() {
        let mut p = peg(1.0, 1.0, false, None, 1);
        assert_eq!(p.on_packet(Instant::ZERO, Hook::Forward, WLAN, &mut data(0)), Verdict::Accept);
        assert_eq!(p.on_packet(Instant::ZERO, Hook::LocalIn, WLAN, &mut data(0)), Verdict::Accept);
        assert_eq!(p.hooks(), HookMask::INGRESS | HookMask::EGRESS);
    }
}
