//! `[flows.tcp]`: a named profile (`profile = "linux"`, the default; see
//! `airtcp_tcp::profiles` and docs/tcp-profiles.md) and every `TcpConfig`
//! field by name, each overriding the profile's value. Without `profile`,
//! `recovery = "ns3-prr"` selects the `ns3` profile (the ns-3 anchor
//! scenarios name no profile), anything else `linux`. An explicit `rcv_buf`
//! / `snd_buf` locks that buffer's autotuning, as a program's SO_RCVBUF /
//! SO_SNDBUF does. Both ends of a flow use the same configuration.
//!
//! Every key is one entry of [`TCP`]: the accepted keys, the reader, the
//! resolved JSON and the reference page's table all come from it.

use airtcp_tcp::config::{EcnMode, LossExitGrowth, PartialAckRto, PushAck, Recovery, RttSamples, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy};
use airtcp_tcp::profiles::{self, DEFAULT_PROFILE};
use airtcp_tcp::{CcAlgorithm, TcpConfig};
use serde_json::Value;

use super::keys::{field, named_codec, Bool, Bytes, Codec, Dur, Key, OptDur, Section, SizeTriple, U32};
use super::value::{Field, Table, R};

named_codec!(RecoveryC, Recovery, "`\"tahoe\"` | `\"reno\"` | `\"newreno\"` | `\"prr\"` | `\"ns3-prr\"`");
named_codec!(RenoSacksC, RenoSacks, "`\"reset\"` | `\"persist\"`");
named_codec!(LossExitGrowthC, LossExitGrowth, "`\"all-acked\"` | `\"beyond-recovery-point\"`");
named_codec!(RtoSsthreshC, RtoSsthresh, "`\"once-per-window\"` | `\"always\"`");
named_codec!(PartialAckRtoC, PartialAckRto, "`\"every\"` | `\"first-only\"`");
named_codec!(PushAckC, PushAck, "`\"off\"` | `\"short\"` | `\"full\"`");
named_codec!(RttSamplesC, RttSamples, "`\"timestamps\"` | `\"linux\"`");
named_codec!(RtoTimerC, RtoTimer, "`\"rfc6298\"` | `\"linux\"`");
named_codec!(Cc, CcAlgorithm, "`\"reno\"` | `\"newreno\"` | `\"cubic\"` | `\"veno\"` | `\"westwood\"` | `\"vegas\"` | `\"bbr\"`");

/// Segments, or `"infinite"` (written as the number it stands for).
struct Ssthresh;
impl Codec for Ssthresh {
    type V = u32;
    const TY: &'static str = "integer (segments) or `\"infinite\"`";
    fn read(f: &Field) -> R<u32> {
        match f.v {
            Value::String(s) if s == "infinite" => Ok(airtcp_tcp::cc::TCP_INFINITE_SSTHRESH),
            _ => f.u32(),
        }
    }
    fn write(v: &u32) -> Value {
        Value::from(*v)
    }
}

struct Shrink;
impl Codec for Shrink {
    type V = ShrinkPolicy;
    const TY: &'static str = "`\"linux\"` | `\"rfc\"`";
    fn read(f: &Field) -> R<ShrinkPolicy> {
        match f.str()? {
            "linux" => Ok(ShrinkPolicy::Linux),
            "rfc" => Ok(ShrinkPolicy::Rfc),
            other => Err(f.err(format!("unknown shrink_policy \"{other}\" (known: linux, rfc)"))),
        }
    }
    fn write(v: &ShrinkPolicy) -> Value {
        Value::from(match v {
            ShrinkPolicy::Linux => "linux",
            ShrinkPolicy::Rfc => "rfc",
        })
    }
}

/// `net.ipv4.tcp_ecn`'s number or its name; written as the number.
struct Ecn;
impl Codec for Ecn {
    type V = EcnMode;
    const TY: &'static str = "`0` | `1` | `2` or `\"off\"` | `\"on\"` | `\"passive\"`";
    fn read(f: &Field) -> R<EcnMode> {
        match f.v {
            Value::Number(n) => n
                .as_i64()
                .ok_or_else(|| f.err(format!("ecn = {n} is not 0, 1 or 2")))
                .and_then(|n| EcnMode::from_sysctl(n).map_err(|m| f.err(m))),
            _ => EcnMode::from_name(f.str()?).map_err(|m| f.err(m)),
        }
    }
    fn write(v: &EcnMode) -> Value {
        Value::from(v.sysctl())
    }
}

/// `profile` is resolved before the other keys (its configuration is what
/// they override), so reading it here does nothing.
const PROFILE: Key<TcpConfig> = Key {
    name: "profile",
    ty: "`\"linux\"` | `\"linux-4.4\"` | `\"linux-3.16\"` | `\"ns3\"` | `\"opnet-2003\"` | `\"rfc\"` | `\"ns2-tahoe\"` | `\"ns2-reno\"` | `\"ns2-newreno\"`",
    doc: "The stack every other key starts from ([TCP profiles](tcp-profiles.md) lists each profile's values and sources). Without it a flow runs `linux`, except that `recovery = \"ns3-prr\"` alone selects `ns3`. The `ns2-*` names run ns-2's one-way agents instead, with their own keys (below).",
    read: |_, _| Ok(()),
    write: |c| Some(Value::from(c.profile)),
    default: "",
};

/// Every `[flows.tcp]` key (also `[agents.tcp]` and `[agents.wireless_tcp]`
/// of an I-TCP proxy), in the order errors and the reference page list them.
pub static TCP: Section<'static, TcpConfig> = Section {
    path: "flows.tcp",
    keys: &[
        PROFILE,
        field!(mss: U32, "Sender maximum segment size in payload bytes."),
        field!(initial_cwnd: U32, "Initial congestion window in segments (RFC 6928 / Linux: 10; ns-3: 10)."),
        field!(initial_ssthresh: Ssthresh, "Initial ssthresh in segments (Linux/ns-3: unlimited)."),
        field!(rcv_buf: Bytes, "Receive buffer in bytes: the most the advertised window can be, when the buffer is fixed (`rcv_buf_autotune = false`). This is the value a program passes to `setsockopt(SO_RCVBUF)`: Linux doubles it into `sk_rcvbuf` and `tcp_win_from_space` halves it back, so the window limit is this number."),
        field!(snd_buf: Bytes, "Send buffer in bytes of unacknowledged and unsent application data, when the buffer is fixed (`snd_buf_autotune = false`)."),
        field!(sack: Bool, "Offer and use selective acknowledgements (RFC 2018)."),
        field!(timestamps: Bool, "Offer and use the timestamps option (RFC 7323)."),
        field!(rtt_samples: RttSamplesC, "Where an ACK's RTT sample comes from. `\"timestamps\"`: the echoed timestamp whenever timestamps are on (RFC 7323 RTTM), else the send time of the oldest newly acknowledged never-retransmitted segment (Karn); only ACKs that advance SND.UNA give samples (ns-3's `EstimateRtt`; the `ns3`, `opnet-2003` and `rfc` profiles). `\"linux\"` (`tcp_ack_update_rtt` since 3.12; the three `linux*` profiles): the sender's own send time of the oldest newly cumulatively acknowledged never-retransmitted segment, in microseconds; failing that, of the lowest newly SACKed never-retransmitted one, so a duplicate ACK that SACKs new data during recovery is a sample too; the echoed timestamp only when neither exists and the ACK advances SND.UNA (an ACK of a retransmission). The congestion modules' RTT (`ca_rtt`) is the newest such segment's."),
        field!(window_scaling: Bool, "Offer window scaling (RFC 7323); the shift is the smallest that covers `rcv_buf`."),
        field!(delack_count: U32, "ACK every `delack_count`-th full segment (RFC 1122: 2). 1 disables delayed ACK. Above 2 it only shows when `window_update_ack` is off or the application reads slower than the data arrives: a read that opens the window by min(2·MSS, buffer/2) ACKs at once (see `window_update_ack`), which with an application that keeps up is every second full segment, as on Linux."),
        field!(delack_timeout: Dur, "Delayed-ACK timer (ns-3: 200 ms; Linux: 40 ms min, adaptive)."),
        field!(comp_sack_nr: U32, "SACK compression (`net.ipv4.tcp_comp_sack_nr`, Linux 4.18; `linux` profile 44, every other 0): while out-of-order data is queued and SACK is on, the receiver ACKs the first three segments after each advance of RCV.NXT at once (5.10, \"tcp: defer SACK compression after DupThresh\", so the sender's fast retransmit is not delayed), then holds up to this many further ACKs and sends one with all their SACK blocks when `comp_sack_delay` (or 5 % of its RTT, if smaller) plus `comp_sack_slack` has passed, or at once with any other ACK. 0: every out-of-order segment is ACKed at once (RFC 5681 §4.2). Counted as the receiver's `acks_compressed` (Linux `TCPAckCompressed`)."),
        field!(comp_sack_delay: Dur, "The longest hold of SACK compression (`tcp_comp_sack_delay_ns`, 1 ms); the hold is min(this, RTT / 20) with the receiver's own RTT estimate (its smoothed RTT if smaller). Used only with `comp_sack_nr` > 0."),
        field!(comp_sack_slack: Dur, "The slack of SACK compression's timer (`tcp_comp_sack_slack_ns`, 100 µs, Linux 5.10): an hrtimer range, which fires at its end unless the CPU wakes earlier; here at the end."),
        field!(initial_rto: Dur, "RFC 6298 initial RTO (RFC 6298: 1 s; ns-3: 1 s)."),
        field!(min_rto: Dur, "Lower bound on RTO (RFC 6298: 1 s; Linux: 200 ms; ns-3: 1 s)."),
        field!(max_rto: Dur, "Upper bound on RTO (RFC 6298 allows >= 60 s; Linux TCP_RTO_MAX: 120 s)."),
        field!(clock_granularity: Dur, "Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR) (ns-3: 1 ms)."),
        field!(rto_tick: OptDur, "A coarse timer tick, as BSD's 500 ms slow timer and OPNET's \"Timer Granularity\" apply it (`endpoint/rtt.rs`, `endpoint/timers.rs`): every RTT sample is rounded up to whole ticks (at least one), and the retransmission timer fires only on a tick boundary (the first at or after its deadline). `\"none\"`: no tick, samples and timers at the simulator's resolution."),
        field!(recovery: RecoveryC, "Loss recovery: `tahoe` (RFC 5681 without fast recovery), `reno` (RFC 5681), `newreno` (RFC 6582), `prr` (RFC 6937 as Linux `tcp_cwnd_reduction`), `ns3-prr` (ns-3 3.44's `TcpPrrRecovery` with its ns-3 behaviour set)."),
        field!(dupack_threshold: U32, "Duplicate-ACK threshold (RFC 5681: 3)."),
        field!(limited_transmit: Bool, "RFC 3042 limited transmit (ns-3 default: on)."),
        field!(cc: Cc, "The congestion-control module: `reno` is Linux's tcp_reno (per-segment growth), `newreno` RFC 5681's per-ACK growth as ns-3's TcpNewReno, `westwood` (also `westwood+`, `westwoodplus`) Linux's Westwood+; the rest are Linux's modules of those names. Loss recovery is chosen by `recovery`."),
        field!(hz: U32, "Kernel HZ for the jiffies clock the modules see (Linux default 1000)."),
        field!(persist_min: Dur, "First persist (zero-window probe) interval lower bound (Linux TCP_RTO_MIN 200 ms)."),
        field!(persist_max: Dur, "Persist interval upper bound (Linux TCP_RTO_MAX: 120 s)."),
        field!(shrink_policy: Shrink, "What the sender does when the peer shrinks its window: `linux` (`tcp_ack` keeps the data, retransmits it when the window reopens) or `rfc` (RFC 9293 §3.8.6: treat it as not yet sent)."),
        field!(max_retries: U32, "Retransmissions of one segment before the connection is aborted (Linux tcp_retries2 = 15; ns-3 DataRetries = 6)."),
        field!(syn_retries: U32, "SYN retransmissions before giving up (Linux tcp_syn_retries = 6)."),
        field!(ts_granularity: Dur, "Timestamp clock tick (Linux: 1 ms)."),
        field!(msl: Dur, "Maximum segment lifetime; TIME_WAIT lasts 2·MSL (RFC 9293 §3.4.2). Default 1 s (TIME_WAIT 2 s) is deliberately short: RFC 9293 suggests 2 min and Linux holds TIME_WAIT for a fixed 60 s (TCP_TIMEWAIT_LEN), but nothing in a simulated run reuses the port pair, and a long TIME_WAIT would only keep the event queue alive."),
        field!(initial_quickacks: U32, "In-order data segments ACKed immediately once the connection is established, before delayed ACK applies. Default 0 (RFC 1122 4.2.3.2 has no such rule). ns-3: 1 — `ProcessSynRcvd`/`ProcessSynSent` set `m_delAckCount = m_delAckMaxCount` (\"always respond to first data packet\"). Linux instead starts in quickack mode (up to 16 segments, `tcp_incr_quickack`), which this field only approximates."),
        field!(idle_quickack: Bool, "Re-enter quick-ACK mode when in-order data arrives after a gap longer than the receiver's RTO (Linux `tcp_event_data_recv`, `tcp_incr_quickack`): the next min(16, receive window / 2·MSS) in-order segments are ACKed at once, so after a handoff stall the sender's first ACKs each cover one segment. On in the three `linux*` profiles, off in the others (ns-3 has no such rule)."),
        field!(delack_adaptive: Bool, "Linux's adaptive delayed-ACK timeout (`icsk_ack.ato`, kept in jiffies of `hz`): `delack_timeout` is its floor (TCP_ATO_MIN); in-order data arriving at most half the floor after the last pulls it back to the floor; a delayed ACK the timer had to send doubles it (`tcp_delack_timer_handler`, at most the RTO); when armed it is capped by the receiver's smoothed RTT rounded up to a jiffy (`tcp_send_delayed_ack`) and the timer fires on a jiffy. A bulk receiver with a 41 ms RTT at HZ 250 thus waits 40-44 ms for a second segment. Off: the timer is `delack_timeout` from the held segment. On in the three `linux*` profiles, off in the others."),
        field!(timer_wheel: Bool, "Linux's jiffy timers (retransmission, tail loss probe, RACK reordering, persist, delayed ACK) fire where the kernel's timer wheel fires them (kernel/time/timer.c `calc_wheel_index`, 4.8+): the deadline in whole jiffies of `hz` ahead, then the next point of its level's grid strictly after it (1 jiffy under 63 jiffies ahead, 8 under 504, 64 under 4032, ...), so a timer never fires early and often fires late: a 40 ms delayed ACK at HZ 250 fires 40-44 ms after its segment, a 250 ms RTO up to 32 ms late. SACK compression and pacing are hrtimers in Linux and exact here. On in the three `linux*` profiles, off in the others."),
        field!(push_tso: Bool, "Linux 4.11+ PSH placement (`__tcp_transmit_skb`, \"tcp: force a PSH flag on TSO packets\"): every transmitted chunk of more than one new segment carries PSH on its last segment, chunks of `tcp_tso_autosize` segments (about 1 ms of data at the pacing rate Linux computes, at least `tcp_min_tso_segs` = 2) and of at most half the congestion window (`tcp_cwnd_test`), cut from what one transmission opportunity sends; a one-segment chunk and a retransmission carry PSH only at the end of the data written. So an ACK releasing two segments sends `. P`, three `. P .`, one `.`, and a window of 2 or 3 sends no PSH at all. With it on, `push_segs` plays no part. On in `linux`; off in `linux-4.4`, `linux-3.16` (before 4.11) and the others."),
        field!(syn_rto: OptDur, "Retransmission timeout of SYN / SYN-ACK, doubled per retry; `\"none\"` = `initial_rto` (RFC 6298 §2.1 and Linux TCP_TIMEOUT_INIT: 1 s). ns-3: `TcpSocket::ConnTimeout` = 3 s, doubled per retry (`SendEmptyPacket`)."),
        field!(reno_sacks: RenoSacksC, "Duplicate-ACK bookkeeping without SACK (default Linux)."),
        field!(loss_exit_growth: LossExitGrowthC, "cwnd growth on the ACK that ends Loss (default Linux)."),
        field!(rto_ssthresh: RtoSsthreshC, "Whether an RTO recomputes ssthresh (default Linux)."),
        field!(partial_ack_rto: PartialAckRtoC, "Retransmission-timer restarts on partial ACKs (default Linux)."),
        field!(rto_timer: RtoTimerC, "RTO formula and restarts (default RFC 6298, as ns-3; `Linux` for a Linux sender)."),
        field!(rack: Bool, "RACK loss detection on SACK connections (`net.ipv4.tcp_recovery = 1`): a segment is lost once one *sent later* was delivered and RACK.rtt + reo_wnd has passed since it was sent — which also finds retransmissions lost again, in Recovery and in Loss (a lost retransmission in Loss starts Recovery, as `tcp_fastretrans_alert` falls through on `FLAG_LOST_RETRANS`). The reordering window `reo_wnd` is `tcp_rack_reo_wnd`: 0 in Recovery or once `dupack_threshold` segments are SACKed, unless reordering has been seen (a never-retransmitted hole below SACKed data filled late, `tcp_check_sack_reordering`); then min_rtt/4 × `reo_wnd_steps`, capped at SRTT. A D-SACK after reordering adds a step, once per round trip, up to 255 (`tcp_rack_update_reo_wnd`); 16 recoveries without one (`TCP_RACK_RECOVERY_THRESH`) return to one step. A segment not yet due arms the reordering timer (remaining wait + 2 ms, at most one RTO); on expiry the scan runs again and what it marks is retransmitted at once, entering Recovery if needed (`tcp_rack_reo_timeout`). Inactive without SACK and with `recovery = \"ns3-prr\"` (ns-3 3.44 has no RACK)."),
        field!(tlp: Bool, "Tail loss probe (`net.ipv4.tcp_early_retrans = 3`; Linux requires SACK). In Open or CWR with data outstanding, PTO = 2·SRTT + 2 ms (+ `min_rto` instead of 2 ms when one segment is out: room for a delayed ACK; 1 s without an RTT sample), capped at the RTO, re-armed after each new-data send and each ACK that acknowledges data. On expiry one segment goes out regardless of cwnd: new data if the peer's window admits it, else the highest-sequence segment again; the RTO restarts from the probe; one probe at a time (`tlp_high_seq`). Its ACK shows the tail hole to SACK/RACK, so fast recovery repairs a tail loss instead of the RTO. If an ACK goes beyond the probe without a D-SACK of it, the probe repaired a loss: cwnd is reduced once (module ssthresh, CWR, cwnd = ssthresh; `tcp_process_tlp_ack`). A D-SACK of exactly the probe, or a pure duplicate ACK, ends the episode without a reduction. Inactive without SACK and with `recovery = \"ns3-prr\"`."),
        field!(frto: Bool, "F-RTO after a retransmission timeout (RFC 5682 with Linux's SACK-enhanced variant, `net.ipv4.tcp_frto = 2`). The first ACK that advances SND.UNA only past the retransmission sends *new* data instead of retransmitting (step 2); an ACK or SACK of never-retransmitted data sent before the timeout then proves the RTO spurious (step 3b) and the timeout is undone: Loss ends, cwnd and ssthresh are restored, nothing is retransmitted go-back-N. A duplicate ACK or a SACK of the new data means the loss was real (step 3a) and recovery continues as without F-RTO. Armed for a new loss episode or a repeated timeout of the same SND.UNA (RFC 5682 §3.2), not for an RTO during fast recovery (`tcp_enter_loss`)."),
        field!(frto_nonsack_guard: Bool, "Without SACK, an ACK that covers the timeout's retransmission is not taken as proof that never-retransmitted data arrived after the timeout, so F-RTO does not undo on it (Linux 4.17, `tcp_clean_rtx_queue`: \"tcp: prevent bogus FRTO undos with non-SACK flows\"). Off in the `linux-3.16` and `linux-4.4` profiles, which predate it: there a real timeout can be undone, cwnd restored below what is outstanding, and the next hole waits for the next RTO. Only matters with `frto` on and `sack` off."),
        field!(dsack: Bool, "The receiver reports duplicate segments with D-SACK (RFC 2883; Linux `tcp_dsack_set` / `tcp_dsack_extend`, `net.ipv4.tcp_dsack = 1`): the first SACK block of the next ACK names the repeated bytes (below RCV.NXT, straddling it, or already queued out of order, followed by the SACK block that holds them), once. Only on SACK connections. A sender always reads D-SACKs (as Linux): they are no duplicate ACKs, are checked (`tcp_dsack_seen`: at most the largest window, not more duplicates than we ever retransmitted) and count down `undo_retrans`."),
        field!(undo: Bool, "Undo of reductions that prove unnecessary, Linux's `tcp_try_undo_*`: at the end of fast recovery (`tcp_try_undo_recovery`), on a partial ACK (`tcp_try_undo_partial`), in Loss (`tcp_try_undo_loss`) and when D-SACKs show every retransmission of the episode was a duplicate (`tcp_try_undo_dsack`, also after recovery ended). cwnd comes from the congestion module's `undo_cwnd` hook (Reno, CUBIC, Veno, Westwood, Vegas: max(cwnd, prior_cwnd); BBR resets its full-pipe and long-term-bandwidth state; `newreno`, the ns-3 module, keeps cwnd), ssthresh goes back to `prior_ssthresh` (`tcp_current_ssthresh` when the reduction began) if that is larger. Linux has no switch for this; it is always on there. Recovery-side undo applies to `recovery = \"prr\"` (Linux); Loss-side undo to every recovery. F-RTO's own undo belongs to `frto`."),
        field!(eifel: Bool, "The timestamp test of `tcp_packet_delayed` (Eifel detection, RFC 3522): an ACK whose TSecr is older than the first retransmission of the episode was caused by an original transmission, so `undo` may act at once. Needs `timestamps`."),
        field!(ecn: Ecn, "`net.ipv4.tcp_ecn`: `0`/`\"off\"` never, `1`/`\"on\"` request on our SYN (ECE + CWR, `tcp_ecn_send_syn`) and accept, `2`/`\"passive\"` (the kernel default) accept a peer's request (`tcp_ecn_create_request`: SYN-ACK with ECE) but never ask. So two default ends never use ECN; set `ecn = 1` on the flow to have its client ask (both ends of a flow share `[flows.tcp]`, and the server's 1 accepts as 2 would). A retransmitted SYN drops ECE/CWR (`tcp_ecn_clear_syn`, `tcp_ecn_fallback = 1`); a SYN-ACK with ECE + CWR, or an ECT SYN, does not negotiate. Once negotiated: new data goes out ECT(0), retransmissions, pure ACKs and SYNs Not-ECT (`tcp_ecn_send`); a CE data segment makes the receiver set ECE on every segment until a data segment with CWR arrives, and quick-ACK two segments (`__tcp_ecn_check_ce`, `tcp_ecn_accept_cwr`); an ECE puts the sender from Open/Disorder into CWR (`tcp_enter_cwr`: the module's `ssthresh`, then PRR toward it per ACK via `tcp_cwnd_reduction`, cwnd = ssthresh at the end; with the RFC recoveries cwnd = ssthresh at once), with CWR on the next new data segment. CWR ends once an ACK passes the recovery point, so further ECEs in that window (and in Recovery/Loss) do nothing: one reduction per window. Fast recovery entered from CWR keeps CWR's ssthresh; an ECE forbids undo. Recovery and RTO reductions queue CWR too. ns-3 3.44's `UseEcn` defaults to Off."),
        field!(rcv_buf_autotune: Bool, "Receive-buffer autotuning, Linux 6.6's Dynamic Right-Sizing (`tcp_rcv_space_adjust`, `net.ipv4.tcp_moderate_rcvbuf = 1`). The buffer starts at `tcp_rmem[1]`; the SYN offers its half rounded down to whole MSS (65000 for MSS 1000, 64240 for 1460) with window shift ilog2(max(`tcp_rmem[2]`, rmem_max)) − 15 = 7, and at ESTABLISHED the window is clamped to that half less one MSS (`tcp_init_buffer_space`). Once per receiver RTT (from timestamps, `tcp_rcv_rtt_measure_ts`, else one window's fill time, `tcp_rcv_rtt_measure`) the bytes the application read are compared with the previous RTT's; when they grew the buffer becomes 2 × (2·copied + 16·MSS + 2·growth), at most `tcp_rmem[2]`, and the window clamp its half. Every received segment of ≥ 128 bytes raises the window ceiling `rcv_ssthresh` by 2 MSS towards the clamp (`tcp_grow_window`); the window offered is min(free half-buffer, `rcv_ssthresh`). 6.6's `scaling_ratio` is held at its default of ½ (no skb truesize here), which is what `tcp_adv_win_scale = 1` gave before. Setting `rcv_buf` locks the buffer, as SO_RCVBUF does (`SOCK_RCVBUF_LOCK`): the window is then at most `rcv_buf`. An explicit `rcv_buf_autotune` wins over that."),
        field!(tcp_rmem: SizeTriple, "`net.ipv4.tcp_rmem` = [min, default, max] in bytes of buffer memory (Linux 5.4+ defaults 4096 / 131072 / 6291456); half of it is window (`tcp_win_from_space`, see `endpoint/autotune.rs`)."),
        field!(snd_buf_autotune: Bool, "Send-buffer growth (`tcp_sndbuf_expand`, `tcp_new_space`): the buffer starts at `tcp_wmem[1]`, is sized at ESTABLISHED and, whenever ACKs free room while the writer waited and cwnd is not full, grows to 2 (BBR: 3) × max(IW, cwnd, reordering + 1) × the kernel's worst-case per-segment memory (4352 bytes for MSS 1460), at most `tcp_wmem[2]`. The buffer holds payload bytes (as with GSO skbs), so it ends up about 6 × cwnd × MSS: it never limits a bulk sender. Setting `snd_buf` locks it (SO_SNDBUF, `SOCK_SNDBUF_LOCK`)."),
        field!(tcp_wmem: SizeTriple, "`net.ipv4.tcp_wmem` = [min, default, max] in bytes (Linux defaults 4096 / 16384 / 4194304)."),
        field!(nodelay: Bool, "TCP_NODELAY. When false, Nagle's algorithm (RFC 896) in Linux's Minshall form (`tcp_nagle_check`, `tcp_minshall_check`): the last, sub-MSS segment of the write queue waits while an earlier sub-MSS segment is unacknowledged. Full segments and a segment with FIN never wait. ns-3 3.44's `TcpSocket::TcpNoDelay` defaults to true. The simulator's applications write whole MSS chunks (bulk) or the whole transfer before closing (so its last segment carries FIN); Nagle shows with I-TCP relays and partial writes into a nearly full send buffer."),
        field!(window_update_ack: Bool, "Send an ACK when the application's read opens the advertised window by at least min(2·MSS, buffer/2) (RFC 1122 4.2.3.3 receiver SWS avoidance; Linux `__tcp_cleanup_rbuf`). Off: reads never cause an ACK and `delack_count` / `delack_timeout` alone pace them, as in a stack without a receive buffer to drain (ns-2's `Agent/TCPSink` family, whose sink consumes data on arrival)."),
        field!(push_ack: PushAckC, "Which in-order data segments have their pending delayed ACK sent as soon as the application's read leaves nothing queued (Linux `tcp_measure_rcv_mss` marks the ACK ICSK_ACK_PUSHED, `tcp_cleanup_rbuf` sends it): `\"short\"` a segment shorter than the peer's segment size as measured (`rcv_mss`; two short segments of the same length in a row are taken as the peer's segment size instead), every Linux; `\"full\"` also a full-sized segment with PSH (Linux 6.6, \"tcp: fix delayed ACKs for MSS boundary condition\": the end of a sender's write); `\"off\"` neither (ns-3, RFC 1122). The `linux` profile has `full`, `linux-3.16` and `linux-4.4` `short`, the others `off`. A receiver that reads at once then ACKs every in-order segment with PSH (see `push_segs` for which have it)."),
        field!(push_segs: U32, "Which data segments carry PSH: `0` every one; n > 0 the one that ends the data written so far and every one that ends a group of n full segments of the stream. Linux (all three `linux*` profiles: 2) marks the last segment of each skb a write pushes; a bulk writer blocked on a full send buffer pushes each skb it appends (`tcp_push` before `sk_stream_wait_memory`), and below about 23 Mb/s an skb holds `tcp_min_tso_segs` = 2 segments (`tcp_tso_autosize`, since 3.12), so every second segment has PSH (a capture of Linux 6.18 at 10 Mb/s shows it every 2 or 3 segments). Other profiles: 0."),
        field!(slow_start_after_idle: Bool, "Congestion-window restart after idle (RFC 5681 §4.1; `net.ipv4.tcp_slow_start_after_idle = 1`, `tcp_cwnd_restart`): new data with nothing in flight after more than one RTO without sending sets ssthresh = max(ssthresh, ¾·cwnd), raises the module's `CA_EVENT_CWND_RESTART` (Vegas and Veno re-initialise) and halves cwnd per further RTO idle, down to min(IW, cwnd). Not for BBR (`cong_control`). ns-3 3.44's `TcpSocketBase` never restarts cwnd after idle."),
        field!(witcp: Bool, "Wi-TCP sender (seed 001, `endpoint/witcp.rs`): obey EHO-ACK / EHC-ACK signals (TCP option 253, ExID 0x5754) by freezing and restoring cwnd and ssthresh. Default off: the option is then ignored, as by any unmodified stack."),
        field!(witcp_max_freeze: OptDur, "With `witcp`: resume on our own after this long frozen without an EHC-ACK. `\"none\"` (the paper waits for the EHC-ACK indefinitely)."),
        field!(ehn: Bool, "Explicit handover notification sender (seed 001's reference [8], `endpoint/ehn.rs`): on an ACK carrying the EHN signal, reset the retransmission timer and resend from its acknowledgement number at once. Default off: the signal is then an ordinary ACK."),
        field!(freeze: Bool, "Freeze-TCP receiver (Goff et al., INFOCOM 2000; `endpoint/freeze.rs`): the driver may call `Endpoint::freeze` when its radio predicts a handoff and `unfreeze` on reconnection. Default off."),
    ],
};

/// The configuration of a flow (or proxy connection) without a `tcp`
/// table: the default profile.
pub(crate) fn tcp_default() -> TcpConfig {
    profiles::config(DEFAULT_PROFILE).expect("the default profile exists")
}

pub(crate) fn tcp_config(t: &Table) -> R<TcpConfig> {
    TCP.known(t)?;
    let mut c = match t.opt("profile") {
        Some(f) => profiles::config(f.str()?).map_err(|m| f.err(m))?,
        None => {
            let ns3 = t.opt("recovery").is_some_and(|f| matches!(f.v, Value::String(s) if s == "ns3-prr"));
            profiles::config(if ns3 { "ns3" } else { DEFAULT_PROFILE }).expect("built-in profile")
        }
    };
    TCP.read_present(t, &mut c)?;
    // A program's SO_RCVBUF / SO_SNDBUF locks that buffer
    // (SOCK_RCVBUF_LOCK, SOCK_SNDBUF_LOCK): an explicit size turns the
    // profile's autotuning off unless the autotune key is given too.
    if t.opt("rcv_buf").is_some() && t.opt("rcv_buf_autotune").is_none() {
        c.rcv_buf_autotune = false;
    }
    if t.opt("snd_buf").is_some() && t.opt("snd_buf_autotune").is_none() {
        c.snd_buf_autotune = false;
    }
    c.validate().map_err(|m| t.err(m))?;
    Ok(c)
}

/// Every field of the resolved configuration, under the input format's
/// keys (so the JSON loads back to the same configuration), with the
/// profile it started from.
pub(crate) fn tcp_json(c: &TcpConfig) -> Value {
    TCP.write(c)
}

#[cfg(test)]
mod tests {
    use super::super::keys::listed_values;
    use super::*;
    use crate::Scenario;

    fn with_tcp(line: &str) -> Result<Scenario, String> {
        let text = format!(
            "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n[flows.tcp]\n{line}\n"
        );
        Scenario::from_toml_str(&text, "t.toml", &[]).map_err(|e| e.to_string())
    }

    /// Every value a type column lists is accepted, and the resolved
    /// scenario records it in the same spelling (`ecn` and
    /// `initial_ssthresh` record the number).
    #[test]
    fn every_listed_value_reads_and_is_recorded() {
        let mut checked = 0;
        for k in TCP.keys {
            for v in listed_values(k.ty) {
                let s = with_tcp(&format!("{} = {v}", k.name)).unwrap_or_else(|e| panic!("{} = {v}: {e}", k.name));
                let recorded = s.to_json()["flows"][0]["tcp"][k.name].to_string();
                if !matches!((k.name, v), ("ecn", _) | ("initial_ssthresh", "\"infinite\"")) {
                    assert_eq!(recorded, v, "{}", k.name);
                }
                checked += 1;
            }
        }
        // profile 9, recovery 5, the five ns-3 switches 2 each, cc 7,
        // shrink_policy 2, ecn 6, "infinite" 1, "none" 3, push_ack 3,
        // rtt_samples 2.
        assert_eq!(checked, 9 + 5 + 10 + 7 + 2 + 6 + 1 + 3 + 3 + 2);
    }

    #[test]
    fn cc_is_read_once_into_its_algorithm() {
        let s = with_tcp("cc = \"westwood+\"").unwrap();
        assert_eq!(s.flows[0].tcp.cc, CcAlgorithm::Westwood);
        assert_eq!(s.to_json()["flows"][0]["tcp"]["cc"], "westwood");
        let e = with_tcp("cc = \"hybla\"").unwrap_err();
        assert!(e.starts_with("t.toml:15: flows[0].tcp.cc: unknown congestion control 'hybla' (known: reno, newreno,"), "{e}");
    }
}
