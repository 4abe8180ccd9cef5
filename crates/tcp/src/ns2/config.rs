//! The knobs of ns-2's one-way TCP agents, each defaulting to the value in
//! ns-2 2.35's `tcl/lib/ns-default.tcl` (the line is cited beside it).

use airtcp_core::Duration;

/// Which `Agent/TCP` class the sender is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2Variant {
    /// `Agent/TCP` (Tahoe: fast retransmit, then slow start from one packet).
    Tahoe,
    /// `Agent/TCP/Reno` (fast recovery with window inflation by `dupwnd_`).
    Reno,
    /// `Agent/TCP/Newreno` (stays in recovery on partial ACKs).
    NewReno,
}

impl Ns2Variant {
    /// The scenario name of the variant (`ns2-tahoe`, `ns2-reno`, `ns2-newreno`).
    pub fn name(self) -> &'static str {
        match self {
            Ns2Variant::Tahoe => "ns2-tahoe",
            Ns2Variant::Reno => "ns2-reno",
            Ns2Variant::NewReno => "ns2-newreno",
        }
    }
}

/// Which `Agent/TCPSink` class the receiver is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns2SinkKind {
    /// `Agent/TCPSink`: one ACK per packet received.
    TcpSink,
    /// `Agent/TCPSink/DelAck`: delays an in-order ACK up to `interval_`.
    DelAck,
}

impl Ns2SinkKind {
    /// The scenario name of the sink (`ns2-tcpsink`, `ns2-delack`).
    pub fn name(self) -> &'static str {
        match self {
            Ns2SinkKind::TcpSink => "ns2-tcpsink",
            Ns2SinkKind::DelAck => "ns2-delack",
        }
    }
}

/// Configuration of one ns-2 sender/sink pair. Windows are in packets of
/// `packet_size` bytes; sizes on the wire add `header_size`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ns2Config {
    /// Which sender class (Tahoe, Reno, NewReno).
    pub variant: Ns2Variant,
    /// Which sink class answers the sender.
    pub sink: Ns2SinkKind,
    /// `packetSize_ 1000` (ns-default.tcl: `Agent/TCP set packetSize_ 1000`).
    pub packet_size: u32,
    /// `tcpip_base_hdr_size_ 40`, added to every data packet because
    /// `useHeaders_ true`; the SYN and the sink's ACKs are this size
    /// (`Agent/TCPSink set packetSize_ 40`).
    pub header_size: u32,
    /// `window_ 20`: the receiver's window, a cap on the window in packets.
    pub window: u32,
    /// `windowInit_ 2` (with `windowInitOption_ 1`, a static initial window).
    pub window_init: u32,
    /// `maxburst_ 0`: packets one call of send_much may send (0 = no limit).
    pub maxburst: u32,
    /// `tcpTick_ 0.01`: the RTT clock's granularity.
    pub tcp_tick: Duration,
    /// `minrto_ 0.2`.
    pub min_rto: Duration,
    /// `maxrto_ 60`.
    pub max_rto: Duration,
    /// `rtxcur_init_ 3.0`: the RTO before the first RTT sample.
    pub rtxcur_init: Duration,
    /// `rttvar_init_ 12` (seconds; scaled into ticks by rtt_init).
    pub rttvar_init: Duration,
    /// `numdupacks_ 3`.
    pub numdupacks: u32,
    /// `bugFix_ true`: no new fast retransmit until the ACK passes the
    /// highest packet sent when the last one began (`recover_`).
    pub bug_fix: bool,
    /// `syn_ true` with `delay_growth_ true`: packet 0 is a 40-byte SYN and
    /// the window stays at one packet until it is acknowledged.
    pub syn: bool,
    /// `singledup_ 1`: limited transmit on the first two duplicate ACKs.
    pub singledup: bool,
    /// `Agent/TCP/Newreno set partial_window_deflation_ 1`.
    pub partial_window_deflation: bool,
    /// `Agent/TCP/Newreno set newreno_changes1_ 1`: only the first partial
    /// ACK of a recovery re-arms the retransmission timer.
    pub newreno_changes1: bool,
    /// `Agent/TCPSink/DelAck set interval_ 100ms`.
    pub delack_interval: Duration,
    /// Where between two ticks of `tcp_tick` the agent's clock started:
    /// ns-2 draws `boot_time_` uniformly in [0, tcpTick_) from its default
    /// RNG at every reset (tcp.cc, `TcpAgent::reset`). 0 unless set.
    pub boot_time: Duration,
    /// Not ns-2: obey Wi-TCP's EHO-ACK / EHC-ACK (seed 001 §5; the
    /// sender's side is `handover.rs`). Off: the signals are plain ACKs.
    pub witcp: bool,
    /// Not ns-2: obey the explicit handover notification of seed 001's
    /// \[8\] (`handover.rs`). Off: the signal is a plain ACK.
    pub ehn: bool,
}

impl Ns2Config {
    /// The ns-2 2.35 defaults of `ns-default.tcl` for this sender and sink,
    /// except the `Not ns-2` switches, which are off.
    pub fn new(variant: Ns2Variant, sink: Ns2SinkKind) -> Self {
        Ns2Config {
            variant,
            sink,
            packet_size: 1000,
            header_size: 40,
            window: 20,
            window_init: 2,
            maxburst: 0,
            tcp_tick: Duration::from_millis(10),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            rtxcur_init: Duration::from_secs(3),
            rttvar_init: Duration::from_secs(12),
            numdupacks: 3,
            bug_fix: true,
            syn: true,
            singledup: true,
            partial_window_deflation: true,
            newreno_changes1: true,
            delack_interval: Duration::from_millis(100),
            boot_time: Duration::ZERO,
            witcp: false,
            ehn: false,
        }
    }

    /// Reject values ns-2 would misbehave on, naming the knob.
    pub fn validate(&self) -> Result<(), String> {
        if self.packet_size == 0 || self.packet_size > 65_000 {
            return Err(format!("packet_size = {} must be in 1..=65000 bytes", self.packet_size));
        }
        if self.window == 0 {
            return Err("window must be at least 1 packet".into());
        }
        if self.window_init == 0 {
            return Err("window_init must be at least 1 packet".into());
        }
        if self.numdupacks == 0 {
            return Err("numdupacks must be at least 1".into());
        }
        if self.tcp_tick == Duration::ZERO {
            return Err("tcp_tick must be positive".into());
        }
        if self.boot_time >= self.tcp_tick {
            return Err("boot_time must be below tcp_tick".into());
        }
        if self.min_rto > self.max_rto {
            return Err("min_rto must not exceed max_rto".into());
        }
        if self.rtxcur_init == Duration::ZERO {
            return Err("rtxcur_init must be positive".into());
        }
        Ok(())
    }

    /// Bytes on the wire of data packet `seqno`.
    pub fn wire_bytes(&self, seqno: i64) -> u32 {
        if seqno == 0 && self.syn {
            self.header_size
        } else {
            self.packet_size + self.header_size
        }
    }
}
