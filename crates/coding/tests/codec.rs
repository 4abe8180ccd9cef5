//! The codec on real bytes: what goes in at the source comes out of the
//! decoder, through forwarders that recode, for β = 32 (MORE) and 50
//! (TCPFender).

use airtcp_coding::{Basis, BatchEncoder, CodeVector, CodecError, Insert, Symbol};
use airtcp_core::RngStream;
use proptest::prelude::*;

const SYMBOL: usize = 1500;

/// `beta` natives of distinct, recognisable bytes (lengths vary; padded by the encoder).
fn natives(beta: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = RngStream::new(seed, "natives");
    (0..beta)
        .map(|i| {
            let len = SYMBOL - (i % 7) * 100;
            (0..len).map(|_| rng.next_u32() as u8).collect()
        })
        .collect()
}

fn encoder_with(natives: &[Vec<u8>]) -> BatchEncoder {
    let mut enc = BatchEncoder::new(natives.len(), SYMBOL).unwrap();
    for n in natives {
        enc.push(Some(n)).unwrap();
    }
    enc
}

fn padded(n: &[u8]) -> Vec<u8> {
    let mut v = n.to_vec();
    v.resize(SYMBOL, 0);
    v
}

/// Feed coded packets into `dst` until full rank; returns how many were sent.
fn fill(dst: &mut Basis, mut next: impl FnMut(&mut Symbol)) -> usize {
    let mut sym = Symbol::new(dst.beta(), SYMBOL);
    let mut sent = 0;
    while !dst.is_full() {
        next(&mut sym);
        sent += 1;
        dst.insert(&sym.code, sym.payload()).unwrap();
        assert!(sent < 4 * dst.beta(), "no progress");
    }
    sent
}

fn assert_decodes_to(dst: &mut Basis, natives: &[Vec<u8>]) {
    dst.decode().unwrap();
    for (i, n) in natives.iter().enumerate() {
        assert_eq!(dst.native(i).unwrap(), &padded(n)[..], "native {i}");
    }
}

#[test]
fn encode_decode_recovers_bytes_beta_32_and_50() {
    for beta in [32, 50] {
        let nat = natives(beta, beta as u64);
        let enc = encoder_with(&nat);
        let mut rng = RngStream::new(1, "source");
        let mut dst = Basis::new(beta, SYMBOL).unwrap();
        let sent = fill(&mut dst, |s| enc.encode(&mut rng, s));
        // Random GF(2^8) vectors are dependent with probability about 1/256
        // per packet near full rank: a couple of extra packets at most.
        assert!(sent <= beta + 2, "beta {beta}: {sent} packets");
        assert_decodes_to(&mut dst, &nat);
    }
}

#[test]
fn recoding_forwarder_keeps_rank_and_bytes() {
    let beta = 32;
    let nat = natives(beta, 9);
    let enc = encoder_with(&nat);
    let (mut src_rng, mut fwd_rng) = (RngStream::new(2, "source"), RngStream::new(2, "forwarder"));
    // The forwarder hears only 20 packets: what it recodes spans exactly that.
    let mut fwd = Basis::new(beta, SYMBOL).unwrap();
    let mut sym = Symbol::new(beta, SYMBOL);
    while fwd.rank() < 20 {
        enc.encode(&mut src_rng, &mut sym);
        fwd.insert(&sym.code, sym.payload()).unwrap();
    }
    let mut dst = Basis::new(beta, SYMBOL).unwrap();
    for _ in 0..60 {
        fwd.recode(&mut fwd_rng, &mut sym);
        dst.insert(&sym.code, sym.payload()).unwrap();
    }
    assert_eq!(dst.rank(), 20, "recoded packets never exceed the forwarder's rank");
    // The rest comes from the source; the decoded bytes are the natives.
    fill(&mut dst, |s| enc.encode(&mut src_rng, s));
    assert_decodes_to(&mut dst, &nat);
}

#[test]
fn non_innovative_packets_are_recognised_at_once() {
    let beta = 50;
    let nat = natives(beta, 4);
    let enc = encoder_with(&nat);
    let mut rng = RngStream::new(3, "source");
    let mut dst = Basis::new(beta, SYMBOL).unwrap();
    let mut sym = Symbol::new(beta, SYMBOL);
    let mut kept = Vec::new();
    for _ in 0..10 {
        enc.encode(&mut rng, &mut sym);
        assert_eq!(dst.insert(&sym.code, sym.payload()).unwrap(), Insert::Innovative);
        kept.push(sym.clone());
    }
    // The same packet again, and a combination of two held ones: redundant.
    assert_eq!(dst.insert(&kept[3].code, kept[3].payload()).unwrap(), Insert::Redundant);
    let mut sum = kept[0].clone();
    airtcp_coding::gf::axpy(sum.code.as_mut_slice(), 7, kept[1].code.as_slice());
    airtcp_coding::gf::axpy(&mut sum.payload, 7, &kept[1].payload);
    assert!(!dst.is_innovative(&sum.code).unwrap());
    assert_eq!(dst.insert(&sum.code, sum.payload()).unwrap(), Insert::Redundant);
    assert_eq!(dst.rank(), 10);
    // A unit vector for a native nobody mixed yet is innovative.
    let mut fresh = Basis::new(beta, 0).unwrap();
    fresh.insert(&CodeVector::unit(beta, 0).unwrap(), None).unwrap();
    assert!(fresh.is_innovative(&CodeVector::unit(beta, 49).unwrap()).unwrap());
    assert!(!fresh.is_innovative(&CodeVector::unit(beta, 0).unwrap()).unwrap());
}

#[test]
fn early_release_packets_span_only_the_natives_present() {
    let beta = 50;
    let nat = natives(beta, 5);
    let mut enc = BatchEncoder::new(beta, SYMBOL).unwrap();
    let mut rng = RngStream::new(5, "source");
    let mut dst = Basis::new(beta, SYMBOL).unwrap();
    let mut sym = Symbol::new(beta, SYMBOL);
    // One coded packet per native as it arrives: rank follows k.
    for (k, n) in nat.iter().enumerate() {
        enc.push(Some(n)).unwrap();
        enc.encode(&mut rng, &mut sym);
        assert!(sym.code.as_slice()[k + 1..].iter().all(|&c| c == 0));
        dst.insert(&sym.code, sym.payload()).unwrap();
        assert!(dst.rank() <= k + 1);
    }
    fill(&mut dst, |s| enc.encode(&mut rng, s));
    assert_decodes_to(&mut dst, &nat);
}

#[test]
fn coefficient_only_mode_tracks_the_same_rank_as_byte_mode() {
    let beta = 32;
    let nat = natives(beta, 6);
    let enc = encoder_with(&nat);
    let mut counted = BatchEncoder::new(beta, 0).unwrap();
    for _ in 0..beta {
        counted.push(None).unwrap();
    }
    let (mut r1, mut r2) = (RngStream::new(6, "s"), RngStream::new(6, "s"));
    let mut bytes = Basis::new(beta, SYMBOL).unwrap();
    let mut coeffs = Basis::new(beta, 0).unwrap();
    let (mut a, mut b) = (Symbol::new(beta, SYMBOL), Symbol::new(beta, 0));
    for _ in 0..beta + 3 {
        enc.encode(&mut r1, &mut a);
        counted.encode(&mut r2, &mut b);
        assert_eq!(a.code, b.code, "same stream, same coefficients");
        let x = bytes.insert(&a.code, a.payload()).unwrap();
        let y = coeffs.insert(&b.code, None).unwrap();
        assert_eq!(x, y);
    }
    assert!(coeffs.is_full() && bytes.is_full());
    coeffs.decode().unwrap();
    assert_eq!(coeffs.native(0), None, "no bytes to return");
}

#[test]
fn malformed_input_is_an_error_and_changes_nothing() {
    let mut dst = Basis::new(50, SYMBOL).unwrap();
    let short = CodeVector::zero(32).unwrap();
    assert_eq!(dst.insert(&short, Some(&[0; SYMBOL])), Err(CodecError::CodeLength { expected: 50, found: 32 }));
    let code = CodeVector::unit(50, 3).unwrap();
    assert_eq!(dst.insert(&code, Some(&[0; 10])), Err(CodecError::PayloadLength { expected: SYMBOL, found: 10 }));
    assert_eq!(dst.insert(&code, None), Err(CodecError::PayloadLength { expected: SYMBOL, found: 0 }));
    assert_eq!(dst.rank(), 0);
    assert_eq!(dst.decode(), Err(CodecError::NotFullRank { rank: 0, beta: 50 }));
    assert_eq!(Basis::new(0, 0).unwrap_err(), CodecError::BadBatchSize { beta: 0 });
    assert_eq!(Basis::new(53, 0).unwrap_err().to_string(), "batch size 53 outside 1..=52");
    let mut enc = BatchEncoder::new(2, 4).unwrap();
    assert_eq!(enc.push(Some(&[1; 5])), Err(CodecError::PayloadLength { expected: 4, found: 5 }));
    enc.push(Some(&[1])).unwrap();
    enc.push(Some(&[2])).unwrap();
    assert_eq!(enc.push(Some(&[3])), Err(CodecError::BatchFull { beta: 2 }));
}

#[test]
fn reset_reuses_the_basis_for_the_next_batch() {
    let beta = 32;
    let mut dst = Basis::new(beta, SYMBOL).unwrap();
    let mut rng = RngStream::new(8, "s");
    for batch in 0..3u64 {
        let nat = natives(beta, 100 + batch);
        let enc = encoder_with(&nat);
        dst.reset(beta).unwrap();
        fill(&mut dst, |s| enc.encode(&mut rng, s));
        assert_decodes_to(&mut dst, &nat);
    }
    // A shorter final batch in the same buffers.
    let nat = natives(5, 7);
    let enc = encoder_with(&nat);
    dst.reset(5).unwrap();
    fill(&mut dst, |s| enc.encode(&mut rng, s));
    assert_decodes_to(&mut dst, &nat);
}

#[test]
fn a_partial_batch_shrinks_to_its_natives_and_decodes() {
    let nat = natives(3, 11);
    let mut enc = BatchEncoder::new(50, SYMBOL).unwrap();
    for n in &nat {
        enc.push(Some(n)).unwrap();
    }
    let mut rng = RngStream::new(11, "s");
    let mut dst = Basis::new(50, SYMBOL).unwrap();
    let mut sym = Symbol::new(50, SYMBOL);
    while dst.rank() < 3 {
        enc.encode(&mut rng, &mut sym);
        dst.insert(&sym.code, sym.payload()).unwrap();
    }
    assert!(!dst.is_full());
    // A row reaching past column 2 forbids shrinking to 2.
    assert_eq!(dst.shrink(2), Err(CodecError::CodeLength { expected: 50, found: 2 }));
    dst.shrink(3).unwrap();
    assert!(dst.is_full());
    assert_decodes_to(&mut dst, &nat);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary code vectors of any length never panic the basis; a wrong
    /// length is refused; rank never exceeds β or the number of insertions.
    #[test]
    fn arbitrary_vectors_never_panic(vecs in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..60), 0..40)) {
        let mut b = Basis::new(8, 0).unwrap();
        let mut inserted = 0;
        for v in &vecs {
            match CodeVector::from_slice(v) {
                Some(code) => match b.insert(&code, None) {
                    Ok(Insert::Innovative) => inserted += 1,
                    Ok(Insert::Redundant) => {}
                    Err(e) => prop_assert_eq!(e, CodecError::CodeLength { expected: 8, found: v.len() }),
                },
                None => prop_assert!(v.len() > airtcp_coding::MAX_BATCH),
            }
        }
        prop_assert_eq!(b.rank(), inserted);
        prop_assert!(b.rank() <= 8);
    }

    /// Any full-rank set of random vectors decodes small natives exactly.
    #[test]
    fn random_batches_decode(seed in any::<u64>(), beta in 1usize..12) {
        let mut rng = RngStream::new(seed, "p");
        let nat: Vec<Vec<u8>> = (0..beta).map(|_| (0..16).map(|_| rng.next_u32() as u8).collect()).collect();
        let mut enc = BatchEncoder::new(beta, 16).unwrap();
        for n in &nat { enc.push(Some(n)).unwrap(); }
        let mut dst = Basis::new(beta, 16).unwrap();
        let mut s = Symbol::new(beta, 16);
        let mut sent = 0;
        while !dst.is_full() && sent < 100 {
            enc.encode(&mut rng, &mut s);
            dst.insert(&s.code, s.payload()).unwrap();
            sent += 1;
        }
        dst.decode().unwrap();
        for (i, n) in nat.iter().enumerate() {
            prop_assert_eq!(dst.native(i).unwrap(), &n[..]);
        }
    }
}

/// The coded bytes for a fixed seed are pinned, so the table and SIMD
/// kernels (`--features simd`) are checked to produce the same output.
#[test]
fn coded_bytes_are_pinned_across_kernels() {
    let nat = natives(50, 77);
    let enc = encoder_with(&nat);
    let mut rng = RngStream::new(77, "pin");
    let mut sym = Symbol::new(50, SYMBOL);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a over every coded packet
    for _ in 0..4 {
        enc.encode(&mut rng, &mut sym);
        for &b in sym.code.as_slice().iter().chain(&sym.payload) {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    assert_eq!(h, PINNED, "{h:#x}");
}

const PINNED: u64 = 0xc085_ca53_a73f_5380;
