//! What goes on the wire next (`poll_transmit`): RST, SYN / SYN-ACK, a tail
//! loss probe (`tlp.rs`), lost segments (Linux `tcp_xmit_retransmit_queue`
//! runs before new data), new data within min(cwnd, peer window), window
//! probes, then a pure ACK.

use airtcp_core::{Ecn, Instant, Segment, TcpFlags};

use super::scoreboard::{TxSeg, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::{Endpoint, State, TimerKind};
use crate::cc::{CaEvent, CaState, CongestionOps};
use crate::config::RtoTimer;

impl Endpoint {
    /// Next segment to put on the wire and the ECN codepoint its IPv4
    /// header must carry (ECT(0) for new data of an ECN connection).
    pub fn poll_transmit_ecn(&mut self, now: Instant) -> Option<(Segment, Ecn)> {
        let seg = self.poll_transmit(now)?;
        Some((seg, if self.tx_ect { Ecn::Ect0 } else { Ecn::NotEct }))
    }

    /// Next segment to put on the wire, if any is allowed now (the ECN
    /// codepoint it needs is `poll_transmit_ecn`'s business).
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Segment> {
        self.set_clock(now);
        self.tx_ect = false;
        if self.rs.read_pending {
            self.rcv_space_adjust(now);
        }
        if self.send_rst {
            self.send_rst = false;
            let mut seg = self.header(now, TcpFlags::RST | TcpFlags::ACK);
            seg.timestamps = None;
            seg.sack_len = 0;
            self.stats.segs_sent += 1;
            return Some(seg);
        }
        if let Some((seq, ack)) = self.closed_reply.take() {
            let flags = if ack.is_some() { TcpFlags::RST | TcpFlags::ACK } else { TcpFlags::RST };
            self.stats.segs_sent += 1;
            return Some(Segment {
                src_port: self.local_port,
                dst_port: self.remote_port,
                seq,
                ack: ack.unwrap_or_default(),
                flags,
                ..Default::default()
            });
        }
        match self.state {
            State::Closed | State::Listen => return None,
            State::SynSent | State::SynReceived => {
                return if self.send_syn { Some(self.build_syn(now)) } else { None };
            }
            _ => {}
        }
        if self.tr_acks > 0 {
            // Freeze-TCP reconnection (`freeze.rs`): the TR-ACKs first.
            self.tr_acks -= 1;
            self.stats.freeze_tr_acks += 1;
            let seg = self.header(now, TcpFlags::ACK);
            self.stats.segs_sent += 1;
            return Some(seg);
        }
        if self.witcp_frozen.is_some() {
            // Wi-TCP freeze (`witcp.rs`): nothing but ACKs.
            if self.ack_now {
                let seg = self.header(now, TcpFlags::ACK);
                self.stats.segs_sent += 1;
                return Some(seg);
            }
            self.witcp_hold_timers();
            return None;
        }
        if self.tlp_send.is_some() {
            if let Some(seg) = self.send_loss_probe(now) {
                return Some(seg);
            }
        }
        if let Some(seg) = self.send_data(now) {
            return Some(seg);
        }
        if self.probe_pending {
            self.probe_pending = false;
            return Some(self.build_probe(now));
        }
        if self.ack_now {
            let seg = self.header(now, TcpFlags::ACK);
            self.stats.segs_sent += 1;
            return Some(seg);
        }
        self.update_persist(now);
        self.check_space();
        None
    }

    /// A segment carrying our current ACK, window, timestamps and SACK blocks;
    /// sending it satisfies any pending (delayed) ACK.
    fn header(&mut self, now: Instant, flags: TcpFlags) -> Segment {
        let nxt = self.rcv_nxt();
        let mut seg = Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.seq_of(self.snd_nxt),
            ack: self.irs + nxt as u32,
            flags,
            window: self.window_field(),
            ..Default::default()
        };
        if self.ts_ok {
            seg.timestamps = Some((self.ts_now(now), self.ts_recent));
        }
        if self.sack_ok {
            // RFC 2883 §4: the D-SACK block goes first, once.
            if let Some(d) = self.dsack_block.take() {
                let (l, r) = super::undo::dsack_wire(self.irs, d);
                if seg.push_sack(l, r) {
                    self.stats.dsacks_sent += 1;
                }
            }
            for i in 0..self.rcv.recent.len() {
                let (l, r) = self.rcv.recent[i];
                let (l, r) = (self.irs + (l + 1) as u32, self.irs + (r + 1) as u32);
                if !seg.push_sack(l, r) {
                    break;
                }
            }
        }
        self.ecn_echo(&mut seg);
        self.ack_now = false;
        self.delack_segs = 0;
        self.ack_pushed = false;
        self.timers.stop(TimerKind::DelayedAck);
        self.sack_comp_ack_sent();
        self.last_ack_sent = nxt;
        seg
    }

    fn build_syn(&mut self, now: Instant) -> Segment {
        let syn_ack = self.state == State::SynReceived;
        let window = self.syn_window();
        let mut seg = Segment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.iss,
            flags: TcpFlags::SYN,
            window: window as u16,
            mss: Some(self.cfg.mss.min(u16::MAX as u32) as u16),
            ..Default::default()
        };
        if syn_ack {
            seg.flags |= TcpFlags::ACK | self.ecn_synack_flags();
            seg.ack = self.irs + 1;
            self.last_ack_sent = 1;
            if self.ws_ok {
                seg.wscale = Some(self.rcv_wscale);
            }
            seg.sack_permitted = self.sack_ok;
            if self.ts_ok {
                seg.timestamps = Some((self.ts_now(now), self.ts_recent));
            }
            self.ack_now = false;
        } else {
            seg.flags |= self.ecn_syn_flags();
            if self.cfg.window_scaling {
                seg.wscale = Some(self.rcv_wscale);
            }
            seg.sack_permitted = self.cfg.sack;
            if self.cfg.timestamps {
                seg.timestamps = Some((self.ts_now(now), 0));
            }
        }
        self.rcv_adv = 1 + window as u64;
        self.send_syn = false;
        self.syn_tx_time = now;
        self.snd_nxt = 1;
        self.snd_max = self.snd_max.max(1);
        self.sync_seq();
        if !self.timers.armed(TimerKind::Rto) {
            self.timers.set(TimerKind::Rto, now + self.rto_now());
        }
        self.stats.segs_sent += 1;
        seg
    }

    /// Whether the congestion window admits one more segment.
    pub(super) fn cwnd_allows(&self) -> bool {
        let tp = &self.tp;
        if self.classic_recovery() {
            // RFC 5681 §3.2: FlightSize against the inflated cwnd.
            return tp.packets_out < tp.snd_cwnd;
        }
        let mut in_flight = tp.packets_in_flight();
        if !self.cfg.limited_transmit && !self.sack_ok && tp.ca_state == CaState::Disorder {
            // Without RFC 3042, dupacks do not release new segments.
            in_flight += tp.sacked_out;
        }
        in_flight < tp.snd_cwnd
    }

    /// The oldest segment marked lost and not yet retransmitted. `lost_out`
    /// counts the LOST marks (Linux keeps the same invariant), so outside
    /// recovery this costs a comparison instead of a walk of the queue on
    /// every `poll_transmit`.
    fn next_lost(&self) -> Option<usize> {
        debug_assert_eq!(self.tp.lost_out as usize, self.rtx.iter().filter(|s| s.has(LOST)).count());
        if self.tp.lost_out == 0 {
            return None;
        }
        self.rtx.iter().position(|s| s.has(LOST) && !s.has(RETRANS) && !s.has(SACKED))
    }

    fn pacing_blocked(&mut self, now: Instant) -> bool {
        if self.tp.pacing_requested && self.tp.pacing_rate > 0 && now < self.pacing_next {
            self.timers.set(TimerKind::Pacing, self.pacing_next);
            return true;
        }
        false
    }

    #[inline(always)]
    fn send_data(&mut self, now: Instant) -> Option<Segment> {
        if !matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck) {
            return None;
        }
        if self.frto_new_data {
            // F-RTO step 2.b (`tcp_xmit_recovery` with REXMIT_NEW): new data
            // first; once some went out, no retransmission before the next
            // ACK; if none can go, F-RTO gives up and retransmits.
            if let Some(seg) = self.send_new_data(now) {
                return Some(seg);
            }
            if self.snd_nxt > self.high_seq {
                return None;
            }
            self.frto_new_data = false;
            self.frto = false;
        }
        if let Some(i) = self.next_lost() {
            let s = self.rtx[i];
            // Linux tcp_retransmit_skb: never beyond the window, except the head.
            let in_window = s.start < self.snd_una + self.snd_wnd as u64 || s.start == self.snd_una;
            let forced = self.force_retx && i == 0;
            if in_window && (forced || self.cwnd_allows()) {
                if self.pacing_blocked(now) {
                    return None;
                }
                if forced {
                    self.force_retx = false;
                }
                return Some(self.transmit_retx(now, i));
            }
            if !in_window || !self.cwnd_allows() {
                if !self.cwnd_allows() {
                    self.cwnd_validate(true);
                }
                return None;
            }
        }
        self.send_new_data(now)
    }

    /// The new-data half of `send_data` (`tcp_write_xmit`).
    fn send_new_data(&mut self, now: Instant) -> Option<Segment> {
        let new_data_state = matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::LastAck);
        let avail = self.data_end().saturating_sub(self.snd_nxt);
        let fin_pending = self.fin_requested && !self.fin_sent;
        if !new_data_state || (avail == 0 && !fin_pending) {
            self.check_app_limited();
            return None;
        }
        self.slow_start_after_idle_check();
        if !self.cwnd_allows() {
            self.cwnd_validate(true);
            return None;
        }
        let len = avail.min(self.send_mss as u64) as u32;
        if len > 0 && !self.new_data_fits_window() {
            return None;
        }
        let fin = fin_pending && self.snd_nxt + len as u64 == self.data_end();
        if !fin && self.nagle_holds(len) {
            return None;
        }
        if self.pacing_blocked(now) {
            return None;
        }
        let seg = self.transmit_new(now, len, fin);
        self.minshall_update(len, self.snd_nxt);
        // tcp_write_xmit: one loss probe per tail loss episode (`tlp.rs`).
        self.schedule_loss_probe(now);
        Some(seg)
    }

    /// Linux `tcp_rate_check_app_limited`.
    fn check_app_limited(&mut self) {
        let tp = &self.tp;
        let unsent = self.data_end().saturating_sub(self.snd_nxt);
        if unsent < self.send_mss as u64 && tp.packets_in_flight() < tp.snd_cwnd && tp.lost_out <= tp.retrans_out {
            self.tp.app_limited = (self.tp.delivered.wrapping_add(self.tp.packets_in_flight())).max(1);
        }
    }

    /// Linux `tcp_cwnd_validate` (the part that tracks cwnd use).
    fn cwnd_validate(&mut self, is_cwnd_limited: bool) {
        if self.snd_una >= self.cwnd_usage_seq
            || is_cwnd_limited
            || (!self.tp.is_cwnd_limited && self.tp.packets_out > self.tp.max_packets_out)
        {
            self.tp.is_cwnd_limited = is_cwnd_limited;
            self.tp.max_packets_out = self.tp.packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    pub(super) fn transmit_new(&mut self, now: Instant, len: u32, fin: bool) -> Segment {
        if self.tp.packets_in_flight() == 0 {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
        let mut s = TxSeg {
            start: self.snd_nxt,
            len,
            fin,
            flags: 0,
            tx_time: now,
            tx_delivered: 0,
            tx_delivered_mstamp: 0,
            tx_first_tx_mstamp: 0,
            tx_app_limited: false,
        };
        self.rate_skb_sent(&mut s);
        self.rtx.push_back(s);
        // tcp_event_new_data_sent: a pending probe gives way to the RTO
        // (`tcp_rearm_rto`); `send_new_data` schedules it again.
        self.timers.stop(TimerKind::LossProbe);
        self.snd_nxt = s.end();
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.tp.packets_out += 1;
        if fin {
            self.fin_sent = true;
        }
        self.on_data_sent(now, &s)
    }

    fn transmit_retx(&mut self, now: Instant, i: usize) -> Segment {
        if self.tp.packets_in_flight() == 0 {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
        let mut s = self.rtx[i];
        self.rate_skb_sent(&mut s);
        s.flags |= RETRANS | EVER_RETRANS;
        s.tx_time = now;
        self.rtx[i] = s;
        self.tp.retrans_out += 1;
        if s.len > 0 {
            self.stats.retransmissions += 1;
        }
        self.note_retransmission(now);
        if i == 0 {
            // tcp_xmit_retransmit_queue: the head's retransmission sets the
            // retransmit timer, which replaces a pending probe (`tlp.rs`).
            self.timers.stop(TimerKind::LossProbe);
        }
        if i == 0 && self.cfg.rto_timer == RtoTimer::Linux {
            // tcp_xmit_retransmit_queue: retransmitting the head restarts
            // the timer, so the retransmission gets a full RTO to return.
            self.timers.set(TimerKind::Rto, now + self.rtt.rto());
        }
        self.on_data_sent(now, &s)
    }

    /// Bookkeeping common to every data / FIN transmission.
    pub(super) fn on_data_sent(&mut self, now: Instant, s: &TxSeg) -> Segment {
        let mut flags = TcpFlags::ACK;
        if s.fin {
            flags |= TcpFlags::FIN;
        }
        if s.len > 0 && self.pushes(now, s) {
            flags |= TcpFlags::PSH;
        }
        let mut seg = self.header(now, flags);
        seg.seq = self.seq_of(s.start);
        seg.payload_len = s.len;
        self.ecn_data_sent(&mut seg, !s.has(EVER_RETRANS));
        self.stats.segs_sent += 1;
        if s.len > 0 {
            self.stats.data_segs_sent += 1;
        }
        self.tp.lsndtime = self.tp.jiffies;
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr) {
            self.prr_out += 1;
        }
        if !self.timers.armed(TimerKind::Rto) {
            // RFC 6298 §5.1.
            self.timers.set(TimerKind::Rto, now + self.rtt.rto());
        }
        let limited = self.tp.packets_in_flight() >= self.tp.snd_cwnd;
        self.cwnd_validate(limited);
        if self.tp.pacing_requested && self.tp.pacing_rate > 0 {
            let bytes = 20 + seg.header_len() as u64 + seg.payload_len as u64;
            let ns = bytes.saturating_mul(1_000_000_000) / self.tp.pacing_rate;
            self.pacing_next = self.pacing_next.max(now) + airtcp_core::Duration(ns);
        }
        self.sync_seq();
        seg
    }

    /// Whether data segment `s`, sent at `now`, carries PSH: it ends the
    /// data written so far (`tcp_push`); with `push_tso` it ends a chunk of
    /// more than one new segment (`tso_push.rs`); else it ends a group of
    /// `push_segs` full segments of the stream (the end of a pushed skb
    /// before Linux 4.11), or every segment with `push_segs = 0`.
    fn pushes(&mut self, now: Instant, s: &TxSeg) -> bool {
        let end = s.start + s.len as u64;
        if end >= self.data_end() {
            return true;
        }
        if self.cfg.push_tso {
            return !s.has(RETRANS) && self.tso_pushes(now, s.start, s.len);
        }
        let n = self.cfg.push_segs as u64;
        n == 0 || (end - 1) % (n * self.send_mss.max(1) as u64) == 0
    }

    /// Zero-window probe (Linux `tcp_write_wakeup`): new data if the window
    /// admits any, else a bare ACK carrying SND.UNA - 1 (`tcp_xmit_probe_skb`),
    /// which the peer must answer with an ACK showing its window.
    fn build_probe(&mut self, now: Instant) -> Segment {
        let usable = self.snd_una as i64 + self.snd_wnd as i64 - self.snd_nxt as i64;
        let avail = self.data_end().saturating_sub(self.snd_nxt);
        if usable > 0 && avail > 0 {
            let len = (usable as u64).min(avail).min(self.send_mss as u64) as u32;
            let fin = self.fin_requested && !self.fin_sent && self.snd_nxt + len as u64 == self.data_end();
            return self.transmit_new(now, len, fin);
        }
        let mut seg = self.header(now, TcpFlags::ACK);
        seg.seq = self.seq_of(self.snd_una) - 1;
        self.stats.segs_sent += 1;
        seg
    }
}
