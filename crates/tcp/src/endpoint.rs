//! The sans-IO TCP endpoint. (API fixed; implementation in progress.)

use airtcp_core::{Duration, Instant, Segment, SeqNum};

use crate::cc::{CaState, TcpSock};
use crate::config::TcpConfig;
use crate::event::Event;
use crate::stats::TcpStats;

/// RFC 9293 connection states.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// A snapshot for time series (what tcpprobe / ns-3 traces report).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Probe {
    /// Congestion window in segments.
    pub cwnd: u32,
    /// Slow-start threshold in segments (TCP_INFINITE_SSTHRESH when unset).
    pub ssthresh: u32,
    pub srtt: Duration,
    pub rto: Duration,
    pub snd_una: SeqNum,
    pub snd_nxt: SeqNum,
    /// Peer's advertised window in bytes (after scaling).
    pub snd_wnd: u32,
    /// Packets in flight (Linux accounting).
    pub in_flight: u32,
    pub ca_state: CaState,
    /// Application bytes acknowledged by the peer (a 64-bit stream offset).
    pub bytes_acked: u64,
    /// Application bytes delivered in order to our application.
    pub bytes_delivered: u64,
}

pub struct Endpoint {
    _cfg: TcpConfig,
}

impl Endpoint {
    /// A closed endpoint. `iss` is the initial send sequence number (the driver
    /// draws it from the endpoint's RNG stream so runs are reproducible).
    pub fn new(cfg: TcpConfig, local_port: u16, remote_port: u16, iss: SeqNum) -> Result<Self, String> {
        let _ = (local_port, remote_port, iss);
        cfg.validate()?;
        Ok(Endpoint { _cfg: cfg })
    }
    /// Active open: queue a SYN.
    pub fn connect(&mut self, _now: Instant) {
        todo!()
    }
    /// Passive open.
    pub fn listen(&mut self) {
        todo!()
    }
    pub fn handle_segment(&mut self, _now: Instant, _seg: &Segment) {
        todo!()
    }
    /// Next segment to put on the wire, if any is allowed now.
    pub fn poll_transmit(&mut self, _now: Instant) -> Option<Segment> {
        todo!()
    }
    /// Earliest instant at which `handle_timeout` must be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        todo!()
    }
    pub fn handle_timeout(&mut self, _now: Instant) {
        todo!()
    }
    pub fn poll_event(&mut self) -> Option<Event> {
        todo!()
    }
    /// Queue up to `bytes` application bytes; returns how many the send buffer took.
    pub fn send(&mut self, _bytes: u64) -> u64 {
        todo!()
    }
    /// Free space in the send buffer.
    pub fn send_capacity(&self) -> u64 {
        todo!()
    }
    /// Close our side once queued data is sent (FIN).
    pub fn close(&mut self) {
        todo!()
    }
    /// Read up to `max` in-order bytes: `(stream offset, length)` of what was read.
    pub fn recv(&mut self, _max: u64) -> Option<(u64, u64)> {
        todo!()
    }
    pub fn recv_available(&self) -> u64 {
        todo!()
    }
    pub fn state(&self) -> State {
        todo!()
    }
    pub fn stats(&self) -> &TcpStats {
        todo!()
    }
    pub fn probe(&self) -> Probe {
        todo!()
    }
    pub fn sock(&self) -> &TcpSock {
        todo!()
    }
}
