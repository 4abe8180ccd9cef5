//! Replays the data-segment arrivals of a captured transfer into airtcp's
//! receiver, offline, and compares its ACK decisions with the captured
//! receiver's (a kernel's, in an emulated run), arrival by arrival.
//!
//!     cargo run --release -p airtcp-tcp --example ack_replay -- \
//!         out/emu/pcap/link0_snd-rcv.pcap [--sender 10.0.0.1] \
//!         [--rate-bps 10000000] [--delay-ms 20] [--profile linux] [--mss 1448] \
//!         [--push-ack off|short|full] [--list FROM-TO]
//!
//! The emulator's link captures stamp each packet with the start of its
//! transmission at the sender's end (lost ones included), so an arrival
//! at the receiver is that stamp plus the serialisation time at
//! `--rate-bps` plus `--delay-ms`; a data segment counts as lost when no
//! ACK of the captured receiver covers it (cumulatively or by a SACK
//! block) before the next copy of its bytes arrives. Each delivered
//! segment is handed to a listening [`Endpoint`] at its arrival time
//! (same bytes, flags, sequence and acknowledgement numbers; the
//! timestamp echo moved onto the model's clock), the application reads
//! everything at once, and what the endpoint sends then is its answer to
//! that arrival; what it sends from a timer is a timer ACK. The captured
//! receiver's ACK answers an arrival when it leaves less than 1 ms after it
//! and before the next arrival.
//!
//! The printed table counts, for every delivered data segment, whether
//! each side answered it at once, classified by what the segment was:
//! out of order, filling a hole, in order with PSH and full-sized
//! ("psh"), in order with more than one full segment unacknowledged at
//! the captured receiver ("2seg"), or in order otherwise. An ACK that
//! leaves less than 1.5 ms after an arrival and before the next one
//! answers it, on either side (Linux's SACK compression holds an
//! out-of-order segment's ACK for about 1.1 ms); the last two columns
//! count those that left 1 ms or more after it.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;

use airtcp_core::pcap::PcapReader;
use airtcp_core::{wire, Duration, Instant, Segment, SeqNum, TcpFlags};
use airtcp_tcp::config::PushAck;
use airtcp_tcp::{profiles, Endpoint};

struct Seen {
    t: Instant,
    seg: Segment,
}

struct Args {
    path: String,
    sender: [u8; 4],
    rate_bps: u64,
    delay: Duration,
    profile: String,
    mss: u32,
    push_ack: Option<PushAck>,
    list: Option<(f64, f64)>,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut a = Args {
        path: String::new(),
        sender: [10, 0, 0, 1],
        rate_bps: 10_000_000,
        delay: Duration::from_millis(20),
        profile: "linux".into(),
        mss: 1448,
        push_ack: None,
        list: None,
    };
    while let Some(x) = it.next() {
        let mut val = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match x.as_str() {
            "--sender" => {
                let v = val("--sender")?;
                let p: Vec<u8> = v.split('.').map(|o| o.parse().map_err(|_| format!("--sender {v}: not an IPv4 address"))).collect::<Result<_, _>>()?;
                a.sender = p.try_into().map_err(|_| format!("--sender {v}: not an IPv4 address"))?;
            }
            "--rate-bps" => a.rate_bps = val("--rate-bps")?.parse().map_err(|e| format!("--rate-bps: {e}"))?,
            "--delay-ms" => a.delay = Duration::from_millis(val("--delay-ms")?.parse().map_err(|e| format!("--delay-ms: {e}"))?),
            "--profile" => a.profile = val("--profile")?,
            "--mss" => a.mss = val("--mss")?.parse().map_err(|e| format!("--mss: {e}"))?,
            "--push-ack" => a.push_ack = Some(PushAck::from_name(&val("--push-ack")?)?),
            "--list" => {
                let v = val("--list")?;
                let (f, t) = v.split_once('-').ok_or(format!("--list {v}: want FROM-TO seconds"))?;
                a.list = Some((f.parse().map_err(|e| format!("--list: {e}"))?, t.parse().map_err(|e| format!("--list: {e}"))?));
            }
            p if a.path.is_empty() && !p.starts_with("--") => a.path = p.into(),
            o => return Err(format!("unknown argument {o}")),
        }
    }
    if a.path.is_empty() {
        return Err("usage: ack_replay CAPTURE [--sender IP] [--rate-bps N] [--delay-ms N] [--profile NAME] [--mss N] [--push-ack off|short|full] [--list FROM-TO]".into());
    }
    Ok(a)
}

fn read_capture(a: &Args) -> Result<(Vec<Seen>, Vec<Seen>), String> {
    let f = File::open(&a.path).map_err(|e| format!("{}: {e}", a.path))?;
    let mut r = PcapReader::new(BufReader::new(f)).map_err(|e| format!("{}: {e}", a.path))?;
    let (mut from_sender, mut from_receiver) = (Vec::new(), Vec::new());
    while let Some(rec) = r.next_record().map_err(|e| format!("{}: {e}", a.path))? {
        let Ok(pkt) = wire::decode(&rec.data) else { continue };
        let Some(seg) = pkt.segment() else { continue };
        if pkt.ip.src == a.sender {
            let ser = Duration::from_nanos(pkt.ip_len() as u64 * 8 * 1_000_000_000 / a.rate_bps);
            from_sender.push(Seen { t: rec.t + ser + a.delay, seg: *seg });
        } else {
            from_receiver.push(Seen { t: rec.t, seg: *seg });
        }
    }
    from_sender.sort_by_key(|s| s.t);
    Ok((from_sender, from_receiver))
}

fn covers(ack: &Segment, s: SeqNum, e: SeqNum) -> bool {
    ack.ack.diff(e) >= 0 || ack.sacks().iter().any(|&(l, r)| s.diff(l) >= 0 && r.diff(e) >= 0)
}

/// Whether each of the sender's data segments reached the receiver: some
/// receiver ACK after its arrival, and before the next copy of its first
/// byte arrives, covers it.
fn delivered(snd: &[Seen], rcv: &[Seen]) -> Vec<bool> {
    snd.iter()
        .enumerate()
        .map(|(i, d)| {
            if d.seg.payload_len == 0 {
                return true;
            }
            let (s, e) = (d.seg.seq, d.seg.seq + d.seg.payload_len);
            let next_copy = snd[i + 1..]
                .iter()
                .find(|x| x.seg.payload_len > 0 && x.seg.seq.diff(s) <= 0 && (x.seg.seq + x.seg.payload_len).diff(s) > 0)
                .map_or(Instant::MAX, |x| x.t);
            let first = rcv.partition_point(|a| a.t < d.t);
            rcv[first..].iter().take_while(|a| a.t < next_copy).any(|a| covers(&a.seg, s, e))
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    compressed: u32,
    model_compressed: u32,
    both: u32,
    kernel_only: u32,
    model_only: u32,
    neither: u32,
}

fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("ack_replay: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&a) {
        eprintln!("ack_replay: {e}");
        std::process::exit(1);
    }
}

fn run(a: &Args) -> Result<(), String> {
    let (snd, rcv) = read_capture(a)?;
    let ok = delivered(&snd, &rcv);
    let synack = rcv.iter().find(|s| s.seg.flags.syn()).ok_or("no SYN-ACK from the receiver in the capture")?;
    let mut cfg = profiles::config(&a.profile)?;
    cfg.mss = a.mss;
    if let Some(p) = a.push_ack {
        cfg.push_ack = p;
    }
    // The captured receiver's timestamp clock against the model's (1 ms
    // ticks from time zero): the sender echoes the former.
    let ts_off = synack.seg.timestamps.map_or(0, |(v, _)| v.wrapping_sub(synack.t.as_millis() as u32));
    let mut ep = Endpoint::new(cfg, synack.seg.src_port, synack.seg.dst_port, synack.seg.seq)?;
    ep.listen();
    let mut model_acks: Vec<(Instant, Segment, bool)> = Vec::new(); // (time, ACK, from a timer)
    let drain = |ep: &mut Endpoint, t: Instant, timer: bool, out: &mut Vec<(Instant, Segment, bool)>| {
        while ep.poll_event().is_some() {}
        while ep.recv(u64::MAX).is_some() {}
        while let Some(s) = ep.poll_transmit(t) {
            if !s.flags.syn() {
                out.push((t, s, timer));
            }
        }
    };
    // Per delivered data arrival: (index in snd, the model's first ACK
    // from then on).
    let mut arrivals: Vec<(usize, usize)> = Vec::new();
    for (i, d) in snd.iter().enumerate() {
        if !ok[i] {
            continue;
        }
        while let Some(t) = ep.poll_timeout().filter(|&t| t <= d.t) {
            ep.handle_timeout(t);
            drain(&mut ep, t, true, &mut model_acks);
        }
        let mut seg = d.seg;
        if let Some((v, e)) = seg.timestamps {
            seg.timestamps = Some((v, e.wrapping_sub(ts_off)));
        }
        let before = model_acks.len();
        ep.handle_segment(d.t, &seg);
        drain(&mut ep, d.t, false, &mut model_acks);
        if seg.payload_len > 0 {
            arrivals.push((i, before));
        }
    }
    // The captured receiver: ACK answering each arrival, and its state.
    let full = snd.iter().map(|d| d.seg.payload_len).max().unwrap_or(0);
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut rcv_nxt: Option<SeqNum> = None;
    let mut ooo: Vec<(SeqNum, SeqNum)> = Vec::new();
    for (k, &(i, first_model)) in arrivals.iter().enumerate() {
        let d = &snd[i];
        let next = arrivals.get(k + 1).map_or(Instant::MAX, |&(j, _)| snd[j].t);
        // The same rule for the model: an ACK at once, or (SACK
        // compression's timer) less than 1.5 ms later and before the next
        // arrival.
        let mack = model_acks[first_model..].iter().find(|x| x.0 < next && x.0 < d.t + Duration::from_micros(1_500));
        let m = mack.is_some();
        let model_compressed = mack.is_some_and(|x| x.0 >= d.t + Duration::from_millis(1));
        let last_ack = rcv.iter().take_while(|r| r.t < d.t).filter(|r| !r.seg.flags.syn()).last().map(|r| r.seg.ack);
        let first = rcv.partition_point(|r| r.t < d.t);
        // Linux's SACK compression (`tcp_comp_sack_*`, after three
        // immediate duplicates) sends an out-of-order segment's ACK about
        // 1.1 ms later: still this arrival's answer if before the next one.
        let kack = rcv.get(first).filter(|r| r.t < next && r.t < d.t + Duration::from_micros(1_500));
        let compressed = kack.is_some_and(|r| r.t >= d.t + Duration::from_millis(1));
        let (s, e) = (d.seg.seq, d.seg.seq + d.seg.payload_len);
        let nxt = *rcv_nxt.get_or_insert(s);
        let class = if s.diff(nxt) > 0 {
            ooo.push((s, e));
            "out of order"
        } else {
            let had_ooo = !ooo.is_empty();
            let mut n = if e.diff(nxt) > 0 { e } else { nxt };
            ooo.sort_by_key(|r| r.0 .0);
            ooo.retain(|&(l, r)| {
                if l.diff(n) <= 0 {
                    if r.diff(n) > 0 {
                        n = r;
                    }
                    false
                } else {
                    true
                }
            });
            rcv_nxt = Some(n);
            let unacked = last_ack.map_or(0, |la| n.diff(la));
            if had_ooo {
                "fills a hole"
            } else if unacked > full as i32 {
                "in order, 2seg"
            } else if d.seg.flags.contains(TcpFlags::PSH) && d.seg.payload_len >= full {
                "in order, 1seg, psh"
            } else {
                "in order, 1seg"
            }
        };
        let t = tallies.entry(class).or_default();
        t.compressed += compressed as u32;
        t.model_compressed += model_compressed as u32;
        match (kack.is_some(), m) {
            (true, true) => t.both += 1,
            (true, false) => t.kernel_only += 1,
            (false, true) => t.model_only += 1,
            (false, false) => t.neither += 1,
        }
        if let Some((f, to)) = a.list {
            let secs = d.t.as_secs_f64();
            if secs >= f && secs <= to {
                println!(
                    "{secs:.6} {}-{} {}{class:24} captured: {:10} (next ACK after {:.2} ms) model: {}",
                    s.0,
                    e.0,
                    if d.seg.flags.contains(TcpFlags::PSH) { "P " } else { "  " },
                    kack.map_or("-".to_string(), |r| format!("ack {}", r.seg.ack.0)),
                    rcv.get(first).map_or(f64::NAN, |r| (r.t.as_nanos() as f64 - d.t.as_nanos() as f64) / 1e6),
                    if m { "ack" } else { "-" }
                );
            }
        }
    }
    let data = arrivals.len() as f64;
    let kernel_acks = rcv.iter().filter(|r| !r.seg.flags.syn() && r.t > synack.t).count();
    let model_timer = model_acks.iter().filter(|x| x.2).count();
    println!("capture: {}", a.path);
    println!(
        "delivered data segments {}, lost {}; ACKs per data segment: captured receiver {:.2}, model ({}, push_ack {}) {:.2} ({} from its timers)",
        arrivals.len(),
        ok.iter().filter(|&&x| !x).count(),
        kernel_acks as f64 / data,
        a.profile,
        ep.config().push_ack.name(),
        model_acks.len() as f64 / data,
        model_timer
    );
    println!("| arrival | both ACK it | captured only | model only | neither | captured 1-1.5 ms late | model 1-1.5 ms late |");
    println!("|---|---|---|---|---|---|---|");
    for (c, t) in &tallies {
        println!("| {c} | {} | {} | {} | {} | {} | {} |", t.both, t.kernel_only, t.model_only, t.neither, t.compressed, t.model_compressed);
    }
    Ok(())
}
