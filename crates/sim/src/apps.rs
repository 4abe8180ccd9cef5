//! Applications at the ends of a flow. They act only through the endpoint's
//! socket-like calls (`send`, `close`, `recv`), as a real program would.

use airtcp_core::Duration;
use crate::world::HostEp as Endpoint;

/// How often a rate-limited reader wakes up unless the flow sets `recv_interval`.
pub const READ_TICK: Duration = Duration::from_millis(10);

/// The sending application (on the TCP client).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendApp {
    /// Keeps the send buffer full until the run ends, writing whole chunks
    /// of `chunk` bytes (the flow's MSS) as ns-3's BulkSendApplication and
    /// iperf do: a partial write into a nearly full buffer would otherwise
    /// put a runt segment on the wire with `nodelay` (ns-3's default), and
    /// leave one waiting for Nagle without it.
    Bulk { chunk: u64 },
    /// Writes `total` bytes, then closes.
    Transfer { total: u64, queued: u64, closed: bool },
}

impl SendApp {
    /// Top up the send buffer (called whenever the endpoint may have freed space).
    #[inline]
    pub(crate) fn fill(&mut self, ep: &mut Endpoint) {
        match self {
            SendApp::Bulk { chunk } => {
                let room = ep.send_capacity() / *chunk * *chunk;
                if room > 0 {
                    ep.send(room);
                }
            }
            SendApp::Transfer { total, queued, closed } => {
                if *queued < *total {
                    *queued += ep.send(*total - *queued);
                }
                if *queued == *total && !*closed {
                    ep.close();
                    *closed = true;
                }
            }
        }
    }

    /// Whether `fill` would do anything now (hand the endpoint data, try
    /// to, or close it).
    #[inline]
    pub(crate) fn would_fill(&self, ep: &Endpoint) -> bool {
        match self {
            SendApp::Bulk { chunk } => ep.send_capacity() >= *chunk,
            // Even a full buffer counts: the refused write marks the writer
            // as waiting (`Endpoint::send`), which the buffer's growth reads.
            SendApp::Transfer { total, queued, closed } => *queued < *total || !*closed,
        }
    }
}

/// The receiving application (on the TCP server). It checks that the stream
/// arrives exactly once and in order: every read must start where the
/// previous one ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecvApp {
    /// Read rate in bits per second; None reads everything as soon as it is readable.
    pub rate_bps: Option<u64>,
    /// Time between reads of a rate-limited reader (each reads rate x interval).
    pub interval: Duration,
    /// Fractional budget carried between ticks, in bit-nanoseconds.
    carry: u128,
    /// Bytes read so far (= the next expected stream offset).
    pub delivered: u64,
    /// Reads that did not start at the expected offset.
    pub order_errors: u64,
}

impl RecvApp {
    pub fn new(rate_bps: Option<u64>, interval: Duration) -> Self {
        RecvApp { rate_bps, interval, ..Default::default() }
    }

    fn take(&mut self, ep: &mut Endpoint, mut budget: u64) {
        while budget > 0 {
            match ep.recv(budget) {
                Some((off, len)) if len > 0 => {
                    if off != self.delivered {
                        self.order_errors += 1;
                    }
                    self.delivered = off + len;
                    budget -= len.min(budget);
                }
                _ => break,
            }
        }
    }

    /// Read everything available (unlimited reader).
    #[inline]
    pub(crate) fn read_all(&mut self, ep: &mut Endpoint) {
        self.take(ep, u64::MAX);
    }

    /// One tick of a rate-limited reader: read up to rate x interval bytes.
    /// Budget not used in a tick is not saved up (the reader is a rate, not a bucket).
    pub(crate) fn tick(&mut self, ep: &mut Endpoint) {
        let Some(rate) = self.rate_bps else { return self.read_all(ep) };
        const BITNS_PER_BYTE: u128 = 8 * 1_000_000_000;
        self.carry += rate as u128 * self.interval.as_nanos() as u128;
        let budget = (self.carry / BITNS_PER_BYTE) as u64;
        self.carry %= BITNS_PER_BYTE;
        self.take(ep, budget);
    }
}
