//! ECN (RFC 3168) as Linux negotiates and runs it (`net.ipv4.tcp_ecn`).
//!
//! The kernel path:
//! * SYN: `tcp_ecn_send_syn` sets ECE + CWR when `tcp_ecn = 1`; a
//!   retransmitted SYN loses them (`tcp_ecn_clear_syn`, `tcp_ecn_fallback`).
//! * Listener: `tcp_ecn_create_request` accepts a SYN with ECE + CWR that is
//!   not ECT whenever `tcp_ecn` is 1 or 2; `tcp_ecn_make_synack` answers
//!   with ECE alone. Client: `tcp_ecn_rcv_synack` keeps ECN only for
//!   ECE without CWR.
//! * `tcp_ecn_send`: ECT(0) on new data only (a retransmission is below
//!   `snd_nxt`; a pure ACK has no payload), CWR on the first new data after
//!   `tcp_ecn_queue_cwr`, ECE while `TCP_ECN_DEMAND_CWR`.
//! * `__tcp_ecn_check_ce`: CE sets DEMAND_CWR and quick-ACKs two segments;
//!   `tcp_ecn_accept_cwr` clears it on a data segment with CWR, ACKing at once.
//! * `tcp_ack`: ECE → FLAG_ECE → `tcp_fastretrans_alert` → `tcp_try_to_open`
//!   → `tcp_enter_cwr` (ssthresh hook, PRR via `tcp_cwnd_reduction` in
//!   `tcp_cong_control`); CWR ends once `snd_una` passes `high_seq`
//!   (`tcp_end_cwnd_reduction`: cwnd = ssthresh).
//!
//! Setup: MSS 1000, no SACK / timestamps (`plain`), IW 10, Reno, handshake
//! RTT 100 ms.
use crate::common;
use airtcp_core::{Ecn, Instant, Segment, SeqNum, TcpFlags};
use airtcp_tcp::cc::CaState;
use airtcp_tcp::{EcnMode, Endpoint, TcpConfig};
use common::*;

fn with(ecn: EcnMode) -> TcpConfig {
    TcpConfig { ecn, ..plain() }
}

fn drain_ecn(ep: &mut Endpoint, now: Instant) -> Vec<(Segment, Ecn)> {
    let mut v = Vec::new();
    while let Some(x) = ep.poll_transmit_ecn(now) {
        v.push(x);
        assert!(v.len() < 10_000);
    }
    v
}

/// Handshake between a client and a listener, segments handed over by
/// hand; returns both ends and the SYN / SYN-ACK flags seen.
fn handshake(client: TcpConfig, server: TcpConfig) -> (Endpoint, Endpoint, TcpFlags, TcpFlags) {
    let mut c = Endpoint::new(client, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    let mut s = Endpoint::new(server, REMOTE, LOCAL, SeqNum(PEER_ISS)).unwrap();
    s.listen();
    c.connect(ms(0));
    let (syn, syn_ecn) = c.poll_transmit_ecn(ms(0)).expect("SYN");
    assert_eq!(syn_ecn, Ecn::NotEct, "RFC 3168 §6.1.1: a SYN is never ECT");
    s.handle_segment_ecn(ms(50), &syn, syn_ecn);
    let (synack, synack_ecn) = s.poll_transmit_ecn(ms(50)).expect("SYN-ACK");
    assert_eq!(synack_ecn, Ecn::NotEct);
    c.handle_segment_ecn(ms(100), &synack, synack_ecn);
    let (ack, _) = c.poll_transmit_ecn(ms(100)).expect("ACK");
    s.handle_segment_ecn(ms(150), &ack, Ecn::NotEct);
    (c, s, syn.flags, synack.flags)
}

const ECE_CWR: TcpFlags = TcpFlags(TcpFlags::ECE.0 | TcpFlags::CWR.0);

#[test]
fn ecn_negotiated_when_both_sides_enable() {
    let (mut c, mut s, syn, synack) = handshake(with(EcnMode::On), with(EcnMode::On));
    assert!(syn.contains(TcpFlags::SYN | ECE_CWR));
    assert!(synack.contains(TcpFlags::ECE) && !synack.contains(TcpFlags::CWR));
    assert!(c.ecn_enabled() && s.ecn_enabled());
    // New data is ECT(0); the receiver's pure ACK is not.
    c.send(3_000);
    let out = drain_ecn(&mut c, ms(100));
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|(seg, e)| *e == Ecn::Ect0 && !seg.flags.contains(TcpFlags::ECE)));
    for (seg, e) in &out {
        s.handle_segment_ecn(ms(150), seg, *e);
    }
    let acks = drain_ecn(&mut s, ms(150));
    assert!(!acks.is_empty());
    assert!(acks.iter().all(|(seg, e)| *e == Ecn::NotEct && seg.payload_len == 0));
}

#[test]
fn ecn_mode2_accepts_but_does_not_request() {
    // Passive client: no request, so no ECN even with an `on` listener.
    let (c, s, syn, synack) = handshake(with(EcnMode::Passive), with(EcnMode::On));
    assert!(!syn.contains(TcpFlags::ECE) && !syn.contains(TcpFlags::CWR));
    assert!(!synack.contains(TcpFlags::ECE));
    assert!(!c.ecn_enabled() && !s.ecn_enabled());
    // Passive listener: accepts an `on` client.
    let (c, s, _, synack) = handshake(with(EcnMode::On), with(EcnMode::Passive));
    assert!(synack.contains(TcpFlags::ECE));
    assert!(c.ecn_enabled() && s.ecn_enabled());
    // Two Linux-default ends never use ECN (the kernel default).
    assert_eq!(TcpConfig::default().ecn, EcnMode::Passive);
    let (c, s, _, _) = handshake(plain(), plain());
    assert!(!c.ecn_enabled() && !s.ecn_enabled());
    // An `off` listener refuses; the client falls back.
    let (c, s, _, synack) = handshake(with(EcnMode::On), with(EcnMode::Off));
    assert!(!synack.contains(TcpFlags::ECE));
    assert!(!c.ecn_enabled() && !s.ecn_enabled());
}

/// `tcp_ecn_rcv_synack`: ECE + CWR on a SYN-ACK is a reflected SYN, not
/// an acceptance; `tcp_ecn_create_request`: an ECT SYN is refused.
#[test]
fn reflected_synack_and_ect_syn_do_not_negotiate() {
    let mut c = Endpoint::new(with(EcnMode::On), LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    c.connect(ms(0));
    let syn = c.poll_transmit(ms(0)).unwrap();
    let synack = Segment {
        seq: SeqNum(PEER_ISS),
        ack: syn.seq + 1,
        flags: TcpFlags::SYN | TcpFlags::ACK | ECE_CWR,
        mss: Some(1000),
        ..from_peer()
    };
    c.handle_segment(ms(100), &synack);
    assert!(!c.ecn_enabled());

    let mut s = Endpoint::new(with(EcnMode::On), LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    s.listen();
    let syn = Segment { seq: SeqNum(PEER_ISS), ack: SeqNum(0), flags: TcpFlags::SYN | ECE_CWR, mss: Some(1000), ..from_peer() };
    s.handle_segment_ecn(ms(0), &syn, Ecn::Ect0);
    let synack = s.poll_transmit(ms(0)).unwrap();
    assert!(!synack.flags.contains(TcpFlags::ECE));
    assert!(!s.ecn_enabled());
}

/// `tcp_ecn_clear_syn`: the retransmitted SYN carries no ECE / CWR (a
/// middlebox may have dropped the first for them); a SYN-ACK with ECE (to
/// the first SYN) still enables ECN, since `TCP_ECN_OK` stays set.
#[test]
fn syn_retransmission_drops_ece_and_cwr() {
    let mut c = Endpoint::new(with(EcnMode::On), LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    c.connect(ms(0));
    let syn = c.poll_transmit(ms(0)).unwrap();
    assert!(syn.flags.contains(ECE_CWR));
    let t = fire(&mut c);
    let again = c.poll_transmit(t).unwrap();
    assert!(again.flags.syn());
    assert!(!again.flags.contains(TcpFlags::ECE) && !again.flags.contains(TcpFlags::CWR));
    let synack = Segment {
        seq: SeqNum(PEER_ISS),
        ack: syn.seq + 1,
        flags: TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE,
        mss: Some(1000),
        ..from_peer()
    };
    c.handle_segment(t + dms(100), &synack);
    assert!(c.ecn_enabled());
}

/// An ECN receiver (passive end) after the handshake.
fn ecn_receiver() -> (Endpoint, Instant) {
    let mut ep = Endpoint::new(with(EcnMode::Passive), LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.listen();
    let syn = Segment { seq: SeqNum(PEER_ISS), ack: SeqNum(0), flags: TcpFlags::SYN | ECE_CWR, mss: Some(1000), ..from_peer() };
    ep.handle_segment(ms(0), &syn);
    let synack = ep.poll_transmit(ms(0)).expect("SYN-ACK");
    assert_eq!(synack.flags, TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE);
    ep.handle_segment(ms(10), &from_peer());
    assert!(ep.ecn_enabled());
    events(&mut ep);
    (ep, ms(10))
}

fn peer_data(ep: &mut Endpoint, now: Instant, off: u64, ecn: Ecn, flags: TcpFlags) -> Vec<Segment> {
    let seg = Segment { seq: peer_seq(off), payload_len: 1000, flags: TcpFlags::ACK | flags, ..from_peer() };
    ep.handle_segment_ecn(now, &seg, ecn);
    drain(ep, now)
}

/// Delayed ACKs every second segment (`delack_count = 2`, no initial
/// quick ACKs). A CE segment is ACKed at once with ECE and so is the next
/// (quick-ACK mode of two, `tcp_enter_quickack_mode(sk, 2)`); ECE stays on
/// every ACK until a data segment with CWR, which is ACKed at once without
/// it. A later CE starts a new echo.
#[test]
fn ce_mark_makes_receiver_echo_ece_until_cwr() {
    let (mut ep, t) = ecn_receiver();
    assert!(peer_data(&mut ep, t, 0, Ecn::Ect0, TcpFlags::NONE).is_empty(), "first segment: delayed ACK");
    let a = peer_data(&mut ep, t, 1_000, Ecn::Ce, TcpFlags::NONE);
    assert_eq!(a.len(), 1);
    assert!(a[0].flags.contains(TcpFlags::ECE));
    let a = peer_data(&mut ep, t, 2_000, Ecn::Ect0, TcpFlags::NONE);
    assert_eq!(a.len(), 1, "second quick ACK");
    assert!(a[0].flags.contains(TcpFlags::ECE));
    assert!(peer_data(&mut ep, t, 3_000, Ecn::Ect0, TcpFlags::NONE).is_empty(), "quick ACKs used up");
    let a = peer_data(&mut ep, t, 4_000, Ecn::Ect0, TcpFlags::NONE);
    assert!(a.len() == 1 && a[0].flags.contains(TcpFlags::ECE), "the echo repeats until CWR");
    let a = peer_data(&mut ep, t, 5_000, Ecn::Ect0, TcpFlags::CWR);
    assert_eq!(a.len(), 1, "CWR is ACKed at once");
    assert!(!a[0].flags.contains(TcpFlags::ECE));
    assert!(peer_data(&mut ep, t, 6_000, Ecn::Ect0, TcpFlags::NONE).is_empty());
    let a = peer_data(&mut ep, t, 7_000, Ecn::Ect0, TcpFlags::NONE);
    assert!(a.len() == 1 && !a[0].flags.contains(TcpFlags::ECE));
    let a = peer_data(&mut ep, t, 8_000, Ecn::Ce, TcpFlags::NONE);
    assert!(a.len() == 1 && a[0].flags.contains(TcpFlags::ECE));
    assert_eq!(ep.stats().ecn_ce_received, 2);
}

/// Without negotiation a CE mark means nothing to TCP (`tcp_ecn_check_ce`
/// tests `TCP_ECN_OK`).
#[test]
fn ce_ignored_without_negotiation() {
    let (mut ep, t) = established_receiver(plain());
    assert!(peer_data(&mut ep, t, 0, Ecn::Ce, TcpFlags::NONE).is_empty());
    let a = peer_data(&mut ep, t, 1_000, Ecn::Ce, TcpFlags::NONE);
    assert!(a.len() == 1 && !a[0].flags.contains(TcpFlags::ECE));
    assert_eq!(ep.stats().ecn_ce_received, 0);
}

/// An ECN sender (active end, `ecn = on`) whose peer accepted.
fn ecn_sender(cfg: TcpConfig) -> (Endpoint, Instant) {
    let mut ep = Endpoint::new(TcpConfig { ecn: EcnMode::On, ..cfg }, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.connect(ms(0));
    let syn = ep.poll_transmit(ms(0)).expect("SYN");
    let synack = Segment {
        seq: SeqNum(PEER_ISS),
        ack: syn.seq + 1,
        flags: TcpFlags::SYN | TcpFlags::ACK | TcpFlags::ECE,
        mss: Some(1000),
        ..from_peer()
    };
    ep.handle_segment(ms(100), &synack);
    ep.poll_transmit(ms(100)).expect("ACK of SYN-ACK");
    assert!(ep.ecn_enabled());
    events(&mut ep);
    (ep, ms(100))
}

fn ack_ece(ep: &mut Endpoint, now: Instant, acked: u64, ece: bool) {
    let flags = if ece { TcpFlags::ACK | TcpFlags::ECE } else { TcpFlags::ACK };
    let seg = Segment { ack: our_seq(acked), flags, ..from_peer() };
    ep.handle_segment(now, &seg);
}

/// Ten segments out (IW 10). The ACK of two echoes ECE: CWR with ssthresh
/// = Reno's max(10/2, 2) = 5 taken before `cong_control`, and PRR gives
/// cwnd = in_flight 8 + ceil(5·2/10) = 9, so one new segment goes out,
/// ECT(0) with CWR. More ECEs in the same window change nothing. The ACK
/// of exactly `high_seq` (all ten) keeps CWR; the next one, covering the
/// CWR segment, ends it with cwnd = ssthresh.
#[test]
fn ece_enters_cwr_once_per_window_and_sets_cwr_flag() {
    let (mut ep, t) = ecn_sender(plain());
    ep.send(1_000_000);
    let out = drain_ecn(&mut ep, t);
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|(s, e)| *e == Ecn::Ect0 && !s.flags.contains(TcpFlags::CWR)));

    let t1 = t + dms(100);
    ack_ece(&mut ep, t1, 2_000, true);
    assert_eq!(ep.probe().ca_state, CaState::Cwr);
    assert_eq!((ep.probe().ssthresh, ep.probe().cwnd), (5, 9));
    assert_eq!((ep.stats().ecn_ece_received, ep.stats().cwr_reductions), (1, 1));
    let out = drain_ecn(&mut ep, t1);
    assert_eq!(out.len(), 1);
    assert_eq!(our_off(&out[0].0), 10_000);
    assert!(out[0].0.flags.contains(TcpFlags::CWR) && out[0].1 == Ecn::Ect0);

    // Same window, more echoes: no second reduction, no second CWR flag.
    for k in 3..=6 {
        ack_ece(&mut ep, t1 + dms(k), k * 1_000, true);
        assert_eq!(ep.probe().ca_state, CaState::Cwr);
        assert_eq!(ep.probe().ssthresh, 5);
        for (s, e) in drain_ecn(&mut ep, t1 + dms(k)) {
            assert!(!s.flags.contains(TcpFlags::CWR) && e == Ecn::Ect0);
        }
    }
    assert_eq!((ep.stats().ecn_ece_received, ep.stats().cwr_reductions, ep.stats().cwr_sent), (5, 1, 1));
    // PRR: 6 segments delivered since entry allow ceil(5·6/10) = 3 sent;
    // 3 were, 7 remain in flight, so cwnd = 7.
    assert_eq!(ep.probe().cwnd, 7);

    // snd_una == high_seq: CWR holds (the CWR segment is not yet ACKed).
    ack_ece(&mut ep, t1 + dms(20), 10_000, false);
    assert_eq!(ep.probe().ca_state, CaState::Cwr);
    drain(&mut ep, t1 + dms(20));
    ack_ece(&mut ep, t1 + dms(30), 11_000, false);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.probe().cwnd, 5, "tcp_end_cwnd_reduction: cwnd = ssthresh");

    // A later ECE is a new window: a second reduction.
    drain(&mut ep, t1 + dms(30));
    ack_ece(&mut ep, t1 + dms(130), 12_000, true);
    assert_eq!(ep.probe().ca_state, CaState::Cwr);
    assert_eq!(ep.stats().cwr_reductions, 2);
}

/// Fast retransmission and RTO retransmissions are Not-ECT (RFC 3168
/// §6.1.5; `tcp_ecn_send` marks only seq >= snd_nxt); the reduction queues
/// CWR, which rides on the first *new* segment, not on the retransmission.
#[test]
fn retransmissions_not_ect() {
    let (mut ep, t) = ecn_sender(plain());
    ep.send(1_000_000);
    assert_eq!(drain_ecn(&mut ep, t).len(), 10);
    // Segment 0 lost: three dupacks.
    let t1 = t + dms(100);
    for _ in 0..3 {
        ack_ece(&mut ep, t1, 0, false);
    }
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    let out = drain_ecn(&mut ep, t1);
    assert_eq!(our_off(&out[0].0), 0);
    assert_eq!(out[0].1, Ecn::NotEct, "fast retransmission");
    assert!(!out[0].0.flags.contains(TcpFlags::CWR));
    // Further dupacks release new data (PRR): ECT(0), the first with CWR.
    let mut new = Vec::new();
    for k in 1..=6 {
        ack_ece(&mut ep, t1 + dms(k), 0, false);
        new.extend(drain_ecn(&mut ep, t1 + dms(k)));
    }
    assert!(new.len() >= 2, "{new:?}");
    assert!(new.iter().all(|(s, e)| our_off(s) >= 10_000 && *e == Ecn::Ect0));
    assert!(new[0].0.flags.contains(TcpFlags::CWR));
    assert!(new[1..].iter().all(|(s, _)| !s.flags.contains(TcpFlags::CWR)));
    // The retransmission is lost too: the RTO resends it, Not-ECT again.
    let rto = fire(&mut ep);
    let out = drain_ecn(&mut ep, rto);
    assert_eq!(our_off(&out[0].0), 0);
    assert_eq!(out[0].1, Ecn::NotEct, "RTO retransmission");
}

/// An ECE on an ACK that also starts fast recovery (`tcp_enter_recovery`
/// with `ece_ack`): one reduction, and no undo (prior_ssthresh = 0), even
/// when the retransmission proves needless.
#[test]
fn ece_then_loss_in_same_window_reduces_once() {
    let (mut ep, t) = ecn_sender(plain());
    ep.send(1_000_000);
    drain(&mut ep, t);
    let t1 = t + dms(100);
    ack_ece(&mut ep, t1, 1_000, true);
    assert_eq!((ep.probe().ca_state, ep.probe().ssthresh), (CaState::Cwr, 5));
    drain(&mut ep, t1);
    for k in 0..3 {
        ack_ece(&mut ep, t1 + dms(k + 1), 1_000, true);
    }
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.probe().ssthresh, 5, "CWR's reduction stands, no second halving");
    assert_eq!(ep.sock().prior_ssthresh, 0);
    assert_eq!(ep.stats().cwr_reductions, 1);
}

#[test]
fn ns3_profile_has_no_ecn() {
    assert_eq!(TcpConfig::ns3().ecn, EcnMode::Off);
    assert_eq!(TcpConfig { ecn: EcnMode::On, ..plain() }.with_ns3_behaviour().ecn, EcnMode::Off);
    let ns3 = TcpConfig { mss: 1000, ..TcpConfig::ns3() };
    let (c, s, syn, synack) = handshake(ns3.clone(), with(EcnMode::On));
    assert!(!syn.contains(TcpFlags::ECE));
    assert!(!synack.contains(TcpFlags::ECE));
    assert!(!c.ecn_enabled() && !s.ecn_enabled());
    let (c, s, _, synack) = handshake(with(EcnMode::On), ns3);
    assert!(!synack.contains(TcpFlags::ECE));
    assert!(!c.ecn_enabled() && !s.ecn_enabled());
}

#[test]
fn ecn_mode_names_and_sysctl_values() {
    for (s, m) in [("0", EcnMode::Off), ("on", EcnMode::On), ("2", EcnMode::Passive), ("passive", EcnMode::Passive)] {
        assert_eq!(EcnMode::from_name(s), Ok(m));
    }
    assert_eq!(EcnMode::from_sysctl(1), Ok(EcnMode::On));
    assert!(EcnMode::from_sysctl(3).unwrap_err().contains("ecn = 3"));
    assert!(EcnMode::from_name("yes").unwrap_err().contains("ecn"));
}

/// Without PRR (`recovery = "newreno"`, no SACK: RFC 5681/6582 with window
/// inflation) there is no gradual reduction to lean on: RFC 3168 §6.1.2's
/// response, cwnd = ssthresh = half at once, no growth until CWR ends.
#[test]
fn ece_without_prr_halves_cwnd_at_once() {
    let (mut ep, t) = ecn_sender(TcpConfig { recovery: airtcp_tcp::Recovery::NewReno, ..plain() });
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, t).len(), 10);
    ack_ece(&mut ep, t + dms(100), 2_000, true);
    assert_eq!(ep.probe().ca_state, CaState::Cwr);
    assert_eq!((ep.probe().ssthresh, ep.probe().cwnd), (5, 5));
    // 8 in flight, cwnd 5: nothing new until the flight drains below 5.
    assert!(drain(&mut ep, t + dms(100)).is_empty());
    ack_ece(&mut ep, t + dms(101), 6_000, false);
    assert_eq!(ep.probe().cwnd, 5, "no growth in CWR");
    let out = drain_ecn(&mut ep, t + dms(101));
    assert_eq!(out.len(), 1);
    assert!(out[0].0.flags.contains(TcpFlags::CWR));
}
