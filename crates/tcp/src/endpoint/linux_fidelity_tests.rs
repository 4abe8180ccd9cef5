//! Regression tests for places where the endpoint must do what Linux's
//! `tcp_ack` / `tcp_xmit_retransmit_queue` do for the modules to behave as
//! in the kernel: the `snd_una` an `in_ack_event` hook sees, and when the
//! retransmission timer restarts under `RtoTimer::Linux`.

use std::sync::{Arc, Mutex};

use airtcp_core::{Duration, Instant, Segment, SeqNum, TcpFlags};

use super::{Endpoint, TimerKind};
use crate::cc::{CongestionControl, CongestionOps, TcpSock};
use crate::config::{RtoTimer, TcpConfig};

const ISS: u32 = 1_000;
const PEER_ISS: u32 = 5_000;

fn cfg(rto_timer: RtoTimer) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        sack: false,
        timestamps: false,
        window_scaling: false,
        rcv_buf: 65_535,
        snd_buf: 1 << 20,
        min_rto: Duration::from_millis(200),
        rto_timer,
        ..Default::default()
    }
}

fn peer(ack_off: u64) -> Segment {
    Segment {
        src_port: 80,
        dst_port: 40_000,
        seq: SeqNum(PEER_ISS + 1),
        ack: SeqNum(ISS + 1) + ack_off as u32,
        flags: TcpFlags::ACK,
        window: 65_535,
        ..Default::default()
    }
}

/// Established after a 100 ms handshake RTT (sample 100 ms).
fn established(cfg: TcpConfig, cc: Option<CongestionControl>) -> (Endpoint, Instant) {
    let mut ep = Endpoint::new(cfg, 40_000, 80, SeqNum(ISS)).unwrap();
    if let Some(cc) = cc {
        ep.set_congestion_control(cc);
    }
    ep.connect(Instant::ZERO);
    let syn = ep.poll_transmit(Instant::ZERO).unwrap();
    let now = Instant::from_millis(100);
    let synack = Segment { seq: SeqNum(PEER_ISS), ack: syn.seq + 1, flags: TcpFlags::SYN | TcpFlags::ACK, mss: Some(1000), ..peer(0) };
    ep.handle_segment(now, &synack);
    while ep.poll_transmit(now).is_some() {}
    (ep, now)
}

fn drain(ep: &mut Endpoint, now: Instant) -> Vec<u64> {
    let mut v = Vec::new();
    while let Some(s) = ep.poll_transmit(now) {
        v.push((s.seq - SeqNum(ISS + 1)) as u64);
    }
    v
}

/// Records `tp.snd_una` as each hook sees it.
struct SeeUna(Arc<Mutex<Vec<(&'static str, u32)>>>);

impl CongestionOps for SeeUna {
    fn name(&self) -> &'static str {
        "see-una"
    }
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        tp.snd_cwnd / 2
    }
    fn cong_avoid(&mut self, _tp: &mut TcpSock, _ack: u32, _acked: u32) {}
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tp.snd_cwnd
    }
    fn in_ack_event(&mut self, tp: &mut TcpSock, _flags: u32) {
        self.0.lock().unwrap().push(("in_ack_event", tp.snd_una.wrapping_sub(ISS + 1)));
    }
    fn pkts_acked(&mut self, tp: &mut TcpSock, _s: &crate::cc::AckSample) {
        self.0.lock().unwrap().push(("pkts_acked", tp.snd_una.wrapping_sub(ISS + 1)));
    }
}

/// Linux `tcp_ack` moves snd_una (`tcp_snd_una_update`) before
/// `tcp_in_ack_event`; Westwood+ counts the bytes of an ACK as
/// `tp->snd_una - w->snd_una` there. Before the fix the hook saw the
/// previous ACK's snd_una, so every first ACK after a loss counted as a
/// duplicate and the cumulative jump went uncounted against `accounted`.
#[test]
fn in_ack_event_sees_the_new_snd_una() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let cc = CongestionControl::Custom(Box::new(SeeUna(seen.clone())));
    let (mut ep, now) = established(cfg(RtoTimer::Rfc6298), Some(cc));
    seen.lock().unwrap().clear();
    ep.send(4000);
    assert_eq!(drain(&mut ep, now), vec![0, 1000, 2000, 3000]);
    let t = now + Duration::from_millis(100);
    ep.handle_segment(t, &peer(2000));
    ep.handle_segment(t, &peer(2000)); // duplicate: snd_una stays
    ep.handle_segment(t, &peer(4000));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            ("in_ack_event", 2000),
            ("pkts_acked", 2000),
            ("in_ack_event", 2000),
            ("in_ack_event", 4000),
            ("pkts_acked", 4000)
        ]
    );
}

/// Ten segments out at `now`, three duplicate ACKs 150 ms later: the third
/// retransmits the head. Returns the RTO deadline right after it.
fn rto_after_fast_retransmit(timer: RtoTimer) -> (Instant, Option<Instant>, Vec<u64>) {
    let (mut ep, now) = established(cfg(timer), None);
    ep.send(100_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let t = now + Duration::from_millis(150);
    let mut sent = Vec::new();
    for _ in 0..3 {
        ep.handle_segment(t, &peer(0));
        sent.extend(drain(&mut ep, t));
    }
    (now, ep.timer(TimerKind::Rto), sent)
}

/// RFC 6298 §5.1/§5.3: only the first transmission and ACKs of new data
/// (re)start the timer, so it still runs from the original send. Linux
/// `tcp_xmit_retransmit_queue` restarts it when the head is retransmitted.
/// Handshake sample 100 ms: RFC RTO = 100 + 4·50 = 300 ms; Linux RTO =
/// 100 + max(2·100, TCP_RTO_MIN 200) = 300 ms as well.
#[test]
fn head_retransmission_restarts_the_timer_only_under_linux() {
    // Limited transmit sends 10000 and 11000 on the first two dupacks.
    let (now, rfc, sent) = rto_after_fast_retransmit(RtoTimer::Rfc6298);
    assert_eq!(sent, vec![10_000, 11_000, 0]);
    assert_eq!(rfc, Some(now + Duration::from_millis(300)));
    let (now, linux, sent) = rto_after_fast_retransmit(RtoTimer::Linux);
    assert_eq!(sent, vec![10_000, 11_000, 0]);
    assert_eq!(linux, Some(now + Duration::from_millis(150 + 300)));
}
