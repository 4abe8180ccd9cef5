//! Where an ACK's RTT sample comes from (`rtt_samples`): Linux's
//! `tcp_ack_update_rtt` (send times first, then new SACKs, the echoed
//! timestamp last) against RFC 7323's RTTM on the echoed timestamp.
use crate::common;
use common::*;

use airtcp_core::{Duration, Instant, Segment};
use airtcp_tcp::config::RttSamples;
use airtcp_tcp::{profiles, Endpoint, TcpConfig};

fn sender(rtt_samples: RttSamples, timestamps: bool) -> (Endpoint, Instant) {
    // No tail loss probe: the first timer to fire is the RTO.
    established(TcpConfig { rtt_samples, sack: true, timestamps, tlp: false, ..plain() })
}

fn us(x: u64) -> Duration {
    Duration::from_micros(x)
}

fn srtt_us(ep: &Endpoint) -> u64 {
    ep.rtt().srtt().as_micros()
}

/// Sends four segments at `now`; returns the TSval of the first.
fn send_four(ep: &mut Endpoint, now: Instant) -> Option<u32> {
    ep.send(4_000);
    let segs = drain(ep, now);
    assert_eq!(segs.len(), 4);
    segs[0].timestamps.map(|(v, _)| v)
}

#[test]
fn linux_takes_a_sample_from_a_duplicate_ack_that_sacks_new_data() {
    let (mut ep, now) = sender(RttSamples::Linux, false);
    let before = srtt_us(&ep);
    assert_eq!(before, 100_000, "the handshake's 100 ms");
    send_four(&mut ep, now);
    // Segment 1 lost; the SACK of segment 2 arrives 60 ms after it left.
    sack(&mut ep, now + dms(60), 0, &[(1_000, 2_000)]);
    // tcp_rtt_estimator: srtt += (60 - 100) / 8.
    assert_eq!(srtt_us(&ep), 95_000);
    assert_eq!(ep.stats().rtt_samples, 2);
}

#[test]
fn rttm_takes_no_sample_from_a_duplicate_ack() {
    let (mut ep, now) = sender(RttSamples::Timestamps, false);
    send_four(&mut ep, now);
    sack(&mut ep, now + dms(60), 0, &[(1_000, 2_000)]);
    assert_eq!(srtt_us(&ep), 100_000);
    assert_eq!(ep.stats().rtt_samples, 1);
}

#[test]
fn linux_sacks_of_retransmitted_segments_are_no_sample() {
    let (mut ep, now) = sender(RttSamples::Linux, false);
    send_four(&mut ep, now);
    // The RTO resends segment 1; a SACK of it (Karn) gives nothing.
    let rto = fire(&mut ep);
    let resent = drain(&mut ep, rto);
    assert_eq!(our_off(&resent[0]), 0);
    let samples = ep.stats().rtt_samples;
    sack(&mut ep, rto + dms(30), 0, &[(0, 1_000)]);
    assert_eq!(ep.stats().rtt_samples, samples);
}

/// The ACK of the first segment, 40.6 ms after it left, echoing a TSval
/// 20 ticks older than the segment's.
fn ack_echoing_older(ep: &mut Endpoint, now: Instant, tsval: u32) {
    let seg = Segment { ack: our_seq(1_000), timestamps: Some((9, tsval - 20)), ..from_peer() };
    ep.handle_segment(now + us(40_600), &seg);
}

#[test]
fn linux_prefers_the_send_time_to_the_echoed_timestamp() {
    let (mut ep, now) = sender(RttSamples::Linux, true);
    let before = srtt_us(&ep);
    let tsval = send_four(&mut ep, now).expect("timestamps negotiated");
    ack_echoing_older(&mut ep, now, tsval);
    // 40.6 ms to the microsecond, not the echo's 60-61 ms.
    assert_eq!(srtt_us(&ep), before - (before - 40_600) / 8);
}

#[test]
fn rttm_uses_the_echoed_timestamp() {
    let (mut ep, now) = sender(RttSamples::Timestamps, true);
    let before = srtt_us(&ep);
    let tsval = send_four(&mut ep, now).expect("timestamps negotiated");
    ack_echoing_older(&mut ep, now, tsval);
    let sample = ep.rtt().srtt().as_micros() as i64 - before as i64;
    // srtt moved by (echo - srtt) / 8 with an echo of 60 or 61 ms.
    assert!([(60_000 - before as i64) / 8, (61_000 - before as i64) / 8].contains(&sample), "{sample}");
}

#[test]
fn linux_acking_a_retransmission_falls_back_to_the_echoed_timestamp() {
    let (mut ep, now) = sender(RttSamples::Linux, true);
    send_four(&mut ep, now);
    let rto = fire(&mut ep);
    let resent = drain(&mut ep, rto);
    let tsval = resent[0].timestamps.unwrap().0;
    let samples = ep.stats().rtt_samples;
    // The cumulative ACK covers the retransmission: no send-time sample
    // (Karn), so the echo of the retransmission's TSval, 30 ticks.
    let seg = Segment { ack: our_seq(1_000), timestamps: Some((9, tsval)), ..from_peer() };
    ep.handle_segment(rto + dms(30), &seg);
    assert_eq!(ep.stats().rtt_samples, samples + 1);
    // From the handshake's 100 ms: srtt += (30 - 100) / 8.
    assert_eq!(srtt_us(&ep), 91_250);
}

#[test]
fn linux_profiles_sample_like_linux_and_ns3_like_rfc_7323() {
    for p in ["linux", "linux-4.4", "linux-3.16"] {
        assert_eq!(profiles::config(p).unwrap().rtt_samples, RttSamples::Linux, "{p}");
    }
    for p in ["ns3", "opnet-2003", "rfc"] {
        assert_eq!(profiles::config(p).unwrap().rtt_samples, RttSamples::Timestamps, "{p}");
    }
}
