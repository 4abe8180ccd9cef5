//! ns-2's one-way TCP sender (`Agent/TCP`, `/Reno`, `/Newreno` of tcp.cc,
//! tcp-reno.cc and tcp-newreno.cc, ns-2 2.35) as a sans-IO state machine.
//! Sequence numbers count packets; packet 0 is the SYN when `syn_` is set.
//! The driver hands in ACK numbers (the highest packet received in order)
//! and the time, and takes packets to send and the timer's deadline.
//!
//! The ns-2 names (`t_seqno_`, `highest_ack_`, `recover_`, `dupwnd_`...)
//! are kept so the code can be read beside the original.

use std::collections::VecDeque;

use airtcp_core::{Duration, Instant};

use super::config::{Ns2Config, Ns2Variant};
use super::rtt::{secs, Ns2Rtt};
use crate::stats::TcpStats;

#[path = "handover.rs"]
mod handover;
pub use handover::HandoverEvent;

/// ns-2's `TCP_MAXSEQ`: what an FTP source's "send forever" sets `curseq_` to.
pub const TCP_MAXSEQ: i64 = 1_073_741_824;

/// `last_cwnd_action_` values (tcp.h `CWND_ACTION_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CwndAction {
    None,
    Dupack,
    Timeout,
    Exited,
}

/// One packet to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns2Out {
    /// Packet number (ns-2 counts packets, not bytes); 0 is the SYN when `syn_` is set.
    pub seqno: i64,
    /// Bytes on the wire (packet + header, or the header alone for the SYN).
    pub bytes: u32,
    /// Not above the highest packet sent before (ns-2's `nrexmitpack_`).
    pub retransmission: bool,
}

/// What happened, for the run's event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2Event {
    /// The retransmission timer fired after `rto`; `backoff` is the new multiplier.
    Timeout {
        /// The backed-off timeout that expired.
        rto: Duration,
        /// ns-2's back-off multiplier after this timeout (`t_backoff_`).
        backoff: u32,
    },
    /// A fast retransmit of packet `seqno`.
    FastRetransmit {
        /// Packet number retransmitted.
        seqno: i64,
    },
    /// The first ACK arrived (the SYN, or packet 0, was acknowledged).
    Connected,
    /// A Wi-TCP or handover-notification signal acted (`handover.rs`).
    Handover(HandoverEvent),
}

/// One ns-2 `Agent/TCP` (Tahoe), `/Reno` or `/Newreno` sender, with ns-2's
/// state variables under their ns-2 names (see the module docs).
#[derive(Clone, Debug)]
pub struct Ns2Sender {
    cfg: Ns2Config,
    rtt: Ns2Rtt,
    t_seqno: i64,
    curseq: i64,
    maxseq: i64,
    highest_ack: i64,
    last_ack: i64,
    cwnd: f64,
    ssthresh: i64,
    wnd: f64,
    wnd_init: f64,
    dupacks: i64,
    dupwnd: i64,
    recover: i64,
    last_cwnd_action: CwndAction,
    first_decrease: bool,
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: f64,
    firstpartial: bool,
    /// The retransmission timer: deadline and the value it was armed with.
    rtx: Option<(Instant, Duration)>,
    out: VecDeque<Ns2Out>,
    events: VecDeque<Ns2Event>,
    stats: TcpStats,
    /// Wi-TCP's freeze and EHN's held output (`handover.rs`).
    handover: handover::Handover,
}

impl Ns2Sender {
    /// A sender with nothing to send yet; the error says which
    /// [`Ns2Config`] value is out of range.
    pub fn new(cfg: Ns2Config) -> Result<Self, String> {
        cfg.validate()?;
        let rtt = Ns2Rtt::new(cfg.tcp_tick, cfg.boot_time, cfg.min_rto, cfg.max_rto, cfg.rtxcur_init, cfg.rttvar_init);
        let wnd = cfg.window as f64;
        let wnd_init = cfg.window_init as f64;
        // set_initial_window: one packet while the SYN is outstanding.
        let cwnd = if cfg.syn { 1.0 } else { wnd_init };
        Ok(Ns2Sender {
            rtt,
            t_seqno: 0,
            curseq: 0,
            maxseq: -1,
            highest_ack: -1,
            last_ack: -1,
            cwnd,
            ssthresh: cfg.window as i64,
            wnd,
            wnd_init,
            dupacks: 0,
            dupwnd: 0,
            recover: 0,
            last_cwnd_action: CwndAction::None,
            first_decrease: true,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: 0.0,
            firstpartial: false,
            rtx: None,
            out: VecDeque::with_capacity(64),
            events: VecDeque::with_capacity(8),
            stats: TcpStats::default(),
            handover: handover::Handover::default(),
            cfg,
        })
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &Ns2Config {
        &self.cfg
    }

    /// Counters since creation (packets sent, retransmissions, timeouts).
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }

    /// The application offers `packets` more packets (ns-2 `advanceby`;
    /// FTP's "send forever" passes `TCP_MAXSEQ`). Sends what the window allows.
    pub fn offer(&mut self, now: Instant, packets: i64) {
        self.curseq = (self.curseq + packets).min(TCP_MAXSEQ);
        self.send_much(now, self.cfg.maxburst);
    }

    /// Packets the application may still hand over before `TCP_MAXSEQ`.
    pub fn room(&self) -> i64 {
        TCP_MAXSEQ - self.curseq
    }

    /// Next packet to put on the wire; drain after every call.
    pub fn poll_transmit(&mut self) -> Option<Ns2Out> {
        self.out.pop_front()
    }

    /// Next event for the run's log; drain after every call.
    pub fn poll_event(&mut self) -> Option<Ns2Event> {
        self.events.pop_front()
    }

    /// Whether [`Ns2Sender::poll_event`] has something.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Deadline of the retransmission timer; `None` when it is idle or the
    /// sender is frozen by Wi-TCP.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.handover.frozen() {
            return None;
        }
        self.rtx.map(|(d, _)| d)
    }

    /// Highest packet acknowledged (`highest_ack_`; -1 before any ACK).
    pub fn highest_ack(&self) -> i64 {
        self.highest_ack
    }

    /// Next packet to send (`t_seqno_`) and the highest sent (`maxseq_`).
    pub fn seqnos(&self) -> (i64, i64) {
        (self.t_seqno, self.maxseq)
    }

    /// Congestion window in packets (`cwnd_`, fractional as ns-2 keeps it).
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// Slow-start threshold in packets (`ssthresh_`).
    pub fn ssthresh(&self) -> i64 {
        self.ssthresh
    }

    /// The RTT estimator, for traces of ns-2's timer variables.
    pub fn rtt(&self) -> &Ns2Rtt {
        &self.rtt
    }

    /// The RTO the timer would be armed with now.
    pub fn rto(&self) -> Duration {
        secs(self.rtt.timeout())
    }

    /// Data packets acknowledged (the SYN excluded).
    pub fn data_packets_acked(&self) -> u64 {
        let first = if self.cfg.syn { 1 } else { 0 };
        (self.highest_ack + 1 - first).max(0) as u64
    }

    // ---- window ------------------------------------------------------

    /// `window()`: Tahoe min(cwnd, wnd) truncated; Reno and NewReno add
    /// the inflation `dupwnd_` to int(cwnd) before capping at int(wnd).
    fn window(&self) -> i64 {
        match self.cfg.variant {
            Ns2Variant::Tahoe => {
                if self.cwnd < self.wnd {
                    self.cwnd as i64
                } else {
                    self.wnd as i64
                }
            }
            _ => (self.cwnd as i64 + self.dupwnd).min(self.wnd as i64),
        }
    }

    /// `windowd()`: the same in doubles, used by slowdown.
    fn windowd(&self) -> f64 {
        match self.cfg.variant {
            Ns2Variant::Tahoe => self.cwnd.min(self.wnd),
            _ => (self.cwnd + self.dupwnd as f64).min(self.wnd),
        }
    }

    fn initial_window(&self) -> f64 {
        self.wnd_init
    }

    // ---- output ------------------------------------------------------

    fn output(&mut self, now: Instant, seqno: i64) {
        if self.handover.holds_output() {
            return;
        }
        if seqno == 0 && self.cfg.syn && self.maxseq == -1 {
            self.curseq = (self.curseq + 1).min(TCP_MAXSEQ);
        }
        let force_timer = self.highest_ack == self.maxseq;
        let retransmission = seqno <= self.maxseq;
        self.out.push_back(Ns2Out { seqno, bytes: self.cfg.wire_bytes(seqno), retransmission });
        self.stats.segs_sent += 1;
        if !(seqno == 0 && self.cfg.syn) {
            self.stats.data_segs_sent += 1;
        }
        if seqno > self.maxseq {
            self.maxseq = seqno;
            if !self.rtt_active {
                self.rtt_active = true;
                if seqno > self.rtt_seq {
                    self.rtt_seq = seqno;
                    self.rtt_ts = f(now);
                }
            }
        } else {
            self.stats.retransmissions += 1;
        }
        if self.rtx.is_none() || force_timer {
            self.set_rtx_timer(now);
        }
    }

    fn send_much(&mut self, now: Instant, maxburst: u32) {
        if self.handover.holds_output() {
            return;
        }
        let mut win = self.window();
        let mut npackets = 0;
        while self.t_seqno <= self.highest_ack + win && self.t_seqno < self.curseq {
            self.output(now, self.t_seqno);
            npackets += 1;
            self.t_seqno += 1;
            win = self.window();
            if maxburst > 0 && npackets == maxburst {
                break;
            }
        }
    }

    /// Limited transmit on the first duplicate ACKs (`send_one`).
    fn send_one(&mut self) -> bool {
        let t = self.t_seqno as f64;
        let ha = self.highest_ack as f64;
        t <= ha + self.wnd && self.t_seqno < self.curseq && t <= ha + self.cwnd + self.dupacks as f64
    }

    // ---- timer -------------------------------------------------------

    fn set_rtx_timer(&mut self, now: Instant) {
        let rto = secs(self.rtt.timeout());
        self.rtx = Some((now + rto, rto));
    }

    /// `reset_rtx_timer(mild, backoff)`.
    fn reset_rtx_timer(&mut self, now: Instant, mild: bool, backoff: bool) {
        if backoff {
            self.rtt.backoff();
        }
        self.set_rtx_timer(now);
        if !mild {
            self.t_seqno = self.highest_ack + 1;
        }
        self.rtt_active = false;
    }

    fn newtimer(&mut self, now: Instant, ack: i64) {
        if self.t_seqno > ack || ack < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(now);
        } else {
            self.rtx = None;
        }
    }

    /// Let the retransmission timer fire if it is due.
    pub fn handle_timeout(&mut self, now: Instant) {
        let Some((deadline, rto)) = self.rtx else { return };
        if deadline > now || self.handover.frozen() {
            return;
        }
        self.rtx = None;
        if self.cfg.variant != Ns2Variant::Tahoe {
            // RenoTcpAgent::timeout.
            self.dupwnd = 0;
            self.dupacks = 0;
            if self.cfg.bug_fix {
                self.recover = self.maxseq;
            }
        }
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        let outstanding = self.highest_ack != self.maxseq;
        self.recover = self.maxseq;
        if self.highest_ack == -1 && self.wnd_init > 1.0 {
            // bugfix_ss_: the first packet was lost, so no larger initial window.
            self.wnd_init = 1.0;
        }
        if !outstanding {
            self.slowdown(SlowDown::CwndOne, false);
        } else {
            self.stats.timeouts += 1;
            self.last_cwnd_action = CwndAction::Timeout;
            self.slowdown(SlowDown::CwndRestart, true);
        }
        self.reset_rtx_timer(now, false, outstanding);
        self.last_cwnd_action = CwndAction::Timeout;
        self.events.push_back(Ns2Event::Timeout { rto, backoff: self.rtt.t_backoff as u32 });
        self.send_much(now, self.cfg.maxburst);
    }

    // ---- congestion window ------------------------------------------

    fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            // windowOption_ 1, increase_num_ 1.0.
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// `slowdown(how)` with `precisionReduce_ true` and `decrease_num_ 0.5`:
    /// ssthresh halves the window in doubles then truncates.
    fn slowdown(&mut self, how: SlowDown, halve_ssthresh: bool) {
        let halfwin = self.windowd() / 2.0;
        if halve_ssthresh {
            self.ssthresh = halfwin as i64;
        }
        match how {
            SlowDown::CwndHalf => self.cwnd = halfwin,
            SlowDown::CwndRestart | SlowDown::CwndOne => self.cwnd = 1.0,
        }
        if self.ssthresh < 2 {
            self.ssthresh = 2;
        }
        if self.cwnd < 1.0 {
            self.cwnd = 1.0;
        }
        self.first_decrease = false;
    }

    // ---- ACK processing ---------------------------------------------

    /// An ACK for packet `ack` (the highest received in order) arrives.
    pub fn handle_ack(&mut self, now: Instant, ack: i64) {
        self.stats.segs_received += 1;
        match self.cfg.variant {
            Ns2Variant::Tahoe => self.recv_tahoe(now, ack),
            Ns2Variant::Reno => self.recv_reno(now, ack),
            Ns2Variant::NewReno => self.recv_newreno(now, ack),
        }
    }

    fn newack(&mut self, now: Instant, ack: i64) {
        if self.last_ack < 0 {
            self.events.push_back(Ns2Event::Connected);
        }
        self.dupacks = 0;
        self.last_ack = ack;
        self.highest_ack = ack;
        if self.t_seqno < ack + 1 {
            self.t_seqno = ack + 1;
        }
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt.t_backoff = 1;
            self.rtt_active = false;
            let n = f(now);
            let tao = n - self.rtt_ts;
            self.rtt.update(n, tao);
            let us = (tao * 1e6).round() as u64;
            self.stats.rtt_samples += 1;
            self.stats.rtt_sum_us += us;
            if self.stats.rtt_samples == 1 || us < self.stats.rtt_min_us {
                self.stats.rtt_min_us = us;
            }
        }
        // timerfix_ true: the timer is re-armed after the RTT update.
        self.newtimer(now, ack);
        self.stats.bytes_acked = self.data_packets_acked() * self.cfg.packet_size as u64;
    }

    fn recv_newack_helper(&mut self, now: Instant, ack: i64) {
        self.newack(now, ack);
        self.opencwnd();
        if self.last_ack == 0 && self.cfg.syn {
            // delay_growth_: the SYN's ACK opens the initial window.
            self.cwnd = self.initial_window();
        }
    }

    fn on_dupack(&mut self) {
        self.dupacks += 1;
        self.stats.dup_acks_received += 1;
    }

    fn recv_tahoe(&mut self, now: Instant, ack: i64) {
        if ack > self.last_ack {
            self.recv_newack_helper(now, ack);
        } else if ack == self.last_ack {
            self.on_dupack();
            if self.dupacks == self.cfg.numdupacks as i64 {
                self.dupack_action_tahoe(now);
            } else if self.dupacks < self.cfg.numdupacks as i64 && self.cfg.singledup && self.send_one() {
                self.output(now, self.t_seqno);
                self.t_seqno += 1;
            }
        }
        // aggressive_maxburst_ 1: send whatever the ACK.
        self.send_much(now, self.cfg.maxburst);
    }

    /// The `bugFix_` guard: a new fast retransmit only once the ACKs have
    /// passed `recover_`, or for the first data packet (`bugfix_ss_ 1`).
    fn may_fast_retransmit(&self) -> bool {
        self.highest_ack > self.recover || !self.cfg.bug_fix || self.highest_ack == 0
    }

    fn dupack_action_tahoe(&mut self, now: Instant) {
        if !self.may_fast_retransmit() {
            return;
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Dupack;
        self.slowdown(SlowDown::CwndOne, true);
        self.reset_rtx_timer(now, false, false);
        self.stats.fast_retransmits += 1;
        self.events.push_back(Ns2Event::FastRetransmit { seqno: self.highest_ack + 1 });
    }

    fn recv_reno(&mut self, now: Instant, ack: i64) {
        let nd = self.cfg.numdupacks as i64;
        if ack > self.last_ack {
            if self.last_cwnd_action == CwndAction::Dupack {
                self.last_cwnd_action = CwndAction::Exited;
            }
            self.dupwnd = 0;
            self.recv_newack_helper(now, ack);
        } else if ack == self.last_ack {
            self.duplicate_ack_reno(now);
        }
        if self.dupacks == 0 || self.dupacks > nd - 1 {
            self.send_much(now, self.cfg.maxburst);
        }
    }

    /// A duplicate ACK under Reno and NewReno (`RenoTcpAgent::recv`,
    /// `NewRenoTcpAgent::recv` share it): the third starts fast
    /// retransmit, later ones inflate the window while in it, earlier ones
    /// may send one new packet (limited transmit, `singledup_`).
    fn duplicate_ack_reno(&mut self, now: Instant) {
        let nd = self.cfg.numdupacks as i64;
        self.on_dupack();
        if self.dupacks == nd {
            self.dupack_action_reno(now);
        } else if self.dupacks > nd && self.last_cwnd_action == CwndAction::Dupack {
            self.dupwnd += 1;
        } else if self.dupacks < nd && self.cfg.singledup && self.send_one() {
            self.output(now, self.t_seqno);
            self.t_seqno += 1;
        }
    }

    /// Reno's and NewReno's fast retransmit: halve, retransmit, inflate
    /// the window by the duplicates seen. Reno also enters it again while
    /// its last action was a fast retransmit (`allow_fast_retransmit`).
    fn dupack_action_reno(&mut self, now: Instant) {
        let again = self.cfg.variant == Ns2Variant::Reno && self.last_cwnd_action == CwndAction::Dupack;
        if !(self.may_fast_retransmit() || again) {
            return;
        }
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Dupack;
        self.slowdown(SlowDown::CwndHalf, true);
        self.reset_rtx_timer(now, true, false);
        let seqno = self.last_ack + 1;
        self.output(now, seqno);
        self.dupwnd = self.cfg.numdupacks as i64;
        self.stats.fast_retransmits += 1;
        self.events.push_back(Ns2Event::FastRetransmit { seqno });
    }

    fn recv_newreno(&mut self, now: Instant, ack: i64) {
        let nd = self.cfg.numdupacks as i64;
        if ack > self.last_ack {
            if ack >= self.recover || self.last_cwnd_action != CwndAction::Dupack {
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    if self.last_cwnd_action == CwndAction::Dupack {
                        self.last_cwnd_action = CwndAction::Exited;
                    }
                }
                self.firstpartial = false;
                self.recv_newack_helper(now, ack);
            } else {
                if !self.cfg.partial_window_deflation {
                    self.dupwnd = 0;
                }
                self.partial_ack(now, ack);
            }
        } else if ack == self.last_ack {
            self.duplicate_ack_reno(now);
        }
        if self.dupacks == 0 {
            self.send_much(now, self.cfg.maxburst);
        } else if self.dupacks > nd - 1 {
            // newreno_changes_ 0: at most two packets per ACK in recovery.
            self.send_much(now, 2);
        }
    }

    /// A partial ACK in NewReno's recovery (`partialnewack_helper`):
    /// re-arm the timer (on the first one only, `newreno_changes1_`),
    /// deflate the window by what was acknowledged less one, retransmit
    /// the next hole. `dupacks_` is left as it is.
    fn partial_ack(&mut self, now: Instant, ack: i64) {
        if !self.cfg.newreno_changes1 || !self.firstpartial {
            self.firstpartial = true;
            self.newtimer(now, ack);
        }
        if self.cfg.partial_window_deflation {
            let deflate = ack - self.last_ack;
            if self.dupwnd > deflate {
                self.dupwnd -= deflate - 1;
            } else {
                self.cwnd -= (deflate - self.dupwnd) as f64;
                self.dupwnd = 1;
            }
            if self.cwnd < 1.0 {
                self.cwnd = 1.0;
            }
        }
        self.last_ack = ack;
        self.highest_ack = ack;
        if self.t_seqno < ack + 1 {
            self.t_seqno = ack + 1;
        }
        if self.rtt_active && ack >= self.rtt_seq {
            // Back-off cleared without an RTT sample (ns-2 does the same).
            self.rtt_active = false;
            self.rtt.t_backoff = 1;
        }
        self.stats.bytes_acked = self.data_packets_acked() * self.cfg.packet_size as u64;
        self.output(now, self.last_ack + 1);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlowDown {
    CwndHalf,
    CwndRestart,
    CwndOne,
}

/// ns-2 keeps time as f64 seconds.
#[inline]
fn f(t: Instant) -> f64 {
    t.0 as f64 / 1e9
}
