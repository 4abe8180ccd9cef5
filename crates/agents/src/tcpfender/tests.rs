//! TCPFender's modules driven directly: template segments in, coded packets
//! and ACKs out, checked field by field.

use airtcp_coding::Symbol;
use airtcp_core::{CodeVector, Coded, CodedKind, Packet, RngStream, Segment, SeqNum, TcpFlags};
use proptest::prelude::*;

use super::*;

const SRC: [u8; 4] = [10, 0, 0, 1];
const DST: [u8; 4] = [10, 0, 0, 9];
const MSS: u32 = 1000;
const ISS: u32 = 5000;

fn cfg(beta: usize, max_batches: usize, z_src: f64) -> FenderConfig {
    FenderConfig { beta, symbol_len: 0, max_batches, z_src }
}

/// Data segment number `n` of the flow (MSS bytes, TSval 100 + n).
fn data(n: u32) -> Packet {
    let seg = Segment {
        src_port: 40000,
        dst_port: 80,
        seq: SeqNum(ISS + 1 + n * MSS),
        ack: SeqNum(1),
        flags: TcpFlags::ACK,
        window: 1000,
        timestamps: Some((100 + n, 7)),
        payload_len: MSS,
        ..Default::default()
    };
    Packet::tcp(SRC, DST, 64, n as u16, seg)
}

/// The TCP receiver's ACK of everything before segment `n` (TSval 900).
fn receiver_ack(n: u32) -> Packet {
    let seg = Segment {
        src_port: 80,
        dst_port: 40000,
        seq: SeqNum(1),
        ack: SeqNum(ISS + 1 + n * MSS),
        flags: TcpFlags::ACK,
        window: 2000,
        timestamps: Some((900, 100)),
        ..Default::default()
    };
    Packet::tcp(DST, SRC, 64, 0, seg)
}

fn fender_ack(packets: u32, tag_segment: u32) -> Coded {
    Coded {
        kind: CodedKind::FenderAck,
        flow: 1,
        batch: packets,
        tag: ISS + 1 + tag_segment * MSS,
        code: CodeVector::default(),
        payload_len: 0,
    }
}

fn sender(c: FenderConfig) -> FenderSender {
    FenderSender::new(1, c, RngStream::new(1, "fender.src")).unwrap()
}

fn coded(batch: u32, code: &[u8], tag_segment: u32) -> Coded {
    Coded {
        kind: CodedKind::Data,
        flow: 1,
        batch,
        tag: ISS + 1 + tag_segment * MSS,
        code: CodeVector::from_slice(code).unwrap(),
        payload_len: 0,
    }
}

#[test]
fn segments_are_batched_by_sequence() {
    let mut s = sender(cfg(50, 3, 1.0));
    let mut seen = Vec::new();
    for n in 0..120 {
        match s.on_tcp_segment(&data(n)).unwrap() {
            Release::Coded { batch, index, retransmission: false } => seen.push((batch, index)),
            other => panic!("segment {n}: {other:?}"),
        }
    }
    assert_eq!(seen[0], (0, 0));
    assert_eq!(seen[49], (0, 49));
    assert_eq!(seen[50], (1, 0));
    assert_eq!(seen[119], (2, 19));
    assert_eq!(s.batches_held().collect::<Vec<_>>(), vec![0, 1, 2]);
    // Control segments are not coded.
    let mut fin = data(120);
    fin.segment_mut().unwrap().payload_len = 0;
    fin.segment_mut().unwrap().flags = TcpFlags::ACK | TcpFlags::FIN;
    assert_eq!(s.on_tcp_segment(&fin).unwrap(), Release::PassThrough);
    assert_eq!(s.on_tcp_segment(&receiver_ack(0)).unwrap(), Release::PassThrough);
}

#[test]
fn early_release_codes_the_segments_present() {
    let mut s = sender(cfg(50, 2, 1.5));
    let mut out = Symbol::new(50, 0);
    assert!(s.poll_transmit(&mut out).is_none(), "nothing before the first segment");
    s.on_tcp_segment(&data(0)).unwrap();
    let p = s.poll_transmit(&mut out).unwrap();
    assert_eq!((p.kind, p.batch, p.tag, p.code.len()), (CodedKind::Data, 0, ISS + 1, 50));
    assert!(p.code.as_slice()[0] != 0 && p.code.as_slice()[1..].iter().all(|&c| c == 0));
    assert!(s.poll_transmit(&mut out).is_none(), "z = 1.5: half a credit left");
    s.on_tcp_segment(&data(1)).unwrap();
    s.on_tcp_segment(&data(2)).unwrap();
    // 0.5 + 1.5 + 1.5 = 3.5 credits: three packets over natives 0..3, each
    // tagged with the segment whose credit it spends (0.5 of segment 0 and
    // 0.5 of segment 1 make the first).
    let mut tags = Vec::new();
    for _ in 0..3 {
        let p = s.poll_transmit(&mut out).unwrap();
        assert!(p.code.as_slice()[..3].iter().all(|&c| c != 0));
        assert!(p.code.as_slice()[3..].iter().all(|&c| c == 0));
        tags.push((p.tag - ISS - 1) / MSS);
    }
    assert_eq!(tags, vec![1, 1, 2]);
    assert!(s.poll_transmit(&mut out).is_none());
    assert_eq!(s.credit(0), Some(0.5));
}

#[test]
fn batches_pipeline_up_to_the_limit() {
    let mut s = sender(cfg(4, 2, 1.0));
    let mut out = Symbol::new(4, 0);
    for n in 0..8 {
        s.on_tcp_segment(&data(n)).unwrap();
    }
    // Batch 1 is sent while batch 0 is unacknowledged.
    let batches: Vec<u32> = std::iter::from_fn(|| s.poll_transmit(&mut out).map(|p| p.batch)).collect();
    assert_eq!(batches, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(s.on_tcp_segment(&data(8)), Err(FenderError::Backlogged));
    // Receiver has batch 0 whole (4 packets) and 1 of batch 1: batch 0 is freed.
    s.on_tcp_ack(&receiver_ack(0));
    s.on_fender_ack(&fender_ack(5, 7)).unwrap();
    assert_eq!(s.batches_held().collect::<Vec<_>>(), vec![1]);
    assert_eq!(s.on_tcp_segment(&data(8)).unwrap(), Release::Coded { batch: 2, index: 0, retransmission: false });
    assert_eq!(s.counters()[8], ("backlogged", 1));
}

#[test]
fn retransmission_is_mixed_into_its_batch() {
    let mut s = sender(cfg(4, 2, 1.0));
    let mut out = Symbol::new(4, 0);
    for n in 0..6 {
        s.on_tcp_segment(&data(n)).unwrap();
    }
    while s.poll_transmit(&mut out).is_some() {}
    let mut rexmit = data(2);
    rexmit.segment_mut().unwrap().timestamps = Some((555, 7));
    assert_eq!(s.on_tcp_segment(&rexmit).unwrap(), Release::Coded { batch: 0, index: 2, retransmission: true });
    let p = s.poll_transmit(&mut out).unwrap();
    assert_eq!((p.batch, p.tag), (0, ISS + 1 + 2 * MSS));
    assert!(p.code.as_slice().iter().all(|&c| c != 0), "all four natives of batch 0 mixed");
    // The ACK triggered by the retransmission echoes its TSval.
    s.on_tcp_ack(&receiver_ack(0));
    let ack = s.on_fender_ack(&fender_ack(3, 2)).unwrap().unwrap();
    assert_eq!(ack.segment().unwrap().timestamps, Some((900, 555)));
    // Data the sender no longer holds is refused, not guessed at.
    assert_eq!(s.on_fender_ack(&fender_ack(4, 3)).unwrap().unwrap().segment().unwrap().ack, SeqNum(ISS + 1 + 4 * MSS));
    assert_eq!(s.on_tcp_segment(&data(1)), Err(FenderError::UnknownSegment { seq: ISS + 1 + MSS }));
}

#[test]
fn module_acks_become_tcp_acks_in_bytes() {
    let mut s = sender(cfg(50, 2, 1.0));
    for n in 0..10 {
        s.on_tcp_segment(&data(n)).unwrap();
    }
    assert_eq!(s.on_fender_ack(&fender_ack(1, 0)).unwrap(), None, "no template before the receiver's first ACK");
    assert!(s.on_tcp_ack(&receiver_ack(0)), "the receiver's first ACK goes to TCP");
    let ack = s.on_fender_ack(&fender_ack(3, 3)).unwrap().unwrap();
    let seg = ack.segment().unwrap();
    assert_eq!((ack.ip.src, ack.ip.dst), (DST, SRC));
    assert_eq!((seg.src_port, seg.dst_port), (80, 40000));
    assert_eq!(seg.ack, SeqNum(ISS + 1 + 3 * MSS), "3 packets = the start of segment 3");
    assert_eq!(seg.window, 2000);
    assert_eq!(seg.timestamps, Some((900, 103)), "TSecr = TSval of the tagged segment");
    // The whole flow so far acknowledged: the sequence after the last segment.
    let all = s.on_fender_ack(&fender_ack(10, 9)).unwrap().unwrap();
    assert_eq!(all.segment().unwrap().ack, SeqNum(ISS + 1 + 10 * MSS));
    // The TCP receiver's own later ACK covering no more is absorbed.
    assert!(!s.on_tcp_ack(&receiver_ack(10)));
    assert!(s.on_tcp_ack(&receiver_ack(11)), "one acknowledging more goes to TCP");
    assert_eq!(s.on_fender_ack(&fender_ack(11, 9)), Err(FenderError::UnknownSegment { seq: 11 }));
}

#[test]
fn duplicate_acks_are_told_apart_by_their_tag() {
    let mut s = sender(cfg(50, 2, 1.0));
    for n in 0..10 {
        s.on_tcp_segment(&data(n)).unwrap();
    }
    s.on_tcp_ack(&receiver_ack(0));
    assert!(s.on_fender_ack(&fender_ack(4, 4)).unwrap().is_some(), "new ACK");
    // Extra coded packets carrying old information (tag 4 again, or older): absorbed.
    assert_eq!(s.on_fender_ack(&fender_ack(4, 4)).unwrap(), None);
    assert_eq!(s.on_fender_ack(&fender_ack(4, 3)).unwrap(), None);
    // New data (tags 5, 6, 7) that did not raise the rank: loss signals, passed.
    for t in 5..8 {
        let d = s.on_fender_ack(&fender_ack(4, t)).unwrap().unwrap();
        assert_eq!(d.segment().unwrap().ack, SeqNum(ISS + 1 + 4 * MSS), "a duplicate of ACK 4");
    }
    // A reordered older ACK: absorbed.
    assert_eq!(s.on_fender_ack(&fender_ack(2, 8)).unwrap(), None);
    let c = s.counters();
    assert_eq!((c[3], c[4], c[5], c[6]), (("acks_new", 1), ("dupacks_passed", 3), ("dupacks_absorbed", 2), ("old_acks", 1)));
}

fn receiver(beta: usize, max_batches: usize) -> FenderReceiver {
    FenderReceiver::new(1, cfg(beta, max_batches, 1.0)).unwrap()
}

fn acked(r: &mut FenderReceiver, p: Coded) -> u32 {
    r.on_coded(&p, None).unwrap().batch
}

#[test]
fn receiver_acks_beta_b_plus_r() {
    let mut r = receiver(4, 3);
    assert_eq!(acked(&mut r, coded(0, &[1, 0, 0, 0], 0)), 1);
    assert_eq!(acked(&mut r, coded(0, &[3, 1, 0, 0], 1)), 2);
    // Not innovative: the same number again (a duplicate ACK), tag echoed.
    let dup = r.on_coded(&coded(0, &[2, 6, 0, 0], 1), None).unwrap();
    assert_eq!((dup.kind, dup.batch, dup.tag), (CodedKind::FenderAck, 2, ISS + 1 + MSS));
    // A later batch is buffered but does not move the ACK.
    assert_eq!(acked(&mut r, coded(1, &[1, 0, 0, 0], 4)), 2);
    assert_eq!(acked(&mut r, coded(1, &[0, 1, 0, 0], 5)), 2);
    assert_eq!(acked(&mut r, coded(0, &[0, 0, 1, 0], 2)), 3);
    // Batch 0 full: the receiver moves to batch 1 (rank 2): 4·1 + 2.
    assert_eq!(acked(&mut r, coded(0, &[0, 0, 0, 1], 3)), 6);
    assert_eq!(r.expecting(), (1, 2));
    // An old batch is discarded, still answered.
    assert_eq!(acked(&mut r, coded(0, &[1, 1, 1, 1], 3)), 6);
    assert_eq!(r.counters()[2], ("old_discarded", 1));
}

#[test]
fn full_rank_jumps_to_the_next_batch_that_is_not_full() {
    let mut r = receiver(2, 4);
    // Batches 1 and 2 fill before batch 0; batch 3 has rank 1.
    for (b, code) in [(1, [1, 0]), (1, [0, 1]), (2, [1, 1]), (2, [1, 2]), (3, [5, 0])] {
        assert_eq!(acked(&mut r, coded(b, &code, 0)), 0);
    }
    assert_eq!(acked(&mut r, coded(0, &[1, 0], 0)), 1);
    // Batch 0 full: b̂ = 3, r̂ = 1, so the ACK is 2·3 + 1.
    assert_eq!(acked(&mut r, coded(0, &[0, 1], 0)), 7);
    let order: Vec<(u32, usize)> = std::iter::from_fn(|| r.poll_delivery().map(|d| (d.batch, d.index))).collect();
    assert_eq!(order, vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
    // A batch past the window (3 + 4) is dropped and counted, still answered.
    assert_eq!(acked(&mut r, coded(7, &[1, 0], 0)), 7);
    assert_eq!(r.counters()[3], ("beyond_window", 1));
}

#[test]
fn decoded_batches_reach_tcp_in_order_as_real_packets() {
    let beta = 4;
    let c = FenderConfig { beta, symbol_len: 1100, max_batches: 3, z_src: 1.0 };
    let mut s = FenderSender::new(1, c, RngStream::new(3, "src")).unwrap();
    let mut r = FenderReceiver::new(1, c).unwrap();
    let mut out = Symbol::new(beta, 1100);
    let originals: Vec<Packet> = (0..8).map(data).collect();
    let mut batch1 = Vec::new();
    for p in &originals {
        s.on_tcp_segment(p).unwrap();
        let coded = s.poll_transmit(&mut out).unwrap();
        if coded.batch == 1 {
            batch1.push((coded, out.payload.clone()));
        }
    }
    // Batch 1 arrives first (its 4 packets), then batch 0 (fresh combinations).
    for (p, bytes) in &batch1 {
        r.on_coded(p, Some(bytes)).unwrap();
    }
    assert!(r.poll_delivery().is_none(), "batch 1 waits for batch 0");
    let mut last = 0;
    while r.expecting().0 == 0 {
        s.on_tcp_segment(&originals[0]).unwrap(); // a retransmission releases batch 0 again
        let p = s.poll_transmit(&mut out).unwrap();
        last = r.on_coded(&p, Some(&out.payload)).unwrap().batch;
    }
    assert_eq!(last, 8, "both batches whole: 2·4 + 0");
    let delivered: Vec<Packet> = std::iter::from_fn(|| r.poll_delivery()).map(|d| d.packet.unwrap()).collect();
    assert_eq!(delivered, originals, "decoded bytes are the original TCP/IP packets, in order");
}

#[test]
fn malformed_packets_are_refused_and_counted() {
    let mut r = receiver(4, 2);
    assert!(r.on_coded(&coded(0, &[1, 0, 0, 0, 1], 0), None).is_err(), "code vector longer than β");
    assert!(r.on_coded(&coded(0, &[], 0), None).is_err(), "empty code vector");
    assert!(r.on_coded(&coded(0, &[1, 0, 0, 0], 0), Some(&[1, 2])).is_err(), "bytes in a coefficient-only run");
    assert!(r.on_coded(&fender_ack(1, 0), None).is_err());
    assert!(r.on_coded(&Coded { flow: 2, ..coded(0, &[1, 0, 0, 0], 0) }, None).is_err());
    // Announcing a final batch of 1 native when a held row uses native 2.
    r.on_coded(&coded(1, &[0, 0, 1, 0], 0), None).unwrap();
    assert!(r.on_coded(&coded(1, &[1], 0), None).is_err(), "final size below what was mixed");
    assert_eq!(r.counters()[4], ("malformed", 6));
    assert_eq!(r.expecting(), (0, 0));
    let mut s = sender(cfg(4, 2, 1.0));
    assert_eq!(s.on_fender_ack(&coded(0, &[1, 0, 0, 0], 0)), Err(FenderError::WrongKind));
    let big = FenderConfig { beta: 4, symbol_len: 100, max_batches: 2, z_src: 1.0 };
    let mut s = FenderSender::new(1, big, RngStream::new(1, "s")).unwrap();
    assert_eq!(s.on_tcp_segment(&data(0)), Err(FenderError::TooLong { len: 1052, symbol_len: 100 }));
    assert_eq!(s.batches_held().count(), 0, "nothing half-opened");
}

#[test]
fn decoded_segments_wait_for_the_tcp_receivers_window() {
    let c = FenderConfig { beta: 4, symbol_len: 0, max_batches: 2, z_src: 1.0 };
    let mut s = FenderSender::new(1, c, RngStream::new(5, "src")).unwrap();
    let mut r = FenderReceiver::new(1, c).unwrap();
    let mut out = Symbol::new(4, 0);
    // The TCP receiver's SYN-ACK: window 2 segments, unscaled, shift 1 for later ones.
    let mut syn_ack = receiver_ack(0);
    {
        let seg = syn_ack.segment_mut().unwrap();
        seg.flags = TcpFlags::SYN | TcpFlags::ACK;
        seg.window = (2 * MSS) as u16;
        seg.wscale = Some(1);
    }
    r.on_tcp_out(&syn_ack);
    for n in 0..4 {
        s.on_tcp_segment(&data(n)).unwrap();
    }
    while r.expecting().0 == 0 {
        let p = s.poll_transmit(&mut out).or_else(|| {
            s.on_tcp_segment(&data(0)).unwrap();
            s.poll_transmit(&mut out)
        });
        r.on_coded(&p.unwrap(), None).unwrap();
    }
    let got = |r: &mut FenderReceiver, s: &FenderSender| {
        std::iter::from_fn(|| r.poll_segment(|b, i| s.native_packet(b, i))).map(|p| p.segment().unwrap().seq).collect::<Vec<_>>()
    };
    assert_eq!(got(&mut r, &s), vec![SeqNum(ISS + 1), SeqNum(ISS + 1 + MSS)], "two segments fit");
    // The receiver ACKs them with window field 500: 500 << 1 = one segment.
    let mut ack = receiver_ack(2);
    ack.segment_mut().unwrap().window = (MSS / 2) as u16;
    r.on_tcp_out(&ack);
    assert_eq!(got(&mut r, &s), vec![SeqNum(ISS + 1 + 2 * MSS)]);
    ack.segment_mut().unwrap().window = MSS as u16;
    r.on_tcp_out(&ack);
    assert_eq!(got(&mut r, &s), vec![SeqNum(ISS + 1 + 3 * MSS)]);
    assert_eq!(r.counters()[8].0, "held_for_window");
    assert!(r.counters()[8].1 >= 1);
    assert_eq!(r.counters()[6], ("delivered", 4));
}

#[test]
fn fin_closes_the_final_partial_batch() {
    let c = FenderConfig { beta: 4, symbol_len: 1100, max_batches: 3, z_src: 1.0 };
    let mut s = FenderSender::new(1, c, RngStream::new(4, "src")).unwrap();
    let mut r = FenderReceiver::new(1, c).unwrap();
    let mut out = Symbol::new(4, 1100);
    let originals: Vec<Packet> = (0..6).map(data).collect();
    s.on_tcp_ack(&receiver_ack(0));
    let mut acks = Vec::new();
    for p in &originals {
        s.on_tcp_segment(p).unwrap();
        let coded = s.poll_transmit(&mut out).unwrap();
        acks.push(r.on_coded(&coded, Some(&out.payload)).unwrap().batch);
    }
    // Batch 0 decoded at the 4th packet; batch 1 holds 2 natives, not known to be final.
    assert_eq!(acks, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(r.expecting(), (1, 2));
    let mut fin = data(6);
    fin.segment_mut().unwrap().payload_len = 0;
    fin.segment_mut().unwrap().flags = TcpFlags::ACK | TcpFlags::FIN;
    assert_eq!(s.on_tcp_segment(&fin).unwrap(), Release::PassThrough);
    let closing = s.poll_transmit(&mut out).unwrap();
    assert_eq!((closing.batch, closing.code.len()), (1, 2), "coded over the batch's 2 natives");
    let ack = r.on_coded(&closing, Some(&out.payload)).unwrap();
    assert_eq!(ack.batch, 8, "batch 1 decoded at rank 2: the receiver moves to batch 2");
    let delivered: Vec<Packet> = std::iter::from_fn(|| r.poll_delivery()).map(|d| d.packet.unwrap()).collect();
    assert_eq!(delivered, originals);
    // The sender reads 8 as "everything", frees the batch, tells TCP all 6 segments.
    let tcp = s.on_fender_ack(&ack).unwrap().unwrap();
    assert_eq!(tcp.segment().unwrap().ack, SeqNum(ISS + 1 + 6 * MSS));
    assert_eq!(s.batches_held().count(), 0);
    // Data after the FIN (TCP never sends it) is refused, not mixed in.
    assert_eq!(s.on_tcp_segment(&data(6)), Err(FenderError::UnknownSegment { seq: ISS + 1 + 6 * MSS }));
}

proptest! {
    /// Any header (kind, flow, batch, vector length, coefficients) and any
    /// payload length: the receiver never panics and its ACK never goes back.
    #[test]
    fn receiver_survives_arbitrary_packets(pkts in proptest::collection::vec(
        (0u8..4, 0u16..3, 0u32..12, proptest::collection::vec(any::<u8>(), 0..8), 0usize..3), 0..60)) {
        let c = FenderConfig { beta: 4, symbol_len: 2, max_batches: 3, z_src: 1.0 };
        let mut r = FenderReceiver::new(1, c).unwrap();
        let mut last = 0;
        for (kind, flow, batch, code, len) in pkts {
            let Some(kind) = CodedKind::from_byte(kind) else { continue };
            let p = Coded { kind, flow, batch, tag: 0, code: CodeVector::from_slice(&code).unwrap(), payload_len: 2 };
            if let Ok(ack) = r.on_coded(&p, Some(&[7u8; 2][..len])) {
                prop_assert!(ack.batch >= last);
                last = ack.batch;
            }
            while r.poll_delivery().is_some() {}
        }
    }
}

proptest! {
    /// Any interleaving of data (new, repeated, out of order), FINs,
    /// receiver-module ACKs and TCP ACKs: the sender module never panics,
    /// and every coded packet it sends has a vector no longer than β.
    #[test]
    fn sender_survives_arbitrary_input(ops in proptest::collection::vec((0u8..4, 0u32..24, 0u32..24), 0..80)) {
        let mut s = sender(cfg(4, 3, 1.3));
        let mut out = Symbol::new(4, 0);
        for (op, a, b) in ops {
            match op {
                0 => { let _ = s.on_tcp_segment(&data(a)); }
                1 => {
                    let mut fin = data(a);
                    fin.segment_mut().unwrap().flags = TcpFlags::ACK | TcpFlags::FIN;
                    fin.segment_mut().unwrap().payload_len = b % 2 * MSS;
                    let _ = s.on_tcp_segment(&fin);
                }
                2 => { let _ = s.on_fender_ack(&fender_ack(a, b)); }
                _ => { s.on_tcp_ack(&receiver_ack(a)); }
            }
            while let Some(p) = s.poll_transmit(&mut out) {
                prop_assert!(!p.code.is_empty() && p.code.len() <= 4);
            }
        }
    }
}

#[test]
fn more_source_keeps_sending_the_oldest_batch_until_its_ack_covers_it() {
    let mut s = sender(cfg(4, 2, 1.0)).with_source(FenderSource::UntilAck);
    let mut out = Symbol::new(4, 0);
    assert!(s.poll_transmit(&mut out).is_none(), "nothing before the first segment");
    s.on_tcp_segment(&data(0)).unwrap();
    s.on_tcp_segment(&data(1)).unwrap();
    // Two owed packets (z = 1 each), tagged with their segments, then more
    // of the same two natives for as long as the MAC asks.
    let tags: Vec<u32> = (0..5).map(|_| (s.poll_transmit(&mut out).unwrap().tag - ISS - 1) / MSS).collect();
    assert_eq!(tags, vec![0, 1, 1, 1, 1]);
    assert!(out.code.as_slice()[2..].iter().all(|&c| c == 0), "coded over the k = 2 natives TCP handed down");
    assert_eq!(s.counters()[10], ("coded_until_ack", 3));
    // The receiver holds one of the two: still short, keep sending.
    s.on_tcp_ack(&receiver_ack(0));
    s.on_fender_ack(&fender_ack(1, 0)).unwrap();
    assert!(s.poll_transmit(&mut out).is_some());
    // It holds both: the ACK covers all the source has; silence.
    s.on_fender_ack(&fender_ack(2, 1)).unwrap();
    assert!(s.poll_transmit(&mut out).is_none());
    // A new segment earns its packet and reopens the batch to the flood.
    s.on_tcp_segment(&data(2)).unwrap();
    assert_eq!(s.poll_transmit(&mut out).unwrap().tag, ISS + 1 + 2 * MSS);
    assert_eq!(s.poll_transmit(&mut out).unwrap().batch, 0);
    // Batch 0 full and covered, batch 1 open: the flood moves to batch 1.
    s.on_tcp_segment(&data(3)).unwrap();
    s.on_tcp_segment(&data(4)).unwrap();
    let owed: Vec<u32> = (0..2).map(|_| s.poll_transmit(&mut out).unwrap().batch).collect();
    assert_eq!(owed, vec![0, 1], "the owed packets of segments 3 and 4");
    assert_eq!(s.poll_transmit(&mut out).unwrap().batch, 0, "then batch 0, the oldest not covered");
    s.on_fender_ack(&fender_ack(4, 3)).unwrap();
    assert_eq!(s.batches_held().collect::<Vec<_>>(), vec![1]);
    assert_eq!(s.poll_transmit(&mut out).unwrap().batch, 1);
}

#[test]
fn per_segment_source_sends_only_what_segments_earn() {
    let mut s = sender(cfg(4, 2, 1.0));
    let mut out = Symbol::new(4, 0);
    s.on_tcp_segment(&data(0)).unwrap();
    assert!(s.poll_transmit(&mut out).is_some());
    assert!(s.poll_transmit(&mut out).is_none(), "the literal reading sends nothing unearned");
}
