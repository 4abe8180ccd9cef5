//! The sans-IO TCP endpoint.
//!
//! The driver hands it segments (`handle_segment`) and the time, asks for
//! segments to send (`poll_transmit`, until `None`), for the next deadline
//! (`poll_timeout`) and for events (`poll_event`). Payload bytes are not
//! carried: the application side is a byte *count* (`send(n)`, `recv(max)`).
//!
//! Internally every sequence number is a 64-bit offset from ISS (send side)
//! or IRS (receive side), so comparisons never wrap; conversion to the 32-bit
//! wire value happens only when a segment is built or parsed.
//!
//! Sender accounting follows Linux (`packets_out`, `sacked_out`, `lost_out`,
//! `retrans_out`, `tcp_packets_in_flight`), and the ACK path calls the
//! congestion hooks in `tcp_ack()`'s order — see `ack.rs`.

mod ack;
mod ecn;
mod autotune;
mod ehn;
mod flags;
mod freeze;
mod ato;
mod idle;
mod input;
mod nagle;
mod ns3_prr;
mod output;
mod pushed;
mod tso_push;
mod rack;
mod rack_reo;
mod rate;
mod recovery;
mod rtt;
mod rx;
mod sack_compress;
mod scoreboard;
mod sndbuf;
mod timeout;
mod timers;
mod tlp;
mod undo;
mod witcp;

use std::collections::VecDeque;

use airtcp_core::time::div_floor;
use airtcp_core::{Duration, Ecn, Instant, SeqNum};

use crate::cc::{CaState, CongestionControl, CongestionOps, TcpSock};
use crate::config::TcpConfig;
use crate::event::Event;
use crate::stats::TcpStats;

pub use flags::{
    FLAG_DATA, FLAG_DATA_ACKED, FLAG_DATA_SACKED, FLAG_DSACKING_ACK, FLAG_ECE, FLAG_ORIG_SACK_ACKED, FLAG_RETRANS_DATA_ACKED,
    FLAG_SND_UNA_ADVANCED, FLAG_SYN_ACKED, FLAG_WIN_UPDATE,
};
pub use rtt::RttEstimator;
pub use timers::TimerKind;
pub use witcp::Frozen;
pub use freeze::TR_ACKS;

use rx::RecvBuf;
use scoreboard::TxSeg;
use timers::Timers;

/// RFC 9293 connection states.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    /// No connection: before `connect`/`listen`, or after close or abort.
    Closed,
    /// Passive open: waiting for a SYN.
    Listen,
    /// Active open: SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// SYN received and SYN-ACK sent, waiting for its ACK.
    SynReceived,
    /// Handshake done; data flows both ways.
    Established,
    /// We closed (FIN queued or sent), our FIN not yet acknowledged.
    FinWait1,
    /// Our FIN acknowledged; waiting for the peer's FIN.
    FinWait2,
    /// The peer closed; we may still send until our application closes.
    CloseWait,
    /// Both sides sent FIN at once; waiting for the ACK of ours.
    Closing,
    /// The peer closed first, we closed after; waiting for the ACK of our FIN.
    LastAck,
    /// Both FINs acknowledged; lingering 2·MSL ([`TcpConfig::msl`]) for stray segments.
    TimeWait,
}

/// A snapshot for time series (what tcpprobe / ns-3 traces report).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Probe {
    /// Congestion window in segments.
    pub cwnd: u32,
    /// Slow-start threshold in segments (TCP_INFINITE_SSTHRESH when unset).
    pub ssthresh: u32,
    /// Smoothed RTT (RFC 6298 SRTT); zero before the first sample.
    pub srtt: Duration,
    /// Current retransmission timeout, backoff included.
    pub rto: Duration,
    /// Oldest unacknowledged sequence number (SND.UNA).
    pub snd_una: SeqNum,
    /// Next sequence number to send (SND.NXT); retransmissions do not move it.
    pub snd_nxt: SeqNum,
    /// Peer's advertised window in bytes (after scaling).
    pub snd_wnd: u32,
    /// Packets in flight (Linux accounting).
    pub in_flight: u32,
    /// Linux congestion state (Open, Disorder, CWR, Recovery, Loss).
    pub ca_state: CaState,
    /// Application bytes acknowledged by the peer (a 64-bit stream offset).
    pub bytes_acked: u64,
    /// Application bytes delivered in order to our application.
    pub bytes_delivered: u64,
}

/// RFC 9293 §3.7.1: MSS assumed when the peer sends no MSS option.
const DEFAULT_PEER_MSS: u32 = 536;
/// RFC 6298 §5.7: RTO after a SYN timed out and no RTT sample exists.
const RTO_AFTER_SYN_LOSS: Duration = Duration::from_secs(3);
/// RFC 7323 §2.3: the largest window shift.
const MAX_WSCALE: u8 = 14;

/// A TCP connection as a sans-IO state machine (see the crate docs): the
/// driver feeds it segments ([`Endpoint::handle_segment`]), the time
/// ([`Endpoint::handle_timeout`] at [`Endpoint::poll_timeout`]) and
/// application calls, and drains [`Endpoint::poll_transmit`] and
/// [`Endpoint::poll_event`]. It keeps sequence space as 64-bit stream offsets
/// internally and converts at the wire.
pub struct Endpoint {
    cfg: TcpConfig,
    cc: CongestionControl,
    tp: TcpSock,
    /// The instant `tp`'s clocks (`tcp_mstamp`, `jiffies`) were set for:
    /// every input and output sets them, usually several times per instant,
    /// and the jiffies need two divisions.
    clock_at: Instant,
    state: State,
    local_port: u16,
    remote_port: u16,
    stats: TcpStats,
    events: VecDeque<Event>,
    timers: Timers,
    rtt: RttEstimator,

    // ---- send side (offsets from ISS: SYN = 0, first data byte = 1) ----
    iss: SeqNum,
    snd_una: u64,
    snd_nxt: u64,
    /// Highest offset ever sent (SND.MAX): retransmissions are below it.
    snd_max: u64,
    /// Peer window in bytes, scaled.
    snd_wnd: u32,
    /// Receive-space offset of the segment that last updated the window (SND.WL1).
    snd_wl1: u64,
    max_snd_wnd: u32,
    /// Shift applied to the peer's window field.
    snd_wscale: u8,
    send_mss: u32,
    /// Total application bytes written with `send`.
    app_written: u64,
    fin_requested: bool,
    fin_sent: bool,
    /// Retransmission queue / scoreboard.
    rtx: VecDeque<TxSeg>,
    /// Recovery point (Linux `high_seq`, RFC 6582 `recover`).
    high_seq: u64,
    /// SND.MAX when the last fast retransmit or RTO began (RFC 6582 §3.2
    /// `recover`, ns-2 `recover_ = maxseq_`). Unlike `high_seq` it is not
    /// moved when the sender drops back to Open, so it still marks the
    /// window whose go-back-N retransmissions may come back as duplicate
    /// ACKs (see `Endpoint::may_fast_retransmit`).
    recover: u64,
    prr_delivered: u32,
    prr_out: u32,
    /// RecoverFS of `Recovery::Ns3Prr` (packets).
    prr_recover_fs: u32,
    /// Packets the current ACK may grow cwnd by, when not all it delivered
    /// (`LossExitGrowth::BeyondRecoveryPoint`).
    acked_for_growth: Option<u32>,
    /// No partial ACK seen yet in this recovery (`PartialAckRto::FirstOnly`).
    first_partial_ack: bool,
    /// Classic Reno/NewReno: retransmit the head once regardless of cwnd.
    force_retx: bool,
    /// Consecutive retransmission timeouts without progress (`icsk_retransmits`).
    retries: u32,
    syn_tx_time: Instant,
    syn_retransmitted: bool,
    /// Whether a SYN / SYN-ACK must be (re)sent.
    send_syn: bool,
    send_rst: bool,
    /// RST owed to a segment that arrived in CLOSED (RFC 9293 §3.10.7.1):
    /// `(seq, ack)`; `ack` present means RST+ACK.
    closed_reply: Option<(SeqNum, Option<SeqNum>)>,
    /// `tp->cwnd_usage_seq` of tcp_cwnd_validate.
    cwnd_usage_seq: u64,
    /// `tp->first_tx_mstamp` of tcp_rate.c.
    first_tx_mstamp: u64,
    /// Earliest time the pacer allows the next data segment.
    pacing_next: Instant,
    // persist
    persist_backoff: u32,
    /// Window probes since the last acceptable ACK (Linux `icsk_probes_out`):
    /// a receiver that answers only with old ACKs is given up on after
    /// `max_retries` (`tcp_retries2`) of them.
    probes_out: u32,
    peer_zero_window: bool,
    probe_pending: bool,
    /// Linux shrink policy: the last ACK left a negative usable window, so
    /// it must not grow cwnd (seed 000 §2.2 observation).
    shrunk_ack: bool,
    /// Running count of segments marked LOST (rate sample `losses`).
    lost_marks: u32,
    /// RACK (RFC 8985) state.
    rack: rack::RackState,
    /// This ACK's RACK scan armed the reordering timer (Linux clears
    /// FLAG_SET_XMIT_TIMER), so the ACK leaves the timers alone.
    reo_armed: bool,
    // ---- tail loss probe (`tlp.rs`; Linux tcp_sock fields of the same names) ----
    /// `tlp_high_seq`: SND.NXT after the outstanding probe, if one is.
    tlp_high_seq: Option<u64>,
    /// `tlp_retrans`: the outstanding probe was a retransmission.
    tlp_retrans: bool,
    /// The probe the expired timer decided on, for `poll_transmit`.
    tlp_send: Option<tlp::TlpSend>,
    // ---- undo / F-RTO (`undo.rs`; Linux tcp_sock fields of the same names) ----
    /// `undo_marker`: SND.UNA when the current reduction began.
    undo_marker: Option<u64>,
    /// `undo_retrans`: retransmissions not yet D-SACKed (-1: none sent).
    undo_retrans: i32,
    /// `retrans_stamp`: first retransmission of the episode.
    retrans_stamp: Option<Instant>,
    /// `tp->frto`: F-RTO is judging the current timeout.
    frto: bool,
    /// F-RTO step 2.b (`REXMIT_NEW`): until the next ACK, new data goes out
    /// instead of retransmissions.
    frto_new_data: bool,
    /// `dsack_dups`: duplicate segments reported by D-SACKs so far.
    dsack_dups: u64,
    /// TSecr of the ACK being processed (`rx_opt.rcv_tsecr`), if any.
    rcv_tsecr: Option<u32>,
    // ---- buffers and Nagle (`autotune.rs`, `sndbuf.rs`, `nagle.rs`) ----
    /// `sk_sndbuf` while the send buffer grows (`snd_buf_autotune`).
    sk_sndbuf: u32,
    /// `SOCK_QUEUE_SHRUNK`: an ACK freed send-buffer room.
    snd_queue_shrunk: bool,
    /// `SOCK_NOSPACE`: the writer waited for room.
    snd_nospace: bool,
    /// `snd_sml`: end of the last sub-MSS segment sent (Minshall).
    snd_sml: u64,
    /// SND.NXT when Nagle last held a segment (counts each hold once).
    nagle_held_at: Option<u64>,
    /// `lsndtime` of the idle period whose cwnd was restarted (`idle.rs`).
    idle_restarted_at: Option<u32>,
    /// Receive-buffer autotuning state.
    rs: autotune::RcvSpace,
    /// Receiver: the D-SACK block owed to the peer (`duplicate_sack[0]`
    /// while `rx_opt.dsack`), stream offsets.
    dsack_block: Option<(u64, u64)>,

    // ---- ECN (`ecn.rs`) ----
    /// `tp->ecn_flags` (`TCP_ECN_*` bits).
    ecn_flags: u8,
    /// ECN codepoint of the datagram whose segment is being handled.
    rx_ecn: Ecn,
    /// The segment `poll_transmit` returned last goes out ECT(0).
    tx_ect: bool,

    // ---- timestamps / SACK negotiation ----
    ts_ok: bool,
    /// Both SYNs carried the window-scale option.
    ws_ok: bool,
    ts_recent: u32,
    sack_ok: bool,

    // ---- receive side (offsets from IRS: SYN = 0, first data byte = 1) ----
    irs: SeqNum,
    rcv: RecvBuf,
    rcv_wscale: u8,
    /// Right edge of the window last advertised (receive-space offset).
    rcv_adv: u64,
    /// RCV.NXT in the last ACK sent (RFC 7323 Last.ACK.sent).
    last_ack_sent: u64,
    /// Receive-space offset of the peer's FIN once seen.
    peer_fin: Option<u64>,
    fin_consumed: bool,
    peer_closed_pending: bool,
    ack_now: bool,
    delack_segs: u32,
    /// In-order segments still to be ACKed at once (`TcpConfig::initial_quickacks`).
    quickacks: u32,
    /// The pending delayed ACK was marked pushed (`pushed.rs`).
    ack_pushed: bool,
    /// When in-order data last arrived (`icsk_ack.lrcvtime`).
    last_data_rcvd: Option<Instant>,
    /// Linux's adaptive delayed-ACK timeout (`ato.rs`).
    ato: ato::Ato,
    /// The TSO chunk being sent, for `push_tso` (`tso_push.rs`).
    tso_chunk: tso_push::TsoChunk,
    /// SACK compression's held ACKs (`sack_compress.rs`).
    sack_comp: sack_compress::SackCompress,
    /// `icsk_ack.last_seg_size`: the last short segment's length (`pushed.rs`).
    last_seg_size: u32,
    /// Wi-TCP (`witcp.rs`): the state an EHO-ACK stored, while frozen.
    witcp_frozen: Option<witcp::Frozen>,
    /// Freeze-TCP (`freeze.rs`): advertise a zero window.
    freeze_zwa: bool,
    /// Freeze-TCP: TR-ACKs still to send after reconnection.
    tr_acks: u32,
}

impl Endpoint {
    /// A closed endpoint. `iss` is the initial send sequence number (the driver
    /// draws it from the endpoint's RNG stream so runs are reproducible).
    pub fn new(cfg: TcpConfig, local_port: u16, remote_port: u16, iss: SeqNum) -> Result<Self, String> {
        cfg.validate()?;
        let cc = CongestionControl::new(cfg.cc, &crate::cc::CcParams::default())?;
        let tp = TcpSock {
            snd_cwnd: cfg.initial_cwnd,
            snd_ssthresh: cfg.initial_ssthresh,
            mss_cache: cfg.mss,
            hz: cfg.hz,
            snd_una: iss.0,
            snd_nxt: iss.0,
            ..Default::default()
        };
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.clock_granularity, cfg.rto_timer).with_tick(cfg.rto_tick);
        let rcv_wscale = match (cfg.window_scaling, cfg.rcv_buf_autotune) {
            (false, _) => 0,
            (true, false) => wscale_for(cfg.rcv_buf),
            (true, true) => autotune::autotune_wscale(cfg.tcp_rmem[2]),
        };
        let mut ep = Endpoint {
            cc,
            tp,
            clock_at: Instant::MAX,
            state: State::Closed,
            local_port,
            remote_port,
            stats: TcpStats::default(),
            events: VecDeque::with_capacity(16),
            timers: Timers::with_rto_tick(cfg.rto_tick).with_wheel(cfg.timer_wheel.then_some(cfg.hz)),
            rtt,
            iss,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            snd_wnd: 0,
            snd_wl1: 0,
            max_snd_wnd: 0,
            snd_wscale: 0,
            send_mss: cfg.mss,
            app_written: 0,
            fin_requested: false,
            fin_sent: false,
            rtx: VecDeque::with_capacity(64),
            high_seq: 0,
            recover: 0,
            prr_delivered: 0,
            prr_out: 0,
            prr_recover_fs: 0,
            acked_for_growth: None,
            first_partial_ack: true,
            force_retx: false,
            retries: 0,
            syn_tx_time: Instant::ZERO,
            syn_retransmitted: false,
            send_syn: false,
            send_rst: false,
            closed_reply: None,
            cwnd_usage_seq: 0,
            first_tx_mstamp: 0,
            pacing_next: Instant::ZERO,
            persist_backoff: 0,
            probes_out: 0,
            peer_zero_window: false,
            probe_pending: false,
            shrunk_ack: false,
            lost_marks: 0,
            rack: rack::RackState::default(),
            reo_armed: false,
            tlp_high_seq: None,
            tlp_retrans: false,
            tlp_send: None,
            undo_marker: None,
            undo_retrans: 0,
            retrans_stamp: None,
            frto: false,
            frto_new_data: false,
            dsack_dups: 0,
            rcv_tsecr: None,
            dsack_block: None,
            ecn_flags: 0,
            rx_ecn: Ecn::NotEct,
            tx_ect: false,
            sk_sndbuf: cfg.tcp_wmem[1],
            snd_queue_shrunk: false,
            snd_nospace: false,
            snd_sml: 0,
            nagle_held_at: None,
            idle_restarted_at: None,
            rs: autotune::RcvSpace::default(),
            ws_ok: false,
            ts_ok: false,
            ts_recent: 0,
            sack_ok: false,
            irs: SeqNum(0),
            rcv: RecvBuf::with_capacity(8),
            rcv_wscale,
            rcv_adv: 0,
            last_ack_sent: 0,
            peer_fin: None,
            fin_consumed: false,
            peer_closed_pending: false,
            ack_now: false,
            delack_segs: 0,
            quickacks: 0,
            ack_pushed: false,
            last_data_rcvd: None,
            ato: Default::default(),
            tso_chunk: Default::default(),
            sack_comp: Default::default(),
            last_seg_size: 0,
            witcp_frozen: None,
            freeze_zwa: false,
            tr_acks: 0,
            cfg,
        };
        ep.rcv_space_init();
        Ok(ep)
    }

    /// Active open: queue a SYN.
    pub fn connect(&mut self, now: Instant) {
        if self.state != State::Closed {
            return;
        }
        self.set_clock(now);
        self.state = State::SynSent;
        self.send_syn = true;
        self.snd_nxt = 0;
        self.snd_una = 0;
    }

    /// Passive open.
    pub fn listen(&mut self) {
        if self.state == State::Closed {
            self.state = State::Listen;
        }
    }

    /// Passive open with the foreign port unspecified (RFC 9293 §3.9.1,
    /// OPEN with a partially specified foreign socket): the first SYN to
    /// the local port is accepted whatever its source port, and the
    /// connection is bound to that port from then on. This is how a
    /// simulated server accepts a real kernel's connection, whose source
    /// port is the kernel's ephemeral choice.
    pub fn listen_any(&mut self) {
        if matches!(self.state, State::Closed | State::Listen) {
            self.remote_port = 0;
            self.state = State::Listen;
        }
    }

    /// The peer's port (0 while listening for any).
    pub fn remote_port(&self) -> u16 {
        self.remote_port
    }

    /// Earliest instant at which `handle_timeout` must be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next()
    }

    /// Next event (state change, timeout, fast retransmit, ...) in the order
    /// they happened; drivers drain it after every call.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Whether `poll_event` has something.
    #[inline]
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Queue up to `bytes` application bytes; returns how many the send buffer took.
    pub fn send(&mut self, bytes: u64) -> u64 {
        let n = bytes.min(self.send_capacity());
        self.app_written += n;
        if n < bytes {
            self.snd_nospace = true;
        }
        n
    }

    /// Free space in the send buffer.
    pub fn send_capacity(&self) -> u64 {
        let open = matches!(self.state, State::SynSent | State::SynReceived | State::Established | State::CloseWait);
        if !open || self.fin_requested {
            return 0;
        }
        let unacked = self.app_written - self.bytes_acked();
        self.sndbuf().saturating_sub(unacked)
    }

    /// Close our side once queued data is sent (FIN).
    pub fn close(&mut self) {
        match self.state {
            State::Listen | State::SynSent => self.enter_closed(false),
            State::SynReceived | State::Established => {
                self.fin_requested = true;
                self.state = State::FinWait1;
            }
            State::CloseWait => {
                self.fin_requested = true;
                self.state = State::LastAck;
            }
            _ => {}
        }
    }

    /// Read up to `max` in-order bytes: `(stream offset, length)` of what was read.
    pub fn recv(&mut self, max: u64) -> Option<(u64, u64)> {
        let n = self.rcv.unread().min(max);
        if n == 0 {
            return None;
        }
        let off = self.rcv.read;
        let old_win = self.rcv_adv.saturating_sub(self.rcv_nxt());
        self.rcv.read += n;
        // Window update once the window would open by enough (RFC 1122
        // 4.2.3.3 receiver SWS avoidance; threshold min(2·MSS, buffer/2)).
        let new_win = self.window_to_advertise();
        let thresh = (2 * self.cfg.mss as u64).min(self.rcv_full_space() / 2);
        self.rs.read_pending = true;
        if self.cfg.window_update_ack && new_win >= old_win + thresh && self.state_receives_data() {
            self.ack_now = true;
        }
        self.ack_pushed_on_read();
        if self.peer_closed_pending && self.rcv.unread() == 0 {
            self.peer_closed_pending = false;
            self.events.push_back(Event::PeerClosed);
        }
        Some((off, n))
    }

    /// In-order bytes received and not yet read by the application.
    pub fn recv_available(&self) -> u64 {
        self.rcv.unread()
    }
    /// Current RFC 9293 connection state.
    pub fn state(&self) -> State {
        self.state
    }
    /// Counters since creation (segments, retransmissions, RTT samples).
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// Congestion state in Linux's `struct tcp_sock` shape (cwnd, ssthresh,
    /// in-flight counts in packets), as the congestion module sees it.
    pub fn sock(&self) -> &TcpSock {
        &self.tp
    }
    /// Replaces the congestion-control module (e.g. a `CongestionControl::Custom`
    /// written outside this crate); call before `connect`/`listen`.
    pub fn set_congestion_control(&mut self, cc: CongestionControl) {
        self.cc = cc;
    }
    /// Gives the congestion-control module its own random stream (BBR's
    /// PROBE_BW start phase; the other modules draw nothing and ignore it).
    /// A driver derives it from the run's seed and the flow's name.
    pub fn set_cc_rng(&mut self, rng: airtcp_core::RngStream) {
        self.cc.set_rng(rng);
    }
    /// Mutable congestion state, for drivers and tests that set pacing or
    /// pin cwnd by hand (the endpoint keeps its own counters authoritative).
    pub fn sock_mut(&mut self) -> &mut TcpSock {
        &mut self.tp
    }

    /// A snapshot of the congestion and sequence state, for time series.
    pub fn probe(&self) -> Probe {
        Probe {
            cwnd: self.tp.snd_cwnd,
            ssthresh: self.tp.snd_ssthresh,
            srtt: self.rtt.srtt(),
            rto: self.rtt.rto(),
            snd_una: self.seq_of(self.snd_una),
            snd_nxt: self.seq_of(self.snd_nxt),
            snd_wnd: self.snd_wnd,
            in_flight: self.tp.packets_in_flight(),
            ca_state: self.tp.ca_state,
            bytes_acked: self.bytes_acked(),
            bytes_delivered: self.stats.bytes_delivered,
        }
    }

    // ---- additional read-only accessors (additive API) ----

    /// The RTT estimator (SRTT, RTTVAR, RTO, backoff).
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// When the given timer is due, if armed.
    pub fn timer(&self, k: TimerKind) -> Option<Instant> {
        self.timers.get(k)
    }
    /// Effective send MSS: min(cfg.mss, peer's MSS option).
    pub fn send_mss(&self) -> u32 {
        self.send_mss
    }
    /// Window shifts in use: (applied to the peer's windows, applied to ours).
    pub fn window_scales(&self) -> (u8, u8) {
        (self.snd_wscale, self.rcv_wscale)
    }
    /// Whether SACK was negotiated (both SYNs carried SACK-permitted).
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }
    /// Whether timestamps (RFC 7323) were negotiated (both SYNs carried TSopt).
    pub fn timestamps_enabled(&self) -> bool {
        self.ts_ok
    }
    /// Number of segments in the retransmission queue.
    pub fn rtx_queue_len(&self) -> usize {
        self.rtx.len()
    }
    /// Receive window we would advertise now, in bytes.
    pub fn rcv_window(&self) -> u32 {
        self.window_to_advertise().min(u32::MAX as u64) as u32
    }
    /// The configuration the endpoint was built with.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    // ---- helpers ----

    fn set_clock(&mut self, now: Instant) {
        if now == self.clock_at {
            return;
        }
        self.clock_at = now;
        self.timers.set_clock(now);
        self.tp.tcp_mstamp = now.as_micros();
        self.tp.jiffies = div_floor(now.as_nanos(), self.ns_per_jiffy()) as u32;
    }

    /// One jiffy of the kernel clock `hz`, in ns.
    fn ns_per_jiffy(&self) -> u64 {
        // Constant divisors for the usual HZ (see `airtcp_core::time::div_floor`).
        match self.cfg.hz {
            1000 => 1_000_000,
            250 => 4_000_000,
            100 => 10_000_000,
            hz => 1_000_000_000 / hz.max(1) as u64,
        }
    }

    fn ts_now(&self, now: Instant) -> u32 {
        div_floor(now.as_nanos(), self.cfg.ts_granularity.as_nanos()) as u32
    }

    fn seq_of(&self, off: u64) -> SeqNum {
        self.iss + off as u32
    }

    /// Send-space offset of a wire ACK number, relative to SND.UNA.
    fn snd_off(&self, s: SeqNum) -> i64 {
        self.snd_una as i64 + s.diff(self.seq_of(self.snd_una)) as i64
    }

    fn rcv_nxt(&self) -> u64 {
        self.rcv.delivered + 1 + self.fin_consumed as u64
    }

    /// Receive-space offset of a wire sequence number, relative to RCV.NXT.
    fn rcv_off(&self, s: SeqNum) -> i64 {
        let nxt = self.rcv_nxt();
        nxt as i64 + s.diff(self.irs + nxt as u32) as i64
    }

    fn bytes_acked(&self) -> u64 {
        self.snd_una.saturating_sub(1).min(self.app_written)
    }

    fn data_end(&self) -> u64 {
        self.app_written + 1
    }

    fn has_unsent(&self) -> bool {
        self.snd_nxt < self.data_end() || (self.fin_requested && !self.fin_sent)
    }

    fn state_receives_data(&self) -> bool {
        matches!(self.state, State::Established | State::FinWait1 | State::FinWait2)
    }

    fn sync_seq(&mut self) {
        self.tp.snd_una = self.seq_of(self.snd_una).0;
        self.tp.snd_nxt = self.seq_of(self.snd_nxt).0;
    }

    fn set_ca_state(&mut self, new: CaState) {
        let old = self.tp.ca_state;
        if old == new {
            return;
        }
        self.cc.set_state(&mut self.tp, new);
        self.tp.ca_state = new;
        self.events.push_back(Event::CaStateChanged { from: old, to: new });
    }

    fn enter_closed(&mut self, aborted: bool) {
        let was = self.state;
        self.state = State::Closed;
        self.timers.stop_all();
        self.send_syn = false;
        self.ack_now = false;
        self.probe_pending = false;
        self.tlp_send = None;
        if was != State::Closed {
            self.events.push_back(Event::Closed { aborted });
        }
    }

    fn abort(&mut self) {
        let synchronized = !matches!(self.state, State::Closed | State::Listen | State::SynSent);
        self.enter_closed(true);
        // RFC 9293 §3.10.4 ABORT: send a reset to a synchronized peer.
        self.send_rst = synchronized;
    }

    fn enter_time_wait(&mut self, now: Instant) {
        self.state = State::TimeWait;
        self.timers.stop_all();
        self.timers.set(TimerKind::TimeWait, now + self.cfg.msl.saturating_mul(2));
    }

    /// Right edge we are willing to advertise now, with receiver SWS
    /// avoidance (RFC 1122 4.2.3.3): the edge only moves right once it can
    /// move by min(buffer/2, MSS), and never moves left (RFC 9293 §3.8.6.2.2).
    /// An autotuned buffer offers min(free space, `rcv_ssthresh`) instead of
    /// the fixed buffer less unread data (`autotune.rs`).
    fn adv_edge(&self) -> u64 {
        let cand = if self.cfg.rcv_buf_autotune {
            self.rcv_nxt() + self.autotune_window()
        } else {
            self.rcv.read + 1 + self.fin_consumed as u64 + self.cfg.rcv_buf as u64
        };
        let thresh = (self.rcv_full_space() / 2).min(self.cfg.mss as u64);
        if cand >= self.rcv_adv + thresh || self.rcv_adv == 0 {
            cand.max(self.rcv_adv)
        } else {
            self.rcv_adv
        }
    }

    fn window_to_advertise(&self) -> u64 {
        let max = (u16::MAX as u64) << self.rcv_wscale;
        self.adv_edge().saturating_sub(self.rcv_nxt()).min(max)
    }

    /// Raw 16-bit window field for a non-SYN segment (and records the edge).
    fn window_field(&mut self) -> u16 {
        if self.freeze_zwa {
            // Freeze-TCP: window 0, the promised edge `rcv_adv` kept.
            return 0;
        }
        let nxt = self.rcv_nxt();
        let w = self.window_to_advertise();
        let shift = self.rcv_wscale as u32;
        let mut field = w >> shift;
        // Rounding down to the scale unit must not pull the edge left.
        if nxt + (field << shift) < self.rcv_adv {
            field = (self.rcv_adv - nxt).div_ceil(1 << shift);
        }
        let field = field.min(u16::MAX as u64);
        self.rcv_adv = self.rcv_adv.max(nxt + (field << shift));
        self.stats.rcv_wnd_max = self.stats.rcv_wnd_max.max(field << shift);
        field as u16
    }
}

/// Smallest RFC 7323 shift such that `buf >> shift` fits the 16-bit field.
fn wscale_for(buf: u32) -> u8 {
    let mut s = 0u8;
    while s < MAX_WSCALE && (buf as u64 >> s) > u16::MAX as u64 {
        s += 1;
    }
    s
}

#[cfg(test)]
#[path = "linux_fidelity_tests.rs"]
mod linux_fidelity_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wscale_covers_buffer() {
        assert_eq!(wscale_for(65_535), 0);
        assert_eq!(wscale_for(65_536), 1);
        assert_eq!(wscale_for(131_072), 2);
        assert_eq!(wscale_for(4 << 20), 7);
    }
}
