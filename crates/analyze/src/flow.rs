//! One direction of a TCP connection as seen at the capture point: its
//! segments ([`Flow::on_send`]) and the peer's ACKs for them
//! ([`Flow::on_ack`]). Every metric of docs/analyze.md is computed here, in
//! one pass; memory is bounded by the data in flight.

use std::collections::VecDeque;

use crate::decode::{flags, TcpInfo};
use crate::interruptions::Tracker;
use crate::model::{
    Dir, DirSummary, Event, InterruptionRecord, RtoChain, RttSample, RtxKind, SeriesRow, Sink,
    ZeroWindow,
};

/// Duplicate ACKs that start a fast retransmit (RFC 5681 §3.2, DupThresh).
pub const DUP_THRESH: u32 = 3;
/// No retransmission timer fires sooner than this after it was (re)armed:
/// Linux's `TCP_RTO_MIN` (200 ms, include/net/tcp.h); RFC 6298 §2.4 asks
/// for 1 s, so every conforming stack is covered.
pub const RTO_MIN_NS: i64 = 200_000_000;
/// Empty series rows written for one silence at most (10 000 intervals:
/// 1000 s at the default 100 ms); longer silences leave a jump in `t_s`.
pub const MAX_EMPTY_ROWS: i64 = 10_000;
/// Retransmissions kept for a later D-SACK or Eifel verdict.
const RTX_MEMORY: usize = 256;

/// Settings shared by every flow of a capture.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Series interval, ns.
    pub interval_ns: i64,
    /// Shortest gap in in-order delivery reported as an interruption, ns.
    pub min_gap_ns: i64,
    /// Time origin of the outputs (first packet of the capture), ns.
    pub t0_ns: i64,
    /// External events (`--events`): (start, end, kind), sorted by start.
    pub external: Vec<(i64, i64, String)>,
}

/// Where a packet came from, for events.
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub t_ns: i64,
    /// Time origin of the outputs: records carry `t_ns - t0_ns`.
    pub t0_ns: i64,
    pub packet: u64,
    pub conn: u64,
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    start: u64,
    end: u64,
    t_ns: i64,
    retransmitted: bool,
    /// A SACK block has covered it (Linux's TCPCB_SACKED_ACKED).
    sacked: bool,
}

#[derive(Clone, Copy, Debug)]
struct Rtx {
    start: u64,
    end: u64,
    tsval: Option<u32>,
    packet: u64,
    /// An ACK covering it was seen (the Eifel test is done then).
    acked: bool,
    spurious: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recovery {
    None,
    Fast { recover: u64 },
    Rto { recover: u64 },
}

/// Accumulators of the current series interval.
#[derive(Clone, Copy, Debug, Default)]
struct Interval {
    end_ns: i64,
    sent: u64,
    delivered: u64,
    flight_max: u64,
    retransmissions: u32,
    short_segment: bool,
    active: bool,
    rtt_ns: Option<i64>,
}

/// One direction's state.
pub struct Flow {
    dir: Dir,
    /// Raw sequence number of relative 0 and the last one unwrapped.
    base: Option<u32>,
    last_raw: u32,
    last_rel: u64,
    /// Window scale applied to the peer's window field (after the handshake).
    pub peer_wscale: u8,
    pub mss: u32,
    started: bool,
    snd_max: u64,
    snd_una: u64,
    una_seen: bool,
    syn_end: Option<u64>,
    rwnd: u64,
    last_window_raw: u16,
    dupacks: u32,
    sacked_above: u64,
    /// When the duplicate-ACK trigger (DupThresh duplicate ACKs, or SACK
    /// blocks covering DupThresh segments) last began to hold, if no
    /// retransmission has been seen since: the instant a fast retransmit
    /// answers, however long after the last advance it comes.
    dup_trigger_since: Option<i64>,
    last_ack_t: i64,
    timer_ref_ns: i64,
    recovery: Recovery,
    outstanding: VecDeque<Sent>,
    rtx: VecDeque<Rtx>,
    /// Entries of `rtx` not yet covered by an ACK: the Eifel test walks
    /// `rtx` only while there is one (most ACKs find none).
    rtx_unacked: u32,
    ts_queue: VecDeque<(u32, i64)>,
    last_tsval: Option<u32>,
    chain: Option<RtoChain>,
    zw: Option<ZeroWindow>,
    zw_last_probe: Option<i64>,
    tracker: Tracker,
    /// Since the last delivery: retransmissions, timeouts, zero window seen,
    /// data outstanding at some point.
    gap_rtx: u32,
    gap_rto: u32,
    gap_zw: bool,
    gap_pending: bool,
    iv: Interval,
    rtt_sum_ns: i128,
    ts_sum_ns: i128,
    fin_seq: Option<u64>,
    pub fin_acked: bool,
    pub sum: DirSummary,
}

impl Flow {
    pub fn new(dir: Dir, min_gap_ns: i64) -> Self {
        Flow {
            dir,
            base: None,
            last_raw: 0,
            last_rel: 0,
            peer_wscale: 0,
            mss: 0,
            started: false,
            snd_max: 0,
            snd_una: 0,
            una_seen: false,
            syn_end: None,
            rwnd: 0,
            last_window_raw: 0,
            dupacks: 0,
            sacked_above: 0,
            dup_trigger_since: None,
            last_ack_t: i64::MIN,
            timer_ref_ns: i64::MIN,
            recovery: Recovery::None,
            outstanding: VecDeque::new(),
            rtx: VecDeque::new(),
            rtx_unacked: 0,
            ts_queue: VecDeque::new(),
            last_tsval: None,
            chain: None,
            zw: None,
            zw_last_probe: None,
            tracker: Tracker::new(min_gap_ns),
            gap_rtx: 0,
            gap_rto: 0,
            gap_zw: false,
            gap_pending: false,
            iv: Interval::default(),
            rtt_sum_ns: 0,
            ts_sum_ns: 0,
            fin_seq: None,
            fin_acked: false,
            sum: DirSummary::default(),
        }
    }

    /// Relative sequence number of `raw` (unwrapped across 2^32).
    fn rel(&mut self, raw: u32, advance: bool) -> u64 {
        let Some(_) = self.base else {
            self.base = Some(raw);
            self.last_raw = raw;
            self.last_rel = 0;
            return 0;
        };
        let delta = raw.wrapping_sub(self.last_raw) as i32 as i64;
        let rel = (self.last_rel as i64 + delta).max(0) as u64;
        if advance && delta > 0 {
            self.last_raw = raw;
            self.last_rel = rel;
        }
        rel
    }

    /// Hand an event to the sink; its detail is only formatted for a sink
    /// that keeps events (the simulator's socket analysis keeps none, and
    /// its run loop must not allocate per event).
    fn event<S: Sink + ?Sized>(&self, sink: &mut S, at: At, kind: &'static str, seq: u64, len: u32, detail: impl FnOnce() -> String) {
        if !sink.wants_events() {
            return;
        }
        let detail = detail();
        sink.event(&Event {
            t_ns: at.t_ns - at.t0_ns,
            conn: at.conn,
            dir: self.dir,
            packet: at.packet,
            kind,
            seq,
            len,
            detail,
        });
    }

    /// Close series intervals that ended before `t_ns`.
    ///
    /// Called for both directions on every packet, and almost always inside
    /// the current interval: that test is inlined, the rest is out of line.
    #[inline]
    pub fn advance_time<S: Sink + ?Sized>(&mut self, t_ns: i64, s: &Settings, conn: u64, sink: &mut S) {
        if t_ns < self.iv.end_ns && self.iv.end_ns != 0 {
            return;
        }
        self.advance_time_slow(t_ns, s, conn, sink);
    }

    #[cold]
    #[inline(never)]
    fn advance_time_slow<S: Sink + ?Sized>(&mut self, t_ns: i64, s: &Settings, conn: u64, sink: &mut S) {
        if self.iv.end_ns == 0 {
            self.iv.end_ns = s.t0_ns + ((t_ns - s.t0_ns) / s.interval_ns + 1) * s.interval_ns;
            return;
        }
        while t_ns >= self.iv.end_ns {
            self.flush_interval(s, conn, sink);
            // A silence longer than MAX_EMPTY_ROWS intervals is not written
            // row by row: the series jumps to the interval of `t_ns`.
            let behind = (t_ns - self.iv.end_ns) / s.interval_ns;
            if behind > MAX_EMPTY_ROWS {
                self.iv.end_ns += behind * s.interval_ns;
            }
        }
    }

    fn flush_interval<S: Sink + ?Sized>(&mut self, s: &Settings, conn: u64, sink: &mut S) {
        let iv = self.iv;
        let flight_now = self.snd_max - self.snd_una;
        let flight = iv.flight_max.max(flight_now);
        let limit = if !iv.active && flight == 0 {
            "idle"
        } else if self.rwnd > 0 && flight + self.mss.max(1) as u64 > self.rwnd || self.rwnd == 0 && self.una_seen {
            "rwnd"
        } else if iv.short_segment || flight == 0 {
            "app"
        } else {
            "cwnd"
        };
        sink.series(&SeriesRow {
            t_ns: iv.end_ns - s.t0_ns,
            conn,
            dir: self.dir,
            sent_bytes: iv.sent,
            delivered_bytes: iv.delivered,
            goodput_bps: iv.delivered as f64 * 8e9 / s.interval_ns as f64,
            flight_max_bytes: flight,
            rwnd_bytes: self.rwnd,
            limit,
            retransmissions: iv.retransmissions,
            rtt_ms: iv.rtt_ns.map_or(f64::NAN, |r| r as f64 / 1e6),
        });
        self.iv = Interval {
            end_ns: iv.end_ns + s.interval_ns,
            ..Interval::default()
        };
    }

    /// A segment of this direction.
    pub fn on_send<S: Sink + ?Sized>(&mut self, tcp: &TcpInfo, at: At, sink: &mut S) {
        self.sum.packets += 1;
        if tcp.flags & flags::RST != 0 {
            return;
        }
        let syn = (tcp.flags & flags::SYN != 0) as u32;
        let fin = (tcp.flags & flags::FIN != 0) as u32;
        let payload = tcp.payload_len;
        let seg_len = payload + syn + fin;
        if payload > 0 {
            self.sum.data_packets += 1;
            self.sum.bytes_sent += payload as u64;
            self.iv.sent += payload as u64;
            self.mss = self.mss.max(payload);
        }
        self.iv.active |= seg_len > 0;
        let start = self.rel(tcp.seq, true);
        let end = start + seg_len as u64;
        if fin == 1 {
            self.fin_seq = Some(end);
        }
        if syn == 1 {
            self.syn_end = Some(start + 1);
        }
        if !self.started {
            self.started = true;
            self.timer_ref_ns = at.t_ns;
            self.snd_max = end;
            if !self.una_seen {
                self.snd_una = start;
            }
            if seg_len > 0 {
                self.outstanding.push_back(Sent { start, end, t_ns: at.t_ns, retransmitted: false, sacked: false });
            }
            self.push_ts(tcp, payload, at.t_ns);
            return;
        }
        if seg_len == 0 {
            // Linux probes a closed window with a bare segment at snd_una - 1.
            if self.zw.is_some() && start + 1 == self.snd_una {
                self.probe(at, start, 0, sink);
            }
            return;
        }
        // A segment of at most one byte at the cumulative ACK point or above,
        // into a closed window, is a persist probe (RFC 9293 §3.8.6.1), not
        // a retransmission.
        if self.zw.is_some() && payload <= 1 && start >= self.snd_una {
            self.probe(at, start, payload, sink);
            if end > self.snd_max {
                self.snd_max = end;
            }
            return;
        }
        if start < self.snd_max {
            self.retransmission(tcp, at, start, end, payload, sink);
        } else {
            if start > self.snd_max {
                self.event(sink, at, "capture_gap", self.snd_max, (start - self.snd_max) as u32, String::new);
            }
            if self.snd_max == self.snd_una {
                self.timer_ref_ns = at.t_ns;
            }
            self.snd_max = end;
            self.outstanding.push_back(Sent { start, end, t_ns: at.t_ns, retransmitted: false, sacked: false });
            self.push_ts(tcp, payload, at.t_ns);
            if payload > 0 && payload < self.mss && syn == 0 {
                self.iv.short_segment = true;
            }
        }
        let flight = self.snd_max - self.snd_una;
        self.iv.flight_max = self.iv.flight_max.max(flight);
        if flight > 0 {
            self.gap_pending = true;
        }
    }

    fn push_ts(&mut self, tcp: &TcpInfo, payload: u32, t_ns: i64) {
        if let (Some((v, _)), true) = (tcp.ts, payload > 0) {
            if self.last_tsval.is_none_or_lt(v) {
                self.ts_queue.push_back((v, t_ns));
                self.last_tsval = Some(v);
                if self.ts_queue.len() > 4096 {
                    self.ts_queue.pop_front();
                }
            }
        }
    }

    fn probe<S: Sink + ?Sized>(&mut self, at: At, start: u64, len: u32, sink: &mut S) {
        self.sum.zero_window_probes += 1;
        let zw = self.zw.as_mut().expect("probe only inside an episode");
        zw.probes += 1;
        let interval = self.zw_last_probe.map(|p| at.t_ns - p);
        if let Some(i) = interval {
            zw.probe_intervals_ns.push(i);
        }
        self.zw_last_probe = Some(at.t_ns);
        self.event(sink, at, "zero_window_probe", start, len, || {
            interval.map_or(String::new(), |i| format!("interval_ms={:.3}", i as f64 / 1e6))
        });
    }

    fn retransmission<S: Sink + ?Sized>(&mut self, tcp: &TcpInfo, at: At, start: u64, end: u64, payload: u32, sink: &mut S) {
        // The retransmission timer runs from the last ACK that advanced, or
        // from the send that found nothing in flight (RFC 6298 §5.1, §5.3).
        let since_timer = at.t_ns.saturating_sub(self.timer_ref_ns);
        let at_una = start == self.snd_una;
        let dup_trigger = self.dup_trigger();
        let recovering = match self.recovery {
            Recovery::Fast { recover } | Recovery::Rto { recover } => self.snd_una < recover,
            Recovery::None => false,
        };
        let chained = self.chain.as_ref().is_some_and(|c| c.seq == start) && at_una;
        // The first retransmission of `snd_una` within RTO_MIN of the ACK
        // that met the duplicate-ACK trigger answers that ACK (RFC 5681
        // §3.2), even when the trigger came 200 ms or more after the last
        // advance (a slow ACK clock, a late RACK reordering timer): a
        // sender whose timer had expired first would have retransmitted
        // without waiting for it.
        let answers_dup_trigger = at_una
            && !recovering
            && dup_trigger
            && self.dup_trigger_since.is_some_and(|t| at.t_ns - t < RTO_MIN_NS);
        self.dup_trigger_since = None;
        let kind = if chained || at_una && since_timer >= RTO_MIN_NS && !answers_dup_trigger {
            RtxKind::Rto
        } else if recovering && matches!(self.recovery, Recovery::Fast { .. }) {
            RtxKind::FastRecovery
        } else if recovering {
            RtxKind::RtoRecovery
        } else if at_una && dup_trigger {
            RtxKind::FastRetransmit
        } else if end == self.snd_max && start > self.snd_una {
            RtxKind::Tlp
        } else {
            RtxKind::Other
        };
        match kind {
            RtxKind::FastRetransmit => {
                self.recovery = Recovery::Fast { recover: self.snd_max };
                self.sum.fast_retransmits += 1;
            }
            RtxKind::FastRecovery => self.sum.fast_recovery += 1,
            RtxKind::Rto => {
                self.timer_ref_ns = at.t_ns;
                self.recovery = Recovery::Rto { recover: self.snd_max };
                self.sum.timeouts += 1;
                self.gap_rto += 1;
                match &mut self.chain {
                    Some(c) if c.seq == start => c.times_ns.push(at.t_ns - at.t0_ns),
                    _ => {
                        self.close_chain();
                        self.chain = Some(RtoChain { seq: start, times_ns: vec![at.t_ns - at.t0_ns] });
                    }
                }
            }
            RtxKind::RtoRecovery => self.sum.rto_recovery += 1,
            RtxKind::Tlp => self.sum.tlp += 1,
            RtxKind::Other => self.sum.other_retransmissions += 1,
        }
        self.sum.retransmissions += 1;
        self.sum.retransmitted_bytes += payload as u64;
        self.iv.retransmissions += 1;
        self.gap_rtx += 1;
        let already = end <= self.snd_una;
        if already {
            self.sum.already_received += 1;
        }
        let mut covered = false;
        for s in self.outstanding.iter_mut() {
            if s.end > start && s.start < end {
                s.retransmitted = true;
                covered = true;
            }
        }
        if !covered && end > self.snd_una {
            // The original was sent before the capture began: remember the
            // copy, so that its ACK is known to be ambiguous (Karn).
            let at_end = self.outstanding.partition_point(|s| s.end < end);
            self.outstanding.insert(at_end, Sent { start, end, t_ns: at.t_ns, retransmitted: true, sacked: false });
        }
        if self.rtx.len() == RTX_MEMORY && self.rtx.pop_front().is_some_and(|r| !r.acked) {
            self.rtx_unacked -= 1;
        }
        if end > self.snd_una {
            self.rtx_unacked += 1;
        }
        self.rtx.push_back(Rtx {
            start,
            end,
            tsval: tcp.ts.map(|t| t.0),
            packet: at.packet,
            acked: end <= self.snd_una,
            spurious: false,
        });
        if end > self.snd_max {
            self.snd_max = end;
        }
        let dupacks = self.dupacks;
        let backoff = match (kind, &self.chain) {
            (RtxKind::Rto, Some(c)) => Some(c.times_ns.len() - 1),
            _ => None,
        };
        self.event(sink, at, "retransmission", start, payload, || {
            let mut detail = format!("kind={} dupacks={dupacks}", kind.name());
            if already {
                detail.push_str(" already_received=1");
            }
            if let Some(b) = backoff {
                detail.push_str(&format!(" backoff={b}"));
            }
            detail
        });
    }

    fn close_chain(&mut self) {
        if let Some(c) = self.chain.take() {
            self.sum.rto_chains.push(c);
        }
    }

    /// RFC 5681 §3.2's DupThresh duplicate ACKs since the last advance, or
    /// the latest ACK's SACK blocks covering DupThresh segments above
    /// `snd_una` (RFC 6675's IsLost).
    fn dup_trigger(&self) -> bool {
        self.dupacks >= DUP_THRESH || self.sacked_above >= DUP_THRESH as u64 * self.mss.max(1) as u64
    }

    /// A segment of the other direction: its ACK, window, SACK blocks and
    /// timestamp echo concern this direction's data.
    pub fn on_ack<S: Sink + ?Sized>(&mut self, tcp: &TcpInfo, at: At, s: &Settings, sink: &mut S) {
        if tcp.flags & flags::ACK == 0 {
            return;
        }
        let triggered_before = self.dup_trigger();
        self.ack(tcp, at, s, sink);
        if !self.dup_trigger() {
            self.dup_trigger_since = None;
        } else if !triggered_before {
            self.dup_trigger_since = Some(at.t_ns);
        }
    }

    fn ack<S: Sink + ?Sized>(&mut self, tcp: &TcpInfo, at: At, s: &Settings, sink: &mut S) {
        // This ACK gave an RTT sample by Karn's rule or RFC 7323's RTTM.
        let mut sampled = false;
        // A RST's ACK still acknowledges (a refused SYN gives an RTT
        // sample), but its window says nothing about the receiver.
        let rst = tcp.flags & flags::RST != 0;
        let a = self.rel(tcp.ack, false);
        let syn = tcp.flags & flags::SYN != 0;
        let scale = if syn { 0 } else { self.peer_wscale };
        if !rst {
            self.rwnd = (tcp.window as u64) << scale;
        }
        if !self.una_seen && !self.started {
            // The capture began after this direction's data: start here.
            self.una_seen = true;
            self.snd_una = a;
            self.snd_max = a;
            self.observe_delivery(at, s, sink);
        } else if a > self.snd_una {
            self.una_seen = true;
            let old = self.snd_una;
            // SYN and FIN take a sequence number each but are not data.
            let mut adv = a - old;
            if self.syn_end.is_some_and(|e| old < e && e <= a) {
                adv -= 1;
            }
            if self.fin_seq.is_some_and(|e| old < e && e <= a) {
                adv -= 1;
            }
            self.sum.bytes_delivered += adv;
            self.iv.delivered += adv;
            self.snd_una = a;
            self.timer_ref_ns = at.t_ns;
            if a > self.snd_max {
                self.snd_max = a;
            }
            self.dupacks = 0;
            self.close_chain();
            // Karn (RFC 6298 §3) as Linux applies it (`tcp_clean_rtx_queue`:
            // no sequence sample once FLAG_RETRANS_DATA_ACKED is set): a
            // sample from the newest segment this ACK covers only if no
            // segment it covers was ever retransmitted. An original sent
            // after a lost one waits at the receiver for the repair, so its
            // "RTT" would measure the repair, not the path.
            let mut newest = None;
            let mut covers_retransmission = false;
            while let Some(f) = self.outstanding.front() {
                if f.end > a {
                    break;
                }
                covers_retransmission |= f.retransmitted;
                newest = self.outstanding.pop_front();
            }
            match newest {
                Some(n) if !covers_retransmission => {
                    self.rtt_sample(at, "karn", at.t_ns - n.t_ns, sink);
                    sampled = true;
                }
                Some(_) => {
                    self.sum.rtt_ambiguous += 1;
                    // RFC 7323 §4: the echo of an ACK that advances is a sample.
                    sampled = tcp.ts.is_some_and(|(_, ecr)| ecr != 0);
                }
                None => {}
            }
            // Eifel (RFC 3522): the first ACK covering a retransmission
            // echoes a timestamp older than the retransmission's own.
            let pending = if self.rtx_unacked > 0 { self.rtx.len() } else { 0 };
            for r in self.rtx.iter_mut().take(pending).filter(|r| !r.acked && r.start < a) {
                r.acked = true;
                self.rtx_unacked -= 1;
                if let (Some(v), Some((_, ecr))) = (r.tsval, tcp.ts) {
                    if !r.spurious && seq_lt(ecr, v) {
                        r.spurious = true;
                        self.sum.spurious_eifel += 1;
                        if !sink.wants_events() {
                            continue;
                        }
                        let d = format!("by=eifel retransmission_packet={}", r.packet);
                        sink.event(&Event {
                            t_ns: at.t_ns - at.t0_ns,
                            conn: at.conn,
                            dir: self.dir,
                            packet: at.packet,
                            kind: "spurious_retransmission",
                            seq: r.start,
                            len: (r.end - r.start) as u32,
                            detail: d,
                        });
                    }
                }
            }
            if let Recovery::Fast { recover } | Recovery::Rto { recover } = self.recovery {
                if a >= recover {
                    self.recovery = Recovery::None;
                }
            }
            if self.fin_seq.is_some_and(|f| a >= f) {
                self.fin_acked = true;
            }
            self.observe_delivery(at, s, sink);
        } else if a == self.snd_una
            && !rst
            && tcp.payload_len == 0
            && !syn
            && tcp.flags & flags::FIN == 0
            && tcp.window == self.last_window_raw
            && self.snd_max > self.snd_una
        {
            // RFC 5681 §2 duplicate ACK: no data, same ACK and window, data outstanding.
            self.dupacks += 1;
            self.sum.dup_acks += 1;
        }
        if rst {
            return;
        }
        self.last_window_raw = tcp.window;
        self.last_ack_t = at.t_ns;
        if self.sack(tcp, at, a, sink) && !sampled {
            // Linux's sample from a new SACK (`tcp_ack_update_rtt`, 3.12),
            // on an ACK that gives neither Karn nor RTTM one.
            self.sum.rtt_sack_samples += 1;
        }
        self.zero_window(tcp, syn, at, sink);
        if let Some((_, ecr)) = tcp.ts {
            while let Some(&(v, t)) = self.ts_queue.front() {
                if seq_lt(v, ecr) {
                    self.ts_queue.pop_front();
                } else {
                    if v == ecr {
                        self.ts_queue.pop_front();
                        self.sum.rtt_ts_samples += 1;
                        self.ts_sum_ns += (at.t_ns - t) as i128;
                        sink.rtt(&RttSample {
                            t_ns: at.t_ns - at.t0_ns,
                            conn: at.conn,
                            dir: self.dir,
                            packet: at.packet,
                            source: "ts",
                            rtt_ns: at.t_ns - t,
                        });
                        if self.iv.rtt_ns.is_none() {
                            self.iv.rtt_ns = Some(at.t_ns - t);
                        }
                    }
                    break;
                }
            }
        }
    }

    fn rtt_sample<S: Sink + ?Sized>(&mut self, at: At, source: &'static str, rtt: i64, sink: &mut S) {
        let ms = rtt as f64 / 1e6;
        let n = self.sum.rtt_karn_samples;
        self.sum.rtt_karn_samples += 1;
        self.rtt_sum_ns += rtt as i128;
        self.sum.rtt_karn_min_ms = Some(self.sum.rtt_karn_min_ms.map_or(ms, |m| m.min(ms)));
        self.sum.rtt_karn_max_ms = Some(self.sum.rtt_karn_max_ms.map_or(ms, |m| m.max(ms)));
        let _ = n;
        self.iv.rtt_ns = Some(rtt);
        sink.rtt(&RttSample { t_ns: at.t_ns - at.t0_ns, conn: at.conn, dir: self.dir, packet: at.packet, source, rtt_ns: rtt });
    }

    /// Reads an ACK's SACK blocks; returns whether they newly cover a
    /// segment never retransmitted (Linux's `first_sackt` is set).
    fn sack<S: Sink + ?Sized>(&mut self, tcp: &TcpInfo, at: At, a: u64, sink: &mut S) -> bool {
        self.sacked_above = 0;
        let mut newly_original = false;
        for i in 0..tcp.n_sack as usize {
            let (l, r) = tcp.sack[i];
            let (l, r) = (self.rel(l, false), self.rel(r, false));
            self.sum.sack_blocks += 1;
            // D-SACK (RFC 2883 §4): the first block is below the cumulative
            // ACK, or inside the second block.
            let dsack = i == 0
                && (r <= a
                    || tcp.n_sack >= 2 && {
                        let (l2, r2) = tcp.sack[1];
                        let (l2, r2) = (self.rel(l2, false), self.rel(r2, false));
                        l >= l2 && r <= r2
                    });
            if dsack {
                self.sum.dsacks += 1;
                self.event(sink, at, "dsack", l, r.saturating_sub(l) as u32, String::new);
                let mut found = None;
                for x in self.rtx.iter_mut().rev() {
                    if x.start < r && l < x.end && !x.spurious {
                        x.spurious = true;
                        found = Some(*x);
                        break;
                    }
                }
                if let Some(x) = found {
                    self.sum.spurious_dsack += 1;
                    self.event(sink, at, "spurious_retransmission", x.start, (x.end - x.start) as u32, || format!("by=dsack retransmission_packet={}", x.packet));
                }
            } else if l >= a && r > l {
                self.sacked_above += r - l;
                let first = self.outstanding.partition_point(|s| s.end <= l);
                for s in self.outstanding.range_mut(first..) {
                    if s.start >= r {
                        break;
                    }
                    if s.start >= l && s.end <= r && !s.sacked {
                        s.sacked = true;
                        newly_original |= !s.retransmitted;
                    }
                }
            }
        }
        newly_original
    }

    fn zero_window<S: Sink + ?Sized>(&mut self, tcp: &TcpInfo, syn: bool, at: At, sink: &mut S) {
        if syn {
            return;
        }
        if tcp.window == 0 {
            self.sum.zero_window_acks += 1;
            if self.zw.is_none() {
                self.zw = Some(ZeroWindow {
                    start_ns: at.t_ns - at.t0_ns,
                    end_ns: None,
                    probes: 0,
                    probe_intervals_ns: Vec::new(),
                    retransmissions: self.sum.retransmissions as u32,
                });
                self.zw_last_probe = None;
                self.gap_zw = true;
                self.event(sink, at, "zero_window_open", self.snd_una, 0, String::new);
            }
        } else if self.zw.is_some() {
            self.end_zero_window(Some(at.t_ns - at.t0_ns));
            let rwnd = self.rwnd;
            self.event(sink, at, "zero_window_close", self.snd_una, 0, || format!("window={rwnd}"));
        }
    }

    fn end_zero_window(&mut self, end: Option<i64>) {
        if let Some(mut zw) = self.zw.take() {
            zw.end_ns = end;
            zw.retransmissions = self.sum.retransmissions as u32 - zw.retransmissions;
            self.sum.zero_windows.push(zw);
        }
    }

    /// An in-order delivery observation for the interruption tracker.
    fn observe_delivery<S: Sink + ?Sized>(&mut self, at: At, s: &Settings, sink: &mut S) {
        let delivered = self.sum.bytes_delivered;
        // Observations come in capture order; a capture whose clock steps
        // back is not an interruption.
        let Ok(found) = self.tracker.observe(at.t_ns, delivered) else {
            return;
        };
        if let Some(i) = found {
            if self.gap_pending {
                self.record_interruption(i.start_ns, i.end_ns, i.delivered_before, s, at, sink);
            }
        }
        self.gap_rtx = 0;
        self.gap_rto = 0;
        self.gap_zw = self.zw.is_some();
        self.gap_pending = self.snd_max > self.snd_una;
    }

    fn record_interruption<S: Sink + ?Sized>(&mut self, start: i64, end: Option<i64>, before: u64, s: &Settings, at: At, sink: &mut S) {
        let inside: Vec<&(i64, i64, String)> = s
            .external
            .iter()
            .filter(|(es, ee, _)| *ee >= start && end.is_none_or_ge(*es))
            .collect();
        let idle = match (end, inside.iter().map(|e| e.1).max()) {
            (Some(e), Some(ret)) => Some(e - ret),
            _ => None,
        };
        let rec = InterruptionRecord {
            start_ns: start - s.t0_ns,
            end_ns: end.map(|e| e - s.t0_ns),
            delivered_before: before,
            retransmissions: self.gap_rtx,
            timeouts: self.gap_rto,
            zero_window: self.gap_zw,
            external: inside.iter().map(|e| e.2.clone()).collect(),
            idle_after_return_ns: idle,
        };
        self.event(sink, at, "interruption", before, 0, || {
            format!(
                "start_s={:.9} duration_s={} retransmissions={} timeouts={} zero_window={}",
                rec.start_ns as f64 / 1e9,
                rec.end_ns.map_or("open".into(), |e| format!("{:.9}", (e - rec.start_ns) as f64 / 1e9)),
                rec.retransmissions,
                rec.timeouts,
                rec.zero_window as u8
            )
        });
        self.sum.interruptions.push(rec);
    }

    /// End of the capture (or of the connection): close what is open.
    pub fn finish<S: Sink + ?Sized>(&mut self, last_ns: i64, s: &Settings, at: At, sink: &mut S) {
        self.advance_time(last_ns, s, at.conn, sink);
        if self.iv.end_ns != 0 {
            self.flush_interval(s, at.conn, sink);
        }
        if self.snd_max > self.snd_una && self.gap_pending {
            if let Some(i) = self.tracker.finish(last_ns) {
                self.record_interruption(i.start_ns, None, i.delivered_before, s, at, sink);
            }
        }
        self.close_chain();
        self.end_zero_window(None);
        self.sum.bytes_unique = self.snd_max.saturating_sub(self.base_start());
        if self.sum.rtt_karn_samples > 0 {
            self.sum.rtt_karn_mean_ms = Some((self.rtt_sum_ns / self.sum.rtt_karn_samples as i128) as f64 / 1e6);
        }
        if self.sum.rtt_ts_samples > 0 {
            self.sum.rtt_ts_mean_ms = Some((self.ts_sum_ns / self.sum.rtt_ts_samples as i128) as f64 / 1e6);
        }
    }

    fn base_start(&self) -> u64 {
        0
    }
}

/// `a < b` in sequence-number arithmetic (RFC 1982 style, 32 bits).
fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

trait OptExt {
    fn is_none_or_lt(&self, v: u32) -> bool;
}
impl OptExt for Option<u32> {
    fn is_none_or_lt(&self, v: u32) -> bool {
        self.is_none_or(|l| seq_lt(l, v))
    }
}
trait OptGe {
    fn is_none_or_ge(&self, v: i64) -> bool;
}
impl OptGe for Option<i64> {
    fn is_none_or_ge(&self, v: i64) -> bool {
        self.is_none_or(|e| e >= v)
    }
}
