//! Per-flow bookkeeping of a run: the two applications, the metrics that
//! are not endpoint counters, the time series and the segment log.

use airtcp_core::{Duration, Instant, SeqNum};
use airtcp_tcp::Probe;

use crate::apps::{RecvApp, SendApp};
use crate::metrics::SocketTap;
use crate::stream_offset::unwrap_seq;
use crate::{FlowSeries, SegmentLog};

pub struct FlowState {
    pub client: u32,
    pub server: u32,
    pub start: Instant,
    pub send: SendApp,
    pub recv: RecvApp,
    /// The client saw `Connected`; the sending app may write.
    pub connected: bool,
    /// First payload byte's sequence number (client ISS + 1).
    pub data_base: SeqNum,
    /// One past the highest stream offset sent so far.
    pub high_sent: u64,
    /// When the last byte of a transfer was acknowledged.
    pub done_at: Option<Instant>,
    /// Transitions of the sender into Recovery / Loss.
    pub fast_recoveries: u64,
    pub loss_entries: u64,
    pub zero_windows: u64,
    /// When each end reached CLOSED (0 = client, 1 = server), and whether it aborted.
    pub closed: [Option<(Instant, bool)>; 2],
    pub series: FlowSeries,
    /// The segment log; its times are kept in `segment_ns` during the run
    /// and converted into `t_s` by [`FlowState::take_segments`].
    pub segments: SegmentLog,
    /// Send time of each logged segment (ns): a float division per data
    /// segment, waited on right away, was 2 % of a bulk run's wall time;
    /// converting the column once at the end gives the same seconds.
    segment_ns: Vec<u64>,
    /// The client socket's segments, both ways, through `airtcp-analyze`
    /// (`summary.json`'s `analysis`).
    pub tap: SocketTap,
}

impl FlowState {
    // Each argument is a separate part of the flow set up by the builder.
    #[allow(clippy::too_many_arguments)]
    pub fn new(client: u32, server: u32, start: Instant, send: SendApp, recv: RecvApp, client_iss: SeqNum, samples: usize, tap: SocketTap) -> Self {
        let mut series = FlowSeries::default();
        series.t_s.reserve(samples);
        series.cwnd.reserve(samples);
        series.ssthresh.reserve(samples);
        series.srtt_s.reserve(samples);
        series.rto_s.reserve(samples);
        series.snd_una.reserve(samples);
        series.snd_nxt.reserve(samples);
        series.bytes_delivered.reserve(samples);
        series.ca_state.reserve(samples);
        FlowState {
            client,
            server,
            start,
            send,
            recv,
            connected: false,
            data_base: client_iss + 1,
            high_sent: 0,
            done_at: None,
            fast_recoveries: 0,
            loss_entries: 0,
            zero_windows: 0,
            closed: [None, None],
            series,
            segments: SegmentLog::default(),
            segment_ns: Vec::new(),
            tap,
        }
    }

    /// The segment log with its times in seconds (`crate::secs` of each,
    /// as if converted when logged), leaving an empty one behind. The
    /// conversion reuses the nanosecond column's memory.
    pub fn take_segments(&mut self) -> SegmentLog {
        let mut log = std::mem::take(&mut self.segments);
        log.t_s = std::mem::take(&mut self.segment_ns).into_iter().map(crate::secs).collect();
        log
    }

    /// Log a data segment sent by the client.
    #[inline]
    pub fn on_data_sent(&mut self, now: Instant, seq: SeqNum, len: u32) {
        let off = unwrap_seq(seq, self.data_base, self.high_sent);
        let end = off + len as u64;
        let log = &mut self.segments;
        self.segment_ns.push(now.0);
        log.seq.push(off);
        log.len.push(len);
        log.retransmission.push(off < self.high_sent);
        if end > self.high_sent {
            self.high_sent = end;
        }
    }

    /// One time-series row from the sender's probe.
    #[inline]
    pub fn sample(&mut self, now: Instant, p: &Probe) {
        let s = &mut self.series;
        s.t_s.push(crate::secs(now.0));
        s.cwnd.push(p.cwnd);
        s.ssthresh.push(p.ssthresh);
        s.srtt_s.push(crate::secs(p.srtt.0));
        s.rto_s.push(crate::secs(p.rto.0));
        s.snd_una.push(p.bytes_acked);
        // SND.NXT relative to SND.UNA, whose offset `bytes_acked` is exact.
        let ahead = p.snd_nxt.0.wrapping_sub(p.snd_una.0) as u64;
        let ahead = if ahead > 1 << 31 { 0 } else { ahead };
        s.snd_nxt.push(p.bytes_acked + ahead);
        s.bytes_delivered.push(self.recv.delivered);
        s.ca_state.push(p.ca_state as u8);
    }

    pub fn response_time(&self) -> Option<Duration> {
        self.done_at.map(|t| t.saturating_since(self.start))
    }
}
