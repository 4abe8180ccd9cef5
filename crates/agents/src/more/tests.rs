//! MORE on small graphs whose ETX, z and credits are worked out by hand,
//! and a batch carried over a lossy three-node line with real bytes.

use airtcp_coding::Symbol;
use airtcp_core::{CodeVector, Coded, CodedKind, RngStream};

use super::*;

const S: usize = 0;
const R: usize = 1;
const D: usize = 2;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

/// S —0.7→ R —0.6→ D, and S —0.1→ D directly.
fn line() -> LinkProbs {
    let mut l = LinkProbs::new(3);
    l.set_symmetric(S, R, 0.7).unwrap();
    l.set_symmetric(R, D, 0.6).unwrap();
    l.set_symmetric(S, D, 0.1).unwrap();
    l
}

#[test]
fn line_etx_order_z_and_credit_match_hand_values() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    // ETX: R = 1/0.6; S = min(1/0.1, 1/0.7 + 1/0.6).
    assert!(close(plan.etx(R), 1.0 / 0.6));
    assert!(close(plan.etx(S), 1.0 / 0.7 + 1.0 / 0.6));
    assert_eq!(plan.order(), &[S, R, D]);
    // z_S = 1/(1 − ε_SD ε_SR) = 1/(1 − 0.9·0.3); L_R = z_S·0.7·0.9; z_R = L_R/0.6.
    let z_s = 1.0 / 0.73;
    assert!(close(plan.z(S), z_s));
    assert!(close(plan.z(R), z_s * 0.63 / 0.6));
    // TX_credit_R = z_R / (z_S·p_SR) = 1.05 / 0.7.
    assert!(close(plan.tx_credit(R), 1.5));
    assert!(plan.is_forwarder(R) && !plan.is_forwarder(S) && !plan.is_forwarder(D));
    assert!(plan.is_upstream(S, R) && !plan.is_upstream(D, R) && !plan.is_upstream(R, R));
}

/// S reaches A (0.8), B (0.6) and D (0.2); A → D 0.7, B → D 0.5.
fn diamond() -> LinkProbs {
    const A: usize = 1;
    const B: usize = 2;
    const DD: usize = 3;
    let mut l = LinkProbs::new(4);
    l.set(S, A, 0.8).unwrap();
    l.set(S, B, 0.6).unwrap();
    l.set(S, DD, 0.2).unwrap();
    l.set(A, DD, 0.7).unwrap();
    l.set(B, DD, 0.5).unwrap();
    l
}

#[test]
fn diamond_prunes_the_weak_forwarder_of_all_transmissions() {
    // Before pruning (order D < A < B < S by ETX 0, 1.43, 2, 2.68):
    // z_S = 1/(1 − 0.8·0.2·0.4) = 1/0.936; z_B = z_S·0.6·(0.8·0.2)/0.5 ≈ 0.2051;
    // z_A = z_S·0.8·0.8/0.7 ≈ 0.9768; Σz ≈ 2.2503, 10 % ≈ 0.225 > z_B: B goes.
    let plan = ForwarderPlan::compute(&diamond(), S, 3, &PlanConfig::default()).unwrap();
    assert_eq!(plan.pruned(), &[2]);
    assert_eq!(plan.order(), &[S, 1, 3]);
    // Recomputed without B: z_S = 1/(1 − 0.8·0.2) = 1/0.84; z_A = z_S·0.8·0.8/0.7;
    // TX_credit_A = z_A / (z_S·0.8) = 0.8/0.7.
    assert!(close(plan.z(S), 1.0 / 0.84));
    assert!(close(plan.z(1), 0.64 / 0.84 / 0.7));
    assert!(close(plan.tx_credit(1), 0.8 / 0.7));
    assert_eq!(plan.z(2), 0.0);
}

#[test]
fn diamond_keeps_the_weak_forwarder_against_the_source_basis() {
    // 10 % of z_S ≈ 0.107 < z_B ≈ 0.205: B stays under issue 11's wording.
    let cfg = PlanConfig { prune_basis: PruneBasis::Source, ..PlanConfig::default() };
    let plan = ForwarderPlan::compute(&diamond(), S, 3, &cfg).unwrap();
    assert!(plan.pruned().is_empty());
    assert_eq!(plan.order(), &[S, 2, 1, 3]);
    let z_s = 1.0 / 0.936;
    assert!(close(plan.z(2), z_s * 0.6 * 0.16 / 0.5));
    assert!(close(plan.z(1), z_s * 0.8 * 0.8 / 0.7));
    // TX_credit_B = z_B / (z_S·0.6); A hears S and (not at all) B.
    assert!(close(plan.tx_credit(2), 0.16 / 0.5));
    assert!(close(plan.tx_credit(1), (z_s * 0.64 / 0.7) / (z_s * 0.8)));
}

#[test]
fn batch_ack_route_is_the_minimum_etx_path() {
    let l = line();
    // D → S: via R costs 1/0.6 + 1/0.7 ≈ 3.10, direct 1/0.1 = 10.
    assert_eq!(l.shortest_path(D, S), Some(vec![D, R, S]));
    assert_eq!(l.shortest_path(S, S), Some(vec![S]));
    let mut cut = LinkProbs::new(3);
    cut.set(S, R, 1.0).unwrap();
    assert_eq!(cut.shortest_path(R, S), None);
    assert_eq!(cut.shortest_path(0, 7), None);
}

#[test]
fn plan_errors_name_the_problem() {
    let mut l = LinkProbs::new(3);
    assert_eq!(l.set(0, 3, 0.5).unwrap_err().to_string(), "node 3 does not exist (the network has 3)");
    assert_eq!(l.set(0, 1, 1.5).unwrap_err().to_string(), "delivery probability 1.5 of link 0->1 is outside [0, 1]");
    l.set(0, 1, 0.5).unwrap();
    let e = ForwarderPlan::compute(&l, 0, 2, &PlanConfig::default()).unwrap_err();
    assert_eq!(e.to_string(), "node 2 cannot be reached from node 0");
    assert_eq!(ForwarderPlan::compute(&l, 1, 1, &PlanConfig::default()).unwrap_err(), PlanError::SameNode { node: 1 });
}

/// Credit (to 1e-9; TX_credit is 1.5 up to rounding) and rank of a batch.
fn state(f: &MoreForwarder, batch: u32) -> Option<(f64, usize)> {
    f.batch_state(batch).map(|(c, r)| ((c * 1e9).round() / 1e9, r))
}

fn cfg(beta: usize, symbol_len: usize) -> MoreConfig {
    MoreConfig { beta, symbol_len, max_batches: 1 }
}

fn data(batch: u32, code: &[u8]) -> Coded {
    Coded { kind: CodedKind::Data, flow: 1, batch, tag: 0, code: CodeVector::from_slice(code).unwrap(), payload_len: 0 }
}

#[test]
fn forwarder_earns_credit_from_upstream_only_and_spends_one_per_packet() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    let mut f = MoreForwarder::new(1, R, &plan, cfg(4, 0), RngStream::new(1, "fwd")).unwrap();
    let mut out = Symbol::new(4, 0);
    assert_eq!(f.handle_coded(S, &data(0, &[1, 0, 0, 0]), None), Ok(Rx::Innovative));
    assert_eq!(state(&f, 0), Some((1.5, 1)));
    // From downstream: stored if innovative, but no credit.
    assert_eq!(f.handle_coded(D, &data(0, &[0, 1, 0, 0]), None), Ok(Rx::Innovative));
    assert_eq!(state(&f, 0), Some((1.5, 2)));
    // Redundant from upstream still earns credit (MORE counts receptions).
    assert_eq!(f.handle_coded(S, &data(0, &[1, 1, 0, 0]), None), Ok(Rx::Redundant));
    assert_eq!(state(&f, 0), Some((3.0, 2)));
    let p = f.poll_transmit(&mut out).unwrap();
    assert_eq!((p.batch, p.code.len()), (0, 4));
    assert_eq!(&p.code.as_slice()[2..], &[0, 0], "recoded from what R holds");
    assert!(f.poll_transmit(&mut out).is_some());
    assert!(f.poll_transmit(&mut out).is_some());
    assert!(f.poll_transmit(&mut out).is_none(), "3.0 credits buy three packets");
    assert_eq!(state(&f, 0), Some((0.0, 2)));
    // Half a credit more is not enough for a fourth.
    f.handle_coded(S, &data(0, &[0, 0, 1, 0]), None).unwrap();
    assert_eq!(state(&f, 0), Some((1.5, 3)));
    assert!(f.poll_transmit(&mut out).is_some());
    assert!(f.poll_transmit(&mut out).is_none());
    assert_eq!(f.counters()[4], ("coded_sent", 4));
}

#[test]
fn forwarder_flushes_on_ack_and_on_a_newer_batch() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    let mut f = MoreForwarder::new(1, R, &plan, cfg(4, 0), RngStream::new(1, "fwd")).unwrap();
    f.handle_coded(S, &data(0, &[1, 0, 0, 0]), None).unwrap();
    f.handle_coded(S, &data(1, &[0, 1, 0, 0]), None).unwrap();
    assert_eq!(state(&f, 0), None, "batch 1 crowded batch 0 out");
    assert_eq!(f.handle_coded(S, &data(0, &[0, 0, 1, 0]), None), Ok(Rx::Stale));
    let ack = Coded { kind: CodedKind::BatchAck, ..data(1, &[]) };
    f.handle_ack(&ack).unwrap();
    assert_eq!(state(&f, 1), None);
    assert_eq!(f.handle_coded(S, &data(1, &[1, 1, 1, 1]), None), Ok(Rx::Stale));
    let c = f.counters();
    assert_eq!(c[2], ("stale", 2));
    assert_eq!(c[5], ("batches_flushed", 2));
}

#[test]
fn malformed_packets_are_counted_never_panic() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    let mut f = MoreForwarder::new(1, R, &plan, cfg(4, 8), RngStream::new(1, "fwd")).unwrap();
    f.handle_coded(S, &data(0, &[1, 2, 3, 4]), Some(&[0; 8])).unwrap();
    // Wrong vector length for the batch, empty vector, too long, bad payload, other flow.
    assert!(matches!(f.handle_coded(S, &data(0, &[1, 2]), Some(&[0; 8])), Err(MoreError::Codec(_))));
    assert!(f.handle_coded(S, &data(1, &[]), Some(&[0; 8])).is_err());
    assert!(f.handle_coded(S, &data(1, &[1; 5]), Some(&[0; 8])).is_err());
    assert!(f.handle_coded(S, &data(0, &[1, 1, 1, 1]), Some(&[0; 3])).is_err());
    assert!(f.handle_coded(S, &data(0, &[1, 1, 1, 1]), None).is_err());
    assert_eq!(f.handle_coded(S, &Coded { flow: 9, ..data(0, &[1, 1, 1, 1]) }, Some(&[0; 8])), Err(MoreError::WrongFlow { expected: 1, found: 9 }));
    assert_eq!(f.counters()[3], ("malformed", 6));
    assert_eq!(state(&f, 0), Some((1.5, 1)), "state untouched by the refused packets");
    let mut d = MoreDestination::new(1, cfg(4, 8)).unwrap();
    assert!(d.handle_coded(&data(0, &[1; 9]), Some(&[0; 8])).is_err());
    assert_eq!(d.counters()[2], ("malformed", 1));
}

/// A batch of real bytes over the lossy line: S broadcasts, R recodes on
/// credit, D decodes and ACKs; the ACK (reliable unicast) reaches S and R.
#[test]
fn batch_crosses_a_lossy_three_node_line() {
    const BETA: usize = 32;
    const LEN: usize = 200;
    let links = line();
    let plan = ForwarderPlan::compute(&links, S, D, &PlanConfig::default()).unwrap();
    let c = MoreConfig { beta: BETA, symbol_len: LEN, max_batches: 1 };
    let mut src = MoreSource::new(1, c, RngStream::new(42, "more.src")).unwrap();
    let mut fwd = MoreForwarder::new(1, R, &plan, c, RngStream::new(42, "more.fwd")).unwrap();
    let mut dst = MoreDestination::new(1, c).unwrap();
    let mut channel = RngStream::new(42, "channel");
    let natives: Vec<Vec<u8>> = (0..2 * BETA).map(|i| (0..LEN).map(|j| (i * 7 + j) as u8).collect()).collect();
    let mut next = 0;
    let (mut out, mut sends) = (Symbol::new(BETA, LEN), [0u32; 2]);
    let mut delivered = Vec::new();
    for _slot in 0..2000 {
        while src.can_push() && next < natives.len() {
            src.push_native(Some(&natives[next])).unwrap();
            next += 1;
        }
        // The MAC alternates: the forwarder sends when it has credit, else the source.
        let (from, pkt) = match fwd.poll_transmit(&mut out) {
            Some(p) => (R, p),
            None => match src.poll_transmit(&mut out) {
                Some(p) => (S, p),
                None => break,
            },
        };
        sends[usize::from(from == R)] += 1;
        let payload = out.payload.clone();
        if from == S && channel.bernoulli(links.get(S, R)) {
            fwd.handle_coded(S, &pkt, Some(&payload)).unwrap();
        }
        if channel.bernoulli(links.get(from, D)) {
            if let Some(ack) = dst.handle_coded(&pkt, Some(&payload)).unwrap() {
                src.handle_ack(&ack).unwrap();
                fwd.handle_ack(&ack).unwrap();
            }
        }
        while let Some(b) = dst.poll_decoded() {
            for i in 0..b.natives {
                delivered.push(dst.native(b.batch, i).unwrap().to_vec());
            }
        }
        if delivered.len() == natives.len() {
            break;
        }
    }
    assert_eq!(delivered, natives, "both batches decoded to the original bytes, in order");
    assert_eq!(dst.counters()[3], ("batches_decoded", 2));
    assert!(sends[1] > 0, "the forwarder took part: {sends:?}");
    // z predicts about 1.37 source and 1.44 forwarder transmissions per native.
    let per_native = |n: u32| n as f64 / (2 * BETA) as f64;
    assert!(per_native(sends[0]) > 1.0 && per_native(sends[0]) < 3.0, "{sends:?}");
    assert!(per_native(sends[1]) > 0.5 && per_native(sends[1]) < 3.0, "{sends:?}");
    assert_eq!(src.current_batch(), None);
}

#[test]
fn a_final_batch_announced_shorter_shrinks_at_the_forwarder() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    let mut f = MoreForwarder::new(1, R, &plan, cfg(4, 0), RngStream::new(1, "fwd")).unwrap();
    f.handle_coded(S, &data(0, &[3, 1, 0, 0]), None).unwrap();
    // The batch closes at 2 natives: later vectors have length 2, earlier
    // ones (zero beyond 2) still fit; one using native 3 does not.
    assert_eq!(f.handle_coded(S, &data(0, &[1, 1]), None), Ok(Rx::Innovative));
    assert_eq!(f.handle_coded(S, &data(0, &[5, 7, 0, 0]), None), Ok(Rx::Redundant));
    assert!(f.handle_coded(S, &data(0, &[5, 7, 0, 1]), None).is_err());
    let mut out = Symbol::new(4, 0);
    assert_eq!(f.poll_transmit(&mut out).unwrap().code.len(), 2);
}

/// Over many batches the credits make the forwarder send what z predicts
/// relative to the source: TX_credit_R · p(S→R) = z_R / z_S.
#[test]
fn credits_reproduce_the_z_ratio_over_many_batches() {
    const BETA: usize = 32;
    const BATCHES: u32 = 60;
    let links = line();
    let plan = ForwarderPlan::compute(&links, S, D, &PlanConfig::default()).unwrap();
    let c = MoreConfig { beta: BETA, symbol_len: 0, max_batches: 1 };
    let mut src = MoreSource::new(1, c, RngStream::new(5, "more.src")).unwrap();
    let mut fwd = MoreForwarder::new(1, R, &plan, c, RngStream::new(5, "more.fwd")).unwrap();
    let mut dst = MoreDestination::new(1, c).unwrap();
    let mut channel = RngStream::new(5, "channel");
    let (mut out, mut sends, mut decoded) = (Symbol::new(BETA, 0), [0u64; 2], 0);
    let mut pushed = 0;
    while decoded < BATCHES {
        while src.can_push() && pushed < BATCHES as usize * BETA {
            src.push_native(None).unwrap();
            pushed += 1;
        }
        let (from, pkt) = match fwd.poll_transmit(&mut out) {
            Some(p) => (R, p),
            None => (S, src.poll_transmit(&mut out).expect("the source always has a batch to send")),
        };
        sends[usize::from(from == R)] += 1;
        if from == S && channel.bernoulli(links.get(S, R)) {
            fwd.handle_coded(S, &pkt, None).unwrap();
        }
        if channel.bernoulli(links.get(from, D)) {
            if let Some(ack) = dst.handle_coded(&pkt, None).unwrap() {
                src.handle_ack(&ack).unwrap();
                fwd.handle_ack(&ack).unwrap();
            }
        }
        while dst.poll_decoded().is_some() {
            decoded += 1;
        }
    }
    let ratio = sends[1] as f64 / sends[0] as f64;
    let z_ratio = plan.z(R) / plan.z(S);
    assert!((ratio - z_ratio).abs() < 0.1 * z_ratio, "forwarder/source {ratio:.3}, z_R/z_S {z_ratio:.3}, {sends:?}");
}

/// S —0.7→ R —0.6→ D and nothing direct: D hears the batch only through R.
fn relay_only() -> LinkProbs {
    let mut l = LinkProbs::new(3);
    l.set_symmetric(S, R, 0.7).unwrap();
    l.set_symmetric(R, D, 0.6).unwrap();
    l
}

/// Batch ACKs travel D → R → S; the first one is lost between R and S (a
/// relay's retry limit): R has flushed the batch, D hears nothing more of
/// it. R's repeat of the ACK, prompted by the source's stale packets, is
/// what lets the flow go on.
#[test]
fn batch_ack_lost_after_the_forwarder_is_repeated_and_the_flow_completes() {
    const BETA: usize = 8;
    const BATCHES: u32 = 3;
    let links = relay_only();
    let plan = ForwarderPlan::compute(&links, S, D, &PlanConfig::default()).unwrap();
    let c = MoreConfig { beta: BETA, symbol_len: 0, max_batches: 1 };
    let mut src = MoreSource::new(1, c, RngStream::new(3, "more.src")).unwrap();
    let mut fwd = MoreForwarder::new(1, R, &plan, c, RngStream::new(3, "more.fwd")).unwrap();
    let mut dst = MoreDestination::new(1, c).unwrap();
    let mut channel = RngStream::new(3, "channel");
    let (mut out, mut pushed, mut decoded, mut dropped) = (Symbol::new(BETA, 0), 0, 0, 0);
    let mut stale_after_drop = 0u32;
    for _slot in 0..5000 {
        while src.can_push() && pushed < BATCHES as usize * BETA {
            src.push_native(None).unwrap();
            pushed += 1;
        }
        let (from, pkt) = match fwd.poll_transmit(&mut out) {
            Some(p) => (R, p),
            None => match src.poll_transmit(&mut out) {
                Some(p) => (S, p),
                None => break,
            },
        };
        if from == S && channel.bernoulli(links.get(S, R)) {
            if fwd.handle_coded(S, &pkt, None).unwrap() == Rx::Stale && dropped == 1 {
                stale_after_drop += 1;
            }
            if let Some(again) = fwd.poll_ack() {
                src.handle_ack(&again).unwrap();
            }
        }
        if from == R && channel.bernoulli(links.get(R, D)) {
            if let Some(ack) = dst.handle_coded(&pkt, None).unwrap() {
                fwd.handle_ack(&ack).unwrap();
                if dropped == 0 {
                    dropped += 1;
                } else {
                    src.handle_ack(&ack).unwrap();
                }
            }
        }
        while dst.poll_decoded().is_some() {
            decoded += 1;
        }
    }
    assert_eq!(dropped, 1);
    assert_eq!(decoded, BATCHES, "every batch decoded despite the lost ACK");
    assert_eq!(src.current_batch(), None, "the source finished");
    assert_eq!(src.counters()[1], ("batches_acked", BATCHES as u64));
    // One repeat was enough: the first stale packet R heard after the loss prompted it.
    assert_eq!(fwd.counters()[6], ("reacks", 1));
    assert_eq!(stale_after_drop, 1);
}

#[test]
fn forwarder_repeats_an_ack_once_per_beta_stale_upstream_packets_only() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    let mut f = MoreForwarder::new(1, R, &plan, cfg(4, 0), RngStream::new(1, "fwd")).unwrap();
    f.handle_coded(S, &data(0, &[1, 0, 0, 0]), None).unwrap();
    // A stale packet before any ACK (batch crowded out) prompts nothing.
    f.handle_coded(S, &data(1, &[1, 0, 0, 0]), None).unwrap();
    assert_eq!(f.handle_coded(S, &data(0, &[0, 1, 0, 0]), None), Ok(Rx::Stale));
    assert_eq!(f.poll_ack(), None);
    let ack = Coded { kind: CodedKind::BatchAck, ..data(1, &[]) };
    f.handle_ack(&ack).unwrap();
    // From downstream: no evidence the source missed the ACK.
    assert_eq!(f.handle_coded(D, &data(1, &[1, 1, 1, 1]), None), Ok(Rx::Stale));
    assert_eq!(f.poll_ack(), None);
    let mut repeats = 0;
    for _ in 0..9 {
        assert_eq!(f.handle_coded(S, &data(1, &[1, 1, 1, 1]), None), Ok(Rx::Stale));
        if let Some(a) = f.poll_ack() {
            assert_eq!(a, ack);
            repeats += 1;
        }
    }
    // Packets 1, 5 and 9 of the nine (β = 4).
    assert_eq!(repeats, 3);
    assert_eq!(f.counters()[6], ("reacks", 3));
}

#[test]
fn forwarder_repeats_a_tcpfender_ack_when_upstream_still_sends_its_batch() {
    let plan = ForwarderPlan::compute(&line(), S, D, &PlanConfig::default()).unwrap();
    let mut f = MoreForwarder::new(1, R, &plan, cfg(4, 0), RngStream::new(1, "fwd")).unwrap();
    f.handle_coded(S, &data(0, &[1, 0, 0, 0]), None).unwrap();
    // The receiver module has 5 packets: batch 0 (β = 4) whole, one of batch 1.
    let ack = Coded { kind: CodedKind::FenderAck, batch: 5, tag: 77, ..data(0, &[]) };
    f.handle_ack(&ack).unwrap();
    assert_eq!(state(&f, 0), None, "flushed as the ACK passed");
    assert_eq!(f.poll_ack(), None, "nothing suggests the ACK was lost");
    // S still sends batch 0: the ACK never reached it. Repeat it once, then
    // again only after β more such packets.
    f.handle_coded(S, &data(0, &[1, 1, 0, 0]), None).unwrap();
    assert_eq!(f.poll_ack(), Some(ack));
    for _ in 0..3 {
        f.handle_coded(S, &data(0, &[1, 1, 1, 0]), None).unwrap();
        assert_eq!(f.poll_ack(), None);
    }
    f.handle_coded(S, &data(0, &[1, 1, 1, 1]), None).unwrap();
    assert_eq!(f.poll_ack(), Some(ack));
    // Packets from downstream are no evidence.
    f.handle_coded(D, &data(0, &[1, 0, 1, 0]), None).unwrap();
    assert_eq!(f.poll_ack(), None);
    assert_eq!(f.counters()[6], ("reacks", 2));
}

#[test]
fn source_batch_timer_closes_a_short_batch_at_its_k_natives() {
    use airtcp_core::{Duration, Instant};
    let t0 = Instant::from_millis(10);
    let mut s = MoreSource::new(1, cfg(4, 0), RngStream::new(1, "src")).unwrap().with_batch_timeout(Duration::from_millis(50));
    let mut out = Symbol::new(4, 0);
    assert_eq!(s.poll_timeout(), None);
    s.push_native_at(t0, None).unwrap();
    s.push_native_at(t0 + Duration::from_millis(20), None).unwrap();
    assert!(s.poll_transmit(&mut out).is_none(), "an open batch is not sent");
    assert_eq!(s.poll_timeout(), Some(t0 + Duration::from_millis(50)), "timed from the first native");
    s.handle_timeout(t0 + Duration::from_millis(49));
    assert!(s.poll_transmit(&mut out).is_none(), "not yet");
    s.handle_timeout(t0 + Duration::from_millis(50));
    let p = s.poll_transmit(&mut out).unwrap();
    assert_eq!((p.batch, p.code.len()), (0, 2), "a batch of the 2 natives it had");
    assert_eq!(s.poll_timeout(), None);
    // One batch at a time: the next native waits for the ACK.
    assert_eq!(s.push_native_at(t0, None), Err(MoreError::Backlogged));
    s.handle_ack(&Coded { kind: CodedKind::BatchAck, ..data(0, &[]) }).unwrap();
    assert_eq!(s.push_native_at(t0 + Duration::from_millis(100), None), Ok((1, 0)));
    assert_eq!(s.poll_timeout(), Some(t0 + Duration::from_millis(150)));
    assert_eq!(s.counters()[3], ("batches_closed_by_timer", 1));
    // Without a timer a short batch waits for β natives.
    let mut plain = MoreSource::new(1, cfg(4, 0), RngStream::new(1, "src")).unwrap();
    plain.push_native(None).unwrap();
    assert_eq!(plain.poll_timeout(), None);
    assert!(plain.poll_transmit(&mut out).is_none());
}
