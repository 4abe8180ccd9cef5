//! Segment arrival (RFC 9293 §3.10.7): handshake, acceptability, RST, the
//! ACK (delegated to `ack.rs`), data into the reassembly buffer, FIN.

use airtcp_core::{Ecn, Instant, Segment, SeqNum};

use super::{Endpoint, State, TimerKind, DEFAULT_PEER_MSS, RTO_AFTER_SYN_LOSS};
use crate::cc::CongestionOps;
use crate::event::Event;

impl Endpoint {
    /// A segment that arrived in a Not-ECT datagram (drivers without ECN).
    pub fn handle_segment(&mut self, now: Instant, seg: &Segment) {
        self.handle_segment_ecn(now, seg, Ecn::NotEct);
    }

    /// A segment and the ECN codepoint of the IPv4 header that carried it
    /// (the receiver's half of RFC 3168 needs the CE mark).
    pub fn handle_segment_ecn(&mut self, now: Instant, seg: &Segment, ecn: Ecn) {
        self.rx_ecn = ecn;
        self.set_clock(now);
        self.stats.segs_received += 1;
        if seg.dst_port != self.local_port || (self.remote_port != 0 && seg.src_port != self.remote_port) {
            return;
        }
        self.note_writer_blocked();
        if self.on_witcp_signal(now, seg) {
            return;
        }
        let acked_before = self.snd_una;
        match self.state {
            State::Closed => self.on_closed(seg),
            State::Listen => self.on_listen(now, seg),
            State::SynSent => self.on_syn_sent(now, seg),
            _ => self.on_synchronized(now, seg),
        }
        if self.snd_una > acked_before {
            self.snd_queue_shrunk = true;
        }
        self.update_persist(now);
        self.witcp_hold_timers();
    }

    /// RFC 9293 §3.10.7.1: a segment for a closed connection is discarded
    /// and answered with a reset (unless it is one), so a peer still
    /// retransmitting its FIN after our TIME-WAIT ended learns the connection
    /// is gone instead of retrying until it aborts.
    fn on_closed(&mut self, seg: &Segment) {
        if seg.flags.rst() {
            return;
        }
        self.closed_reply = Some(if seg.flags.ack() {
            (seg.ack, None)
        } else {
            (SeqNum(0), Some(seg.seq + seg.seq_len()))
        });
    }

    fn on_listen(&mut self, now: Instant, seg: &Segment) {
        if seg.flags.rst() || seg.flags.ack() || !seg.flags.syn() {
            return;
        }
        if self.remote_port == 0 {
            // RFC 9293 §3.10.7.2: the listening socket's unspecified
            // foreign port is filled in from the SYN.
            self.remote_port = seg.src_port;
        }
        self.irs = seg.seq;
        self.rcv.delivered = 0;
        self.negotiate(now, seg);
        self.ecn_rcv_syn(seg);
        self.state = State::SynReceived;
        self.send_syn = true;
    }

    fn on_syn_sent(&mut self, now: Instant, seg: &Segment) {
        let acceptable = seg.flags.ack() && seg.ack == self.iss + 1;
        if seg.flags.ack() && !acceptable {
            return;
        }
        if seg.flags.rst() {
            if acceptable {
                self.enter_closed(true);
            }
            return;
        }
        if !seg.flags.syn() || !acceptable {
            return;
        }
        self.irs = seg.seq;
        self.negotiate(now, seg);
        self.ecn_rcv_synack(seg);
        self.snd_wnd = seg.window as u32; // RFC 7323 §2.2: a SYN's window is never scaled
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = 0;
        self.syn_acked(now, seg);
        self.ack_now = true;
    }

    /// Options of the peer's SYN / SYN-ACK decide what both sides use.
    fn negotiate(&mut self, now: Instant, seg: &Segment) {
        let _ = now;
        let peer_mss = seg.mss.map(|m| m as u32).unwrap_or(DEFAULT_PEER_MSS);
        self.send_mss = self.cfg.mss.min(peer_mss).max(1);
        self.tp.mss_cache = self.send_mss;
        match (self.cfg.window_scaling, seg.wscale) {
            (true, Some(s)) => {
                self.snd_wscale = s.min(super::MAX_WSCALE);
                self.ws_ok = true;
            }
            _ => {
                self.ws_ok = false;
                self.snd_wscale = 0;
                self.rcv_wscale = 0;
            }
        }
        self.sack_ok = self.cfg.sack && seg.sack_permitted;
        self.ts_ok = self.cfg.timestamps && seg.timestamps.is_some();
        if let Some((tsval, _)) = seg.timestamps {
            self.ts_recent = tsval;
        }
    }

    /// Our SYN was acknowledged: ESTABLISHED (RFC 9293 §3.10.7.3 / .4).
    fn syn_acked(&mut self, now: Instant, seg: &Segment) {
        // RTT sample from the handshake: timestamps, else Karn on the SYN.
        let ts = match (self.ts_ok, seg.timestamps) {
            (true, Some((_, ecr))) => self.ts_rtt(now, ecr),
            _ => None,
        };
        let karn = (!self.syn_retransmitted).then(|| now.saturating_since(self.syn_tx_time));
        let sample = ts.or(karn);
        if let Some(r) = sample {
            self.rtt_sample(r, r);
        } else if self.syn_retransmitted {
            self.rtt.set_base_rto(RTO_AFTER_SYN_LOSS);
        }
        self.rtt.backoff = 0;
        self.retries = 0;
        self.snd_una = 1;
        self.snd_nxt = self.snd_nxt.max(1);
        self.snd_max = self.snd_max.max(1);
        self.high_seq = 1;
        self.cwnd_usage_seq = 1;
        self.timers.stop(TimerKind::Rto);
        self.state = State::Established;
        self.sync_seq();
        self.tp.snd_cwnd = self.cfg.initial_cwnd;
        self.quickacks = self.cfg.initial_quickacks;
        // tcp_finish_connect / tcp_rcv_state_process: the idle clock starts
        // at ESTABLISHED; tcp_init_buffer_space sizes both buffers.
        self.tp.lsndtime = self.tp.jiffies;
        self.sndbuf_expand();
        self.rcv_space_established(now);
        self.cc.init(&mut self.tp);
        self.events.push_back(Event::Connected);
    }

    pub(super) fn on_synchronized(&mut self, now: Instant, seg: &Segment) {
        let nxt = self.rcv_nxt();
        let off = self.rcv_off(seg.seq);
        let seg_len = seg.seq_len() as i64;
        // A retransmitted SYN while we wait in SYN-RECEIVED: repeat the SYN-ACK.
        if self.state == State::SynReceived && seg.flags.syn() && !seg.flags.ack() {
            if seg.seq == self.irs {
                self.send_syn = true;
            }
            return;
        }
        // Acceptability test (RFC 9293 §3.10.7.4, first check).
        let wnd = self.rcv_adv.saturating_sub(nxt) as i64;
        let start = off;
        let end = off + seg_len;
        let acceptable = if seg_len == 0 {
            if wnd == 0 {
                start == nxt as i64
            } else {
                start >= nxt as i64 && start < nxt as i64 + wnd.max(1)
            }
        } else if wnd == 0 {
            false
        } else {
            (start >= nxt as i64 && start < nxt as i64 + wnd) || (end > nxt as i64 && end <= nxt as i64 + wnd)
        };
        // Zero-length ACK at RCV.NXT is fine even before the first window is known.
        let acceptable = acceptable || (seg_len == 0 && start == nxt as i64);
        if !acceptable {
            if !seg.flags.rst() {
                // RFC 9293: answer with an ACK (this is what answers a
                // zero-window probe carrying SND.UNA - 1).
                self.ack_now = true;
                if seg.payload_len > 0 && end >= self.last_ack_sent as i64 {
                    // Linux's tcp_sequence accepts a segment that ends at
                    // rcv_wup (our Last.ACK.sent), so tcp_replace_ts_recent
                    // (RFC 7323 §4.3: SEG.SEQ <= Last.ACK.sent) takes the
                    // TSval of a retransmission whose original arrived but
                    // whose ACK was lost: the duplicate ACK echoes the
                    // retransmission, not the last segment before the loss
                    // (an old echo would look like Eifel's "original was
                    // delayed" and undo a real loss).
                    self.replace_ts_recent(seg, off);
                }
                if seg.payload_len > 0 && start < nxt as i64 && self.state_receives_data() {
                    // tcp_send_dupack: data we already have, D-SACKed.
                    let top = end.min(self.rcv.delivered as i64 + 1);
                    if top > start.max(1) {
                        self.note_duplicate((start.max(1) - 1) as u64, (top - 1) as u64);
                    }
                }
                if self.state == State::TimeWait && seg.flags.fin() {
                    self.timers.set(TimerKind::TimeWait, now + self.cfg.msl.saturating_mul(2));
                }
            }
            return;
        }
        if seg.flags.rst() {
            // RFC 9293 §3.10.7.4: in CLOSING, LAST-ACK and TIME-WAIT a reset
            // just closes (both sides had finished); elsewhere the user
            // is told the connection was reset.
            let finished = matches!(self.state, State::Closing | State::LastAck | State::TimeWait);
            self.enter_closed(!finished);
            return;
        }
        if seg.flags.syn() {
            // RFC 5961 §4: challenge ACK, otherwise ignore.
            self.ack_now = true;
            return;
        }
        if !seg.flags.ack() {
            return;
        }
        self.replace_ts_recent(seg, off);
        if self.state == State::SynReceived {
            if self.snd_off(seg.ack) != 1 {
                return;
            }
            let nwin = (seg.window as u32) << self.snd_wscale;
            self.snd_wnd = nwin;
            self.max_snd_wnd = nwin;
            self.snd_wl1 = off.max(0) as u64;
            self.syn_acked(now, seg);
        } else {
            self.process_ack(now, seg);
        }
        if self.state == State::Closed {
            return;
        }
        // Our FIN acknowledged?
        let fin_acked = self.fin_sent && self.snd_una > self.data_end();
        match self.state {
            State::FinWait1 if fin_acked => {
                self.state = State::FinWait2;
                self.events.push_back(Event::SendComplete);
            }
            State::Closing if fin_acked => {
                self.events.push_back(Event::SendComplete);
                self.enter_time_wait(now);
            }
            State::LastAck if fin_acked => {
                self.events.push_back(Event::SendComplete);
                self.enter_closed(false);
                return;
            }
            State::TimeWait => {
                if seg.flags.fin() {
                    self.ack_now = true;
                    self.timers.set(TimerKind::TimeWait, now + self.cfg.msl.saturating_mul(2));
                }
                return;
            }
            _ => {}
        }
        if seg.payload_len > 0 && self.state_receives_data() {
            self.ecn_accept_cwr(seg);
            self.receive_data(now, seg, off);
        }
        if seg.flags.fin() && self.peer_fin.is_none() {
            self.peer_fin = Some((off + seg.payload_len as i64).max(0) as u64);
        }
        self.try_consume_fin(now);
    }

    fn receive_data(&mut self, now: Instant, seg: &Segment, off: i64) {
        let len = seg.payload_len;
        // Stream offsets: receive offset 1 is stream byte 0.
        let start = off - 1;
        let end = start + len as i64;
        let delivered = self.rcv.delivered as i64;
        // Bytes of this segment we hold already (below RCV.NXT or inside an
        // out-of-order range): their hull is the D-SACK block (tcp_data_queue,
        // tcp_data_queue_ofo, tcp_ofo_queue).
        let mut dup: Option<(i64, i64)> = (start < delivered).then(|| (start.max(0), end.min(delivered)));
        for &(a, b) in &self.rcv.ooo {
            let (lo, hi) = (start.max(a as i64), end.min(b as i64));
            if lo < hi {
                dup = Some(dup.map_or((lo, hi), |(x, y)| (x.min(lo), y.max(hi))));
            }
        }
        if let Some((a, b)) = dup.filter(|(a, b)| a < b) {
            self.note_duplicate(a as u64, b as u64);
        }
        let edge = self.rcv_adv as i64 - 1;
        let s = start.max(delivered);
        let e = end.min(edge);
        if e <= s {
            // Duplicate or beyond the window: ACK at once (RFC 5681 §4.2).
            self.ack_now = true;
            return;
        }
        // tcp_event_data_recv / tcp_data_queue_ofo: before the ACK decision,
        // so a CE mark is echoed (and quick-ACKed) by this segment's ACK.
        self.ecn_check_ce();
        let r = self.rcv.insert(s as u64, e as u64);
        if !r.out_of_order {
            // tcp_event_data_recv: only in-order data is measured.
            self.measure_rcv_mss(seg);
        }
        let grew = self.rcv_space_on_data(now, (e - s) as u32, !r.out_of_order);
        if !r.out_of_order {
            self.ato_on_data();
            self.quickack_after_gap(now);
            self.last_data_rcvd = Some(now);
        }
        if r.filled_hole && self.rcv.ooo.is_empty() {
            // RFC 5681 §4.2: immediate ACK for data that fills the hole
            // (Linux ICSK_ACK_NOW when the out-of-order queue empties).
            self.ack_now = true;
        } else if r.out_of_order || !self.rcv.ooo.is_empty() {
            // RFC 5681 §4.2: immediate ACK for out-of-order data and for
            // data that fills part of a hole, unless SACK compression
            // holds it (`sack_compress.rs`).
            self.ack_out_of_order(now, grew);
        } else if self.quickacks > 0 {
            self.quickacks -= 1;
            if self.quickacks == 0 {
                // tcp_dec_quickack_mode: leaving quick-ACK mode.
                self.ato_deflate();
            }
            self.ack_now = true;
        } else {
            self.delack_segs += 1;
            if self.delack_segs >= self.cfg.delack_count {
                self.ack_now = true;
            } else if !self.timers.armed(TimerKind::DelayedAck) {
                let due = self.delack_deadline(now);
                self.timers.set(TimerKind::DelayedAck, due);
            }
        }
        if r.advanced > 0 {
            self.stats.bytes_delivered += r.advanced;
            self.events.push_back(Event::Readable);
        }
    }

    /// `tcp_event_data_recv`: in-order data more than the RTO after the
    /// last re-enters quick-ACK mode (`tcp_incr_quickack` with
    /// TCP_MAX_QUICKACKS = 16, no more than the window holds in pairs of
    /// segments, at least 2): the sender, back from a stall or an idle
    /// period, is ACKed segment by segment.
    fn quickack_after_gap(&mut self, now: Instant) {
        if !self.cfg.idle_quickack {
            return;
        }
        if let Some(last) = self.last_data_rcvd {
            if now.saturating_since(last) > self.rtt.rto() {
                let wnd = self.rcv_adv.saturating_sub(self.last_ack_sent);
                let pairs = wnd / (2 * self.rs.rcv_mss.max(1) as u64);
                let q = if pairs == 0 { 2 } else { pairs.min(16) as u32 };
                self.quickacks = self.quickacks.max(q);
            }
        }
    }

    /// A data segment repeated bytes `[a, b)` (stream offsets) we hold:
    /// counted, and with D-SACK (RFC 2883, Linux `tcp_dsack_set`, `tcp_dsack
    /// = 1`) reported as the first SACK block of our next ACK.
    fn note_duplicate(&mut self, a: u64, b: u64) {
        self.stats.dup_data_segs_received += 1;
        if self.cfg.dsack && self.sack_ok {
            self.dsack_block = Some((a, b));
        }
    }

    fn try_consume_fin(&mut self, now: Instant) {
        let Some(fin) = self.peer_fin else { return };
        if self.fin_consumed || fin != self.rcv_nxt() {
            return;
        }
        self.fin_consumed = true;
        self.ack_now = true;
        match self.state {
            State::Established => self.state = State::CloseWait,
            State::FinWait1 => {
                if self.fin_sent && self.snd_una > self.data_end() {
                    self.enter_time_wait(now);
                } else {
                    self.state = State::Closing;
                }
            }
            State::FinWait2 => self.enter_time_wait(now),
            _ => {}
        }
        if self.rcv.unread() == 0 {
            self.events.push_back(Event::PeerClosed);
        } else {
            self.peer_closed_pending = true;
        }
    }

    /// RFC 7323 §4.3 (Linux `tcp_replace_ts_recent`): TS.Recent from a
    /// segment at stream offset `off` that covers Last.ACK.sent.
    fn replace_ts_recent(&mut self, seg: &Segment, off: i64) {
        if self.ts_ok {
            if let Some((tsval, _)) = seg.timestamps {
                if tsval.wrapping_sub(self.ts_recent) as i32 >= 0 && off <= self.last_ack_sent as i64 {
                    self.ts_recent = tsval;
                }
            }
        }
    }
}
