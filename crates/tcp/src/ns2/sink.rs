//! ns-2's `Agent/TCPSink` and `Agent/TCPSink/DelAck` (tcp-sink.cc): a
//! cumulative acknowledger over packet numbers. Each ACK carries the
//! highest packet received in order; TCPSink answers every packet,
//! DelAck holds the ACK of an in-order packet up to `interval_` unless a
//! second packet arrives, the packet fills a gap, or it is the SYN.

use std::collections::VecDeque;

use airtcp_core::{Duration, Instant};

use super::config::{Ns2Config, Ns2SinkKind};
use crate::stats::TcpStats;

/// One ns-2 `Agent/TCPSink` or `Agent/TCPSink/DelAck` receiver over packet numbers.
#[derive(Clone, Debug)]
pub struct Ns2Sink {
    kind: Ns2SinkKind,
    interval: Duration,
    packet_size: u32,
    syn: bool,
    /// Next packet expected in order (`next_`); ACKs carry `next - 1`.
    next: i64,
    /// Highest packet seen (`maxseen_`).
    maxseen: i64,
    /// Packets received above `next` (bit i = packet next + 1 + i), grown on need.
    seen: VecDeque<bool>,
    /// The delayed-ACK timer's deadline.
    delack: Option<Instant>,
    acks: VecDeque<i64>,
    /// Data packets delivered in order to the application (the SYN excluded).
    pub delivered_packets: u64,
    stats: TcpStats,
}

impl Ns2Sink {
    /// A sink expecting packet 0, with the sink kind and DelAck interval of `cfg`.
    pub fn new(cfg: &Ns2Config) -> Self {
        Ns2Sink {
            kind: cfg.sink,
            interval: cfg.delack_interval,
            packet_size: cfg.packet_size,
            syn: cfg.syn,
            next: 0,
            maxseen: -1,
            seen: VecDeque::with_capacity(64),
            delack: None,
            acks: VecDeque::with_capacity(4),
            delivered_packets: 0,
            stats: TcpStats::default(),
        }
    }

    /// Counters since creation (ACKs sent, packets received).
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }

    /// Highest packet received in order (`Seqno()`), -1 before any.
    pub fn seqno(&self) -> i64 {
        self.next - 1
    }

    /// Next ACK to send: the highest packet received in order; drain after every call.
    pub fn poll_ack(&mut self) -> Option<i64> {
        let a = self.acks.pop_front()?;
        self.stats.segs_sent += 1;
        Some(a)
    }

    /// Deadline of the delayed-ACK timer, if armed.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.delack
    }

    /// The delayed-ACK timer fires if due: acknowledge what arrived.
    pub fn handle_timeout(&mut self, now: Instant) {
        if matches!(self.delack, Some(d) if d <= now) {
            self.delack = None;
            self.acks.push_back(self.seqno());
        }
    }

    /// Packet `seqno` arrives (`Acker::update`, then the sink's ACK rule).
    pub fn handle_packet(&mut self, now: Instant, seqno: i64) {
        self.stats.segs_received += 1;
        if seqno < 0 {
            return;
        }
        let dup = self.update(seqno);
        if dup {
            self.stats.dup_data_segs_received += 1;
        }
        match self.kind {
            Ns2SinkKind::TcpSink => self.acks.push_back(self.seqno()),
            Ns2SinkKind::DelAck => {
                if self.delack.is_none() && seqno == self.seqno() {
                    // RFC2581_immediate_ack_ (gap filled) and SYN_immediate_ack_.
                    let immediate = seqno < self.maxseen || seqno == 0;
                    if !immediate {
                        self.delack = Some(now + self.interval);
                        return;
                    }
                }
                self.delack = None;
                self.acks.push_back(self.seqno());
            }
        }
    }

    /// Record `seq`; returns whether it had been received before.
    fn update(&mut self, seq: i64) -> bool {
        if seq > self.maxseen {
            self.maxseen = seq;
        }
        if seq < self.next {
            return true;
        }
        let idx = (seq - self.next) as usize;
        if idx > 0 {
            let i = idx - 1;
            if self.seen.len() <= i {
                self.seen.resize(i + 1, false);
            }
            let was = self.seen[i];
            self.seen[i] = true;
            return was;
        }
        // In order: deliver it and everything queued behind it.
        self.deliver_one();
        while let Some(true) = self.seen.front() {
            self.seen.pop_front();
            self.deliver_one();
        }
        if !self.seen.is_empty() {
            self.seen.pop_front();
        }
        false
    }

    fn deliver_one(&mut self) {
        if !(self.next == 0 && self.syn) {
            self.delivered_packets += 1;
            self.stats.bytes_delivered += self.packet_size as u64;
        }
        self.next += 1;
    }
}
