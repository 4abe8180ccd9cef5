//! Codec throughput: encode, recode and decode of 1500-byte packets at
//! β = 32 (MORE) and β = 50 (TCPFender).
//!
//!     cargo run --release -p airtcp-coding --example codec_bench
//!     cargo run --release -p airtcp-coding --features simd --example codec_bench
//!
//! MB/s counts payload bytes: coded bytes produced for encode and recode,
//! native bytes recovered for decode (insertion with elimination plus
//! back-substitution, the whole receiver's work).

use std::hint::black_box;
use std::time::Instant;

use airtcp_coding::{Basis, BatchEncoder, Symbol};
use airtcp_core::RngStream;

const SYMBOL: usize = 1500;
/// Enough work per figure for a stable rate (about 0.1–0.5 s each).
const BYTES_PER_FIGURE: usize = 200 << 20;

fn full_encoder(beta: usize, rng: &mut RngStream) -> BatchEncoder {
    let mut enc = BatchEncoder::new(beta, SYMBOL).unwrap();
    let native: Vec<u8> = (0..SYMBOL).map(|_| rng.next_u32() as u8).collect();
    for _ in 0..beta {
        enc.push(Some(&native)).unwrap();
    }
    enc
}

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

fn encode_rate(beta: usize) -> f64 {
    let mut rng = RngStream::new(1, "bench");
    let enc = full_encoder(beta, &mut rng);
    let mut sym = Symbol::new(beta, SYMBOL);
    let n = BYTES_PER_FIGURE / SYMBOL / beta * 8;
    let t = Instant::now();
    for _ in 0..n {
        enc.encode(&mut rng, &mut sym);
        black_box(&sym);
    }
    mbps(n * SYMBOL, t.elapsed().as_secs_f64())
}

fn recode_rate(beta: usize) -> f64 {
    let mut rng = RngStream::new(2, "bench");
    let enc = full_encoder(beta, &mut rng);
    let mut fwd = Basis::new(beta, SYMBOL).unwrap();
    let mut sym = Symbol::new(beta, SYMBOL);
    while !fwd.is_full() {
        enc.encode(&mut rng, &mut sym);
        fwd.insert(&sym.code, sym.payload()).unwrap();
    }
    let n = BYTES_PER_FIGURE / SYMBOL / beta * 8;
    let t = Instant::now();
    for _ in 0..n {
        fwd.recode(&mut rng, &mut sym);
        black_box(&sym);
    }
    mbps(n * SYMBOL, t.elapsed().as_secs_f64())
}

fn decode_rate(beta: usize) -> f64 {
    let mut rng = RngStream::new(3, "bench");
    let enc = full_encoder(beta, &mut rng);
    // Pre-encode a batch's worth of packets (plus spares) outside the timing.
    let coded: Vec<Symbol> = (0..beta + 8)
        .map(|_| {
            let mut s = Symbol::new(beta, SYMBOL);
            enc.encode(&mut rng, &mut s);
            s
        })
        .collect();
    let mut dst = Basis::new(beta, SYMBOL).unwrap();
    let batches = BYTES_PER_FIGURE / SYMBOL / beta / 4;
    let t = Instant::now();
    for _ in 0..batches {
        dst.reset(beta).unwrap();
        for s in &coded {
            if dst.is_full() {
                break;
            }
            dst.insert(&s.code, s.payload()).unwrap();
        }
        dst.decode().unwrap();
        black_box(dst.native(0));
    }
    mbps(batches * beta * SYMBOL, t.elapsed().as_secs_f64())
}

/// Coefficient-only mode (the simulator's default): coded packets inserted
/// per second (each reduced against the rows held, a batch decoded at full
/// rank), and recoded vectors per second from a full-rank forwarder.
fn coefficient_only(beta: usize) -> (f64, f64) {
    let mut rng = RngStream::new(4, "bench");
    let mut enc = BatchEncoder::new(beta, 0).unwrap();
    for _ in 0..beta {
        enc.push(None).unwrap();
    }
    let coded: Vec<Symbol> = (0..beta + 8)
        .map(|_| {
            let mut s = Symbol::new(beta, 0);
            enc.encode(&mut rng, &mut s);
            s
        })
        .collect();
    let mut dst = Basis::new(beta, 0).unwrap();
    let (batches, mut inserted) = (20_000, 0usize);
    let t = Instant::now();
    for _ in 0..batches {
        dst.reset(beta).unwrap();
        for s in &coded {
            if dst.is_full() {
                break;
            }
            inserted += 1;
            dst.insert(&s.code, None).unwrap();
        }
        dst.decode().unwrap();
    }
    let insert_rate = inserted as f64 / t.elapsed().as_secs_f64();
    let mut out = Symbol::new(beta, 0);
    let n = 1_000_000;
    let t = Instant::now();
    for _ in 0..n {
        dst.recode(&mut rng, &mut out);
        black_box(&out);
    }
    (insert_rate, n as f64 / t.elapsed().as_secs_f64())
}

fn main() {
    let kernels = if cfg!(feature = "simd") { "simd" } else { "table" };
    println!("RLNC over GF(2^8), {SYMBOL}-byte packets, {kernels} kernels (MB/s of payload)");
    println!("| β | encode | recode | decode |");
    println!("|---|---|---|---|");
    for beta in [32, 50] {
        println!("| {beta} | {:.0} | {:.0} | {:.0} |", encode_rate(beta), recode_rate(beta), decode_rate(beta));
    }
    println!();
    println!("Coefficient-only mode (million packets per second)");
    println!("| β | insert (reduce; decode at full rank) | recode |");
    println!("|---|---|---|");
    for beta in [32, 50] {
        let (ins, rec) = coefficient_only(beta);
        println!("| {beta} | {:.2} | {:.2} |", ins / 1e6, rec / 1e6);
    }
}
