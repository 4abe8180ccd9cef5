//! TCP behaviours seen in a capture: one conversation per test, built
//! segment by segment (client sends data, server acknowledges).

use crate::common;
use std::io::Cursor;

use airtcp_analyze::model::{Collect, DirSummary};
use airtcp_analyze::{analyze_reader, Options};
use common::*;
use etherparse::TcpOptionElement;

const MS: u64 = 1_000_000;
const MSS: usize = 1000;

/// A capture being written: the client's data segments and the server's ACKs.
struct Conv {
    pkts: Vec<(u64, Vec<u8>)>,
    t: u64,
}

impl Conv {
    /// The handshake, capture beside the client (SYN/ACK after 50 ms, ACK at once).
    fn new() -> Self {
        let mut c = Conv { pkts: Vec::new(), t: 1_000 * MS };
        c.push(Seg { seq: 0, syn: true, win: 65535, ..Seg::default() });
        c.t += 50 * MS;
        c.push(Seg { from_server: true, seq: 0, ack: Some(1), syn: true, win: 65535, ..Seg::default() });
        c.push(Seg { seq: 1, ack: Some(1), win: 65535, ..Seg::default() });
        c
    }
    fn push(&mut self, s: Seg) {
        self.pkts.push((self.t, ipv4(&s)));
    }
    fn at(&mut self, ms: u64) -> &mut Self {
        self.t += ms * MS;
        self
    }
    /// Client data segment number `i` (bytes 1 + i*MSS ..).
    fn send(&mut self, i: u32) -> &mut Self {
        self.send_opts(i, vec![])
    }
    fn send_opts(&mut self, i: u32, opts: Vec<TcpOptionElement>) -> &mut Self {
        self.push(Seg { seq: 1 + i * MSS as u32, ack: Some(1), win: 65535, len: MSS, opts, ..Seg::default() });
        self
    }
    /// Server ACK of the first `n` segments with window `win`.
    fn ack(&mut self, n: u32, win: u16) -> &mut Self {
        self.ack_opts(n, win, vec![])
    }
    fn ack_opts(&mut self, n: u32, win: u16, opts: Vec<TcpOptionElement>) -> &mut Self {
        self.push(Seg { from_server: true, seq: 1, ack: Some(1 + n * MSS as u32), win, opts, ..Seg::default() });
        self
    }
    fn analyze_with(&self, opts: Options) -> (DirSummary, Collect) {
        let mut sink = Collect::default();
        analyze_reader(Cursor::new(pcap(101, true, 65535, &self.pkts)), &opts, &mut sink).unwrap();
        (sink.connections[0].fwd.clone(), sink)
    }
    fn analyze(&self) -> (DirSummary, Collect) {
        self.analyze_with(Options::default())
    }
}

fn kinds(c: &Collect) -> Vec<String> {
    c.events
        .iter()
        .filter(|e| e.kind == "retransmission")
        .map(|e| e.detail.split_whitespace().next().unwrap().trim_start_matches("kind=").to_string())
        .collect()
}

#[test]
fn established_rto_backs_off() {
    let mut c = Conv::new();
    c.at(10).send(0).ack(1, 65535).send(1);
    for gap in [1000, 2000, 4000] {
        c.at(gap).send(1);
    }
    let (d, col) = c.analyze();
    assert_eq!((d.retransmissions, d.timeouts), (3, 3));
    assert_eq!(kinds(&col), ["rto", "rto", "rto"]);
    let chain = &d.rto_chains[0];
    assert_eq!(chain.seq, 1001);
    let gaps: Vec<i64> = chain.times_ns.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, [2000 * MS as i64, 4000 * MS as i64]);
}

#[test]
fn three_dupacks_then_fast_retransmit_and_recovery() {
    let mut c = Conv::new();
    c.at(10);
    for i in 0..6 {
        c.send(i);
    }
    // Segment 1 lost: ACK of 1, then three duplicates (segments 2, 3, 4 arrive).
    c.at(50).ack(1, 65535).ack(1, 65535).ack(1, 65535).ack(1, 65535);
    c.send(1); // fast retransmit
    c.at(50).ack(3, 65535); // partial ACK: segment 3 lost too
    c.send(3); // NewReno: the next hole at once
    c.at(50).ack(6, 65535);
    let (d, col) = c.analyze();
    assert_eq!(kinds(&col), ["fast_retransmit", "fast_recovery"]);
    assert_eq!((d.fast_retransmits, d.fast_recovery, d.timeouts, d.dup_acks), (1, 1, 0, 3));
    assert_eq!(d.bytes_delivered, 6 * MSS as u64);
}

/// A slow ACK clock: the third duplicate ACK comes 320 ms after the last
/// advance (mesh-tcpfender's sender, whose RTO was longer). The
/// retransmission that answers it at once is a fast retransmit, not a
/// timeout; one that comes 200 ms after the trigger without answering it
/// is the timer's.
#[test]
fn late_third_dupack_is_answered_by_a_fast_retransmit() {
    let mut c = Conv::new();
    c.at(10);
    for i in 0..5 {
        c.send(i);
    }
    c.at(50).ack(1, 65535).at(100).ack(1, 65535).at(100).ack(1, 65535).at(120).ack(1, 65535);
    c.send(1);
    c.at(50).ack(5, 65535);
    let (d, col) = c.analyze();
    assert_eq!(kinds(&col), ["fast_retransmit"]);
    assert_eq!((d.fast_retransmits, d.timeouts), (1, 0));

    let mut c = Conv::new();
    c.at(10);
    for i in 0..5 {
        c.send(i);
    }
    c.at(50).ack(1, 65535).ack(1, 65535).ack(1, 65535).ack(1, 65535);
    c.at(250).send(1);
    let (d, col) = c.analyze();
    assert_eq!(kinds(&col), ["rto"]);
    assert_eq!((d.fast_retransmits, d.timeouts), (0, 1));
}

#[test]
fn retransmission_of_the_last_segment_with_earlier_data_outstanding_is_a_tlp() {
    let mut c = Conv::new();
    c.at(10).send(0).send(1).send(2);
    c.at(100).send(2);
    let (d, col) = c.analyze();
    assert_eq!(kinds(&col), ["tlp"]);
    assert_eq!((d.tlp, d.timeouts), (1, 0));
}

#[test]
fn karn_takes_no_sample_from_a_retransmitted_segment() {
    let mut c = Conv::new();
    c.at(10).send(0).at(30).ack(1, 65535).send(1).at(300).send(1).at(30).ack(2, 65535);
    let (d, col) = c.analyze();
    // The SYN's (its SYN/ACK after 50 ms) and segment 0's (30 ms); not segment 1's.
    let ms: Vec<f64> = col.rtt.iter().filter(|r| r.source == "karn" && r.dir == airtcp_analyze::model::Dir::Fwd).map(|r| r.rtt_ns as f64 / 1e6).collect();
    assert_eq!(ms, [50.0, 30.0]);
    assert_eq!((d.rtt_karn_samples, d.rtt_ambiguous), (2, 1));
}

#[test]
fn karn_takes_no_sample_from_an_ack_that_also_covers_a_retransmission() {
    // Segment 1 is lost and repaired; segment 2, sent once, waited at the
    // receiver behind it. The ACK of both measures the repair, not the path:
    // Linux takes no sample from it (tcp_clean_rtx_queue, FLAG_RETRANS_DATA_ACKED).
    let mut c = Conv::new();
    c.at(10).send(0).send(1).send(2).at(30).ack(1, 65535).at(300).send(1).at(30).ack(3, 65535);
    let (d, col) = c.analyze();
    let ms: Vec<f64> = col.rtt.iter().filter(|r| r.source == "karn" && r.dir == airtcp_analyze::model::Dir::Fwd).map(|r| r.rtt_ns as f64 / 1e6).collect();
    assert_eq!(ms, [50.0, 30.0], "the SYN's and segment 0's only");
    assert_eq!((d.rtt_karn_samples, d.rtt_ambiguous), (2, 1));
}

#[test]
fn a_new_sack_of_an_original_counts_as_a_linux_sample_once() {
    // Segment 0 lost: two duplicate ACKs SACK segments 1 and 2, then a
    // third repeats the block of segment 2 (nothing new). Then the repair
    // is acknowledged without timestamps together with a new SACK of
    // segment 4 (segment 3 lost too): Karn gives nothing, the SACK does.
    let sack = |l: u32, r: u32| vec![TcpOptionElement::Noop, TcpOptionElement::Noop,
        TcpOptionElement::SelectiveAcknowledgement((l, r), [None, None, None])];
    let mut c = Conv::new();
    c.at(10).send(0).send(1).send(2).send(3).send(4);
    c.at(30).ack_opts(0, 65535, sack(1001, 2001)).ack_opts(0, 65535, sack(1001, 3001)).ack_opts(0, 65535, sack(1001, 3001));
    c.at(5).send(0).at(30).ack_opts(3, 65535, sack(4001, 5001));
    let (d, _) = c.analyze();
    assert_eq!((d.rtt_karn_samples, d.rtt_ambiguous, d.rtt_sack_samples), (1, 1, 3));
}

#[test]
fn dsack_marks_the_retransmission_spurious() {
    let mut c = Conv::new();
    c.at(10).send(0).send(1).at(300).send(0); // an RTO, but the original arrives
    // ACK of both; then the copy arrives: D-SACK of segment 0 (RFC 2883).
    c.at(20).ack(2, 65535);
    c.at(20).ack_opts(2, 65535, vec![TcpOptionElement::Noop, TcpOptionElement::Noop,
        TcpOptionElement::SelectiveAcknowledgement((1, 1001), [None, None, None])]);
    let (d, col) = c.analyze();
    assert_eq!((d.timeouts, d.dsacks, d.spurious_dsack), (1, 1, 1));
    assert!(col.events.iter().any(|e| e.kind == "spurious_retransmission" && e.detail.starts_with("by=dsack")));
}

#[test]
fn eifel_ack_echoing_the_original_timestamp_marks_spurious() {
    let ts = |v, e| vec![TcpOptionElement::Noop, TcpOptionElement::Noop, TcpOptionElement::Timestamp(v, e)];
    let mut c = Conv::new();
    c.at(10).send_opts(0, ts(100, 1));
    c.at(300).send_opts(0, ts(400, 1)); // timeout
    c.at(5).ack_opts(1, 65535, ts(2, 100)); // echoes the original's TSval
    let (d, _) = c.analyze();
    assert_eq!((d.timeouts, d.spurious_eifel), (1, 1));
    assert_eq!(d.rtt_ts_samples, 1);
}

#[test]
fn zero_window_episode_with_probes_and_reopening() {
    let mut c = Conv::new();
    c.at(10).send(0).send(1).at(50).ack(2, 0);
    // Persist probes of one byte at 200, 600 and 1400 ms (doubling intervals).
    for gap in [200, 400, 800] {
        c.at(gap);
        c.push(Seg { seq: 2001, ack: Some(1), win: 65535, len: 1, ..Seg::default() });
        c.at(1).ack(2, 0);
    }
    c.at(100).ack(2, 8000);
    let (d, col) = c.analyze();
    assert_eq!((d.zero_window_probes, d.retransmissions), (3, 0));
    let zw = &d.zero_windows[0];
    assert_eq!(zw.probes, 3);
    assert_eq!(zw.probe_intervals_ns, [401 * MS as i64, 801 * MS as i64]);
    assert_eq!(zw.end_ns.unwrap() - zw.start_ns, (200 + 1 + 400 + 1 + 800 + 1 + 100) * MS as i64);
    assert!(col.events.iter().any(|e| e.kind == "zero_window_close"));
}

#[test]
fn interruption_spans_last_delivery_to_first_new_delivery_with_the_handoff_inside() {
    let mut c = Conv::new();
    c.at(10).send(0).at(30).ack(1, 65535).send(1);
    // Segment 1 is sent at 1.09 s; the path is gone from 2.2 s to 3.5 s; the
    // RTO retransmission at 2.09 s is lost, the one at 4.09 s gets through.
    c.at(1000).send(1).at(2000).send(1).at(30).ack(2, 65535);
    let opts = Options { events: vec![(2.2, 3.5, "handoff".into())], ..Options::default() };
    let (d, _) = c.analyze_with(opts);
    assert_eq!(d.interruptions.len(), 1);
    let i = &d.interruptions[0];
    // A clock that starts near 0 (a simulated run) is kept as the time axis.
    assert_eq!(i.start_ns, 1090 * MS as i64);
    assert_eq!(i.end_ns, Some(4120 * MS as i64));
    assert_eq!((i.retransmissions, i.timeouts), (2, 2));
    assert_eq!(i.external, ["handoff"]);
    // The first new delivery (4.12 s) came 0.62 s after the path returned.
    assert_eq!(i.idle_after_return_ns, Some(620 * MS as i64));
}

#[test]
fn capture_beside_the_client_is_the_senders_side() {
    let mut c = Conv::new();
    c.at(10).send(0).at(30).ack(1, 65535);
    let (_, col) = c.analyze();
    assert_eq!(col.connections[0].fwd.capture_point, "sender");
    assert_eq!(col.connections[0].rev.capture_point, "receiver");
}
