//! The ZWA module's TCP work as a plain state machine (seed 000 §2.2,
//! Algorithm 2), independent of OpenFlow: the app in [`super::zwa`] feeds
//! it packet-ins and sends what it returns as packet-outs.
//!
//! While a station is away, every segment for it is stored once (keyed by
//! its sequence number) and answered with a zero-window ACK "from the
//! station" (see [`zero_window_ack`]). The ACK number is the end of the
//! in-order data stored, counted from the lowest sequence seen: the
//! controller cannot know what the station received before T0 and assumes
//! all of it (which is exactly why the statistics module exists).
//!
//! On reassociation the stored segments are replayed to the station as a
//! well-behaved sender would: in sequence order, never beyond the
//! station's advertised window (nor a slow-start window of
//! `replay_initial_window` segments growing per ACKed byte, RFC 5681 §3.1),
//! the head retransmitted on three duplicate ACKs (RFC 5681 §3.2) or on a
//! retransmission timeout that doubles up to a bound (RFC 6298 §5.5) and
//! gives up after `replay_max_retries`. When the station has acknowledged
//! all of it the flow is done, and the station's own ACK (window open,
//! ACK number = the sender's SND.UNA) is what reopens the sender's window.

use std::collections::{BTreeMap, VecDeque};

use airtcp_core::{ConnKey, Duration, Instant, Packet, SeqNum, TcpFlags};

/// Limits of the ZWA module's store and replay; defaults in [`ZwaConfig::default`].
#[derive(Clone, Debug)]
pub struct ZwaConfig {
    /// First retransmission timeout of the replay (Linux TCP_RTO_MIN, 200 ms).
    pub replay_rto: Duration,
    /// Bound on the backed-off replay RTO (Linux TCP_RTO_MAX is 120 s; the
    /// replay is local, so far less).
    pub replay_max_rto: Duration,
    /// Timeouts of one head segment before the replay gives up.
    pub replay_max_retries: u32,
    /// Segments in flight before the station's first ACK (RFC 6928: 10).
    pub replay_initial_window: u32,
    /// Shift applied to the station's window field. The controller does not
    /// see the SYNs, so it is configured; 0 under-estimates a scaled
    /// window, which only slows the replay.
    pub station_wscale: u8,
    /// Most bytes stored per connection; beyond it segments are neither
    /// stored nor acknowledged (the sender retransmits them later).
    pub max_stored_bytes: u64,
}

impl Default for ZwaConfig {
    fn default() -> Self {
        ZwaConfig {
            replay_rto: Duration::from_millis(200),
            replay_max_rto: Duration::from_secs(4),
            replay_max_retries: 8,
            replay_initial_window: 10,
            station_wscale: 0,
            max_stored_bytes: 4 << 20,
        }
    }
}

/// The zero-window ACK for data segment `data`, acknowledging `ack`,
/// as the station would send it: addresses and ports swapped, SEQ = the
/// data's ACK (the station's SND.NXT as the sender knows it), window 0.
/// With timestamps, TSecr echoes the data's TSval (RFC 7323 §4.3) and TSval
/// repeats the data's TSecr: that is the newest station TSval the sender
/// has accepted (its TS.Recent), so the ACK passes the sender's PAWS check
/// (RFC 7323 §5.3) without the controller knowing the station's clock.
/// Checksums are computed when the packet is serialised (`airtcp_core::wire`).
pub fn zero_window_ack(data: &Packet, ack: SeqNum, ip_id: u16) -> Option<Packet> {
    let s = data.segment()?;
    let seg = airtcp_core::Segment {
        src_port: s.dst_port,
        dst_port: s.src_port,
        seq: s.ack,
        ack,
        flags: TcpFlags::ACK,
        window: 0,
        timestamps: s.timestamps.map(|(tsval, tsecr)| (tsecr, tsval)),
        ..Default::default()
    };
    Some(Packet::tcp(data.ip.dst, data.ip.src, 64, ip_id, seg))
}

/// What the ZWA module did during a run, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZwaCounters {
    /// Segments stored for away stations.
    pub stored: u64,
    /// Segments already stored that came again (sender retransmissions).
    pub duplicates: u64,
    /// Zero-window ACKs sent in the station's name.
    pub zw_acks: u64,
    /// Segments refused because the connection's store was full (`max_stored_bytes`).
    pub over_limit: u64,
    /// Stored segments sent to the station during replays (first transmissions).
    pub replayed: u64,
    /// Replayed segments sent again (three duplicate ACKs or a replay timeout).
    pub replay_retransmits: u64,
    /// Replay retransmission timeouts.
    pub replay_timeouts: u64,
    /// Replays the station fully acknowledged.
    pub replays_done: u64,
    /// Replays given up after `replay_max_retries` timeouts of one segment.
    pub replays_abandoned: u64,
    /// Station ACKs below the first stored byte: it misses data the
    /// controller never saw (the seed's Fig. 6(b) hole).
    pub station_behind: u64,
    /// Stored segments thrown away because ZWA was disabled for the handoff.
    pub discarded: u64,
}

struct Replay {
    una: i64,
    nxt: i64,
    wnd: u64,
    cwnd: u64,
    rto: Duration,
    rto_at: Option<Instant>,
    retries: u32,
    dupacks: u32,
    rtx_head: bool,
}

/// One connection towards an away station (key: sender -> station).
struct Flow {
    anchor: SeqNum,
    /// Stored segments by sequence offset from `anchor`.
    segs: BTreeMap<i64, Packet>,
    /// End of in-order data from the lowest stored offset.
    acked_end: i64,
    bytes: u64,
    /// The last segment seen: the template of the next ACK.
    last: Packet,
    replay: Option<Replay>,
}

impl Flow {
    fn lo(&self) -> i64 {
        self.segs.keys().next().copied().unwrap_or(0)
    }
    fn hi(&self) -> i64 {
        self.segs.iter().map(|(k, p)| k + len(p)).max().unwrap_or(0)
    }
    fn recompute_acked(&mut self) {
        let mut end = self.lo();
        for (&k, p) in &self.segs {
            if k > end {
                break;
            }
            end = end.max(k + len(p));
        }
        self.acked_end = end;
    }
    fn ack_num(&self) -> SeqNum {
        self.anchor + self.acked_end as u32
    }
}

/// The stored segment that holds offset `at`, or the first one after it.
fn segment_at(segs: &BTreeMap<i64, Packet>, at: i64) -> Option<(i64, Packet)> {
    if let Some((&k, p)) = segs.range(..=at).next_back() {
        if k + len(p) > at {
            return Some((k, *p));
        }
    }
    segs.range(at..).next().map(|(&k, p)| (k, *p))
}

fn len(p: &Packet) -> i64 {
    p.segment().map_or(0, |s| s.seq_len() as i64)
}

/// Seed 000's ZWA state machine (Algorithm 2), independent of OpenFlow
/// (see the module docs).
pub struct ZwaCore {
    cfg: ZwaConfig,
    flows: BTreeMap<ConnKey, Flow>,
    out: VecDeque<Packet>,
    done: VecDeque<ConnKey>,
    ip_id: u16,
    /// Run counters, read by the summary and by tests.
    pub counters: ZwaCounters,
}

impl ZwaCore {
    /// A core with nothing stored.
    pub fn new(cfg: ZwaConfig) -> ZwaCore {
        ZwaCore { cfg, flows: BTreeMap::new(), out: VecDeque::new(), done: VecDeque::new(), ip_id: 0, counters: ZwaCounters::default() }
    }

    fn next_id(&mut self) -> u16 {
        self.ip_id = self.ip_id.wrapping_add(1);
        self.ip_id
    }

    /// Store a segment for an away station without answering it (the
    /// statistics module has not decided yet). Returns whether it was new.
    pub fn store(&mut self, pkt: &Packet) -> bool {
        let (Some(key), Some(s)) = (pkt.conn_key(), pkt.segment()) else { return false };
        if s.flags.syn() || s.flags.rst() {
            return false;
        }
        let max = self.cfg.max_stored_bytes;
        let flow = self.flows.entry(key).or_insert_with(|| Flow {
            anchor: s.seq,
            segs: BTreeMap::new(),
            acked_end: 0,
            bytes: 0,
            last: *pkt,
            replay: None,
        });
        flow.last = *pkt;
        if s.seq_len() == 0 {
            return false;
        }
        let off = s.seq.diff(flow.anchor) as i64;
        if flow.segs.contains_key(&off) {
            self.counters.duplicates += 1;
            return false;
        }
        if flow.bytes + s.payload_len as u64 > max {
            self.counters.over_limit += 1;
            return false;
        }
        let extends_down = flow.segs.is_empty() || off < flow.lo();
        flow.segs.insert(off, *pkt);
        flow.bytes += s.payload_len as u64;
        if extends_down {
            flow.recompute_acked();
        } else {
            let mut end = flow.acked_end;
            for (&k, p) in flow.segs.range(..) {
                if k > end {
                    break;
                }
                end = end.max(k + len(p));
            }
            flow.acked_end = end;
        }
        self.counters.stored += 1;
        true
    }

    /// Algorithm 2: store `pkt` once and return the zero-window ACK that
    /// answers it (every segment is answered, duplicates and zero-window
    /// probes included, so the sender stays frozen). `None` for non-TCP
    /// packets, SYN/RST, and a bare segment of a connection with nothing stored.
    pub fn on_segment(&mut self, pkt: &Packet) -> Option<Packet> {
        self.store(pkt);
        self.ack_for(pkt.conn_key()?)
    }

    /// The zero-window ACK for a connection's current state.
    pub fn ack_for(&mut self, key: ConnKey) -> Option<Packet> {
        let f = self.flows.get(&key).filter(|f| !f.segs.is_empty())?;
        let (last, ack) = (f.last, f.ack_num());
        let id = self.next_id();
        let a = zero_window_ack(&last, ack, id)?;
        self.counters.zw_acks += 1;
        Some(a)
    }

    /// Connections towards `station` with data stored, in key order.
    pub fn flows_to(&self, station: [u8; 4]) -> Vec<ConnKey> {
        self.flows.keys().filter(|k| k.dst == station).copied().collect()
    }

    /// Forget everything stored for `station` (ZWA disabled for this handoff).
    pub fn discard(&mut self, station: [u8; 4]) {
        let keys = self.flows_to(station);
        for k in keys {
            if let Some(f) = self.flows.remove(&k) {
                self.counters.discarded += f.segs.len() as u64;
            }
        }
    }

    /// Bytes and segments stored for a connection.
    pub fn stored(&self, key: ConnKey) -> Option<(usize, u64)> {
        self.flows.get(&key).map(|f| (f.segs.len(), f.bytes))
    }

    /// The station is back: replay every connection towards it.
    pub fn start_replay(&mut self, now: Instant, station: [u8; 4]) {
        let (rto, iw) = (self.cfg.replay_rto, self.cfg.replay_initial_window as u64);
        for (_, f) in self.flows.iter_mut().filter(|(k, _)| k.dst == station) {
            if f.replay.is_some() || f.segs.is_empty() {
                continue;
            }
            let mss = f.segs.values().map(|p| len(p) as u64).max().unwrap_or(1);
            let lo = f.lo();
            f.replay = Some(Replay {
                una: lo,
                nxt: lo,
                wnd: u64::MAX,
                cwnd: iw * mss,
                rto,
                rto_at: None,
                retries: 0,
                dupacks: 0,
                rtx_head: false,
            });
        }
        self.pump(now);
    }

    /// The station left again mid-replay: stop sending, keep what is
    /// stored (the next replay starts over from the first stored byte;
    /// the station discards what it already has).
    pub fn stop_replay(&mut self, station: [u8; 4]) {
        for (_, f) in self.flows.iter_mut().filter(|(k, _)| k.dst == station) {
            f.replay = None;
        }
        self.out.retain(|p| p.ip.dst != station);
    }

    /// An ACK from the station (towards the sender) seen during the replay.
    pub fn on_station_ack(&mut self, now: Instant, pkt: &Packet) {
        let (Some(key), Some(s)) = (pkt.conn_key(), pkt.segment()) else { return };
        let key = key.reversed();
        let Some(f) = self.flows.get_mut(&key) else { return };
        let hi = f.hi();
        let (anchor, lo) = (f.anchor, f.lo());
        let Some(r) = f.replay.as_mut() else { return };
        if !s.flags.ack() {
            return;
        }
        let a = s.ack.diff(anchor) as i64;
        let wnd = (s.window as u64) << self.cfg.station_wscale;
        if a < lo {
            self.counters.station_behind += 1;
            return;
        }
        if a > r.una {
            r.cwnd += (a - r.una) as u64;
            r.una = a;
            r.nxt = r.nxt.max(a);
            r.retries = 0;
            r.dupacks = 0;
            r.rto = self.cfg.replay_rto;
            r.rto_at = if a < hi { Some(now + r.rto) } else { None };
        } else if a == r.una && s.payload_len == 0 && r.nxt > r.una {
            r.dupacks += 1;
            if r.dupacks == 3 {
                r.rtx_head = true;
            }
        }
        r.wnd = wnd;
        if r.una >= hi {
            self.flows.remove(&key);
            self.counters.replays_done += 1;
            self.done.push_back(key);
            return;
        }
        self.pump(now);
    }

    /// Queue what the windows allow, flows in key order.
    fn pump(&mut self, now: Instant) {
        for f in self.flows.values_mut() {
            let Some(r) = f.replay.as_mut() else { continue };
            if r.rtx_head {
                r.rtx_head = false;
                if let Some((k, p)) = segment_at(&f.segs, r.una) {
                    self.out.push_back(p);
                    self.counters.replay_retransmits += 1;
                    r.nxt = r.nxt.max(k + len(&p));
                    r.rto_at = Some(now + r.rto);
                }
            }
            let limit = r.una.saturating_add(r.wnd.min(r.cwnd).min(i64::MAX as u64) as i64);
            while let Some((k, p)) = f.segs.range(r.nxt..).next().map(|(&k, p)| (k, *p)) {
                let end = k + len(&p);
                // Within the window; or the first segment when nothing is in
                // flight and the window is open at all (a sender does not
                // stall on a window smaller than one segment).
                if end > limit && (r.nxt > r.una || limit <= r.una) {
                    break;
                }
                self.out.push_back(p);
                self.counters.replayed += 1;
                r.nxt = end;
                if r.rto_at.is_none() {
                    r.rto_at = Some(now + r.rto);
                }
            }
        }
    }

    /// The next packet for the station.
    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    /// A connection whose replay finished (or was abandoned).
    pub fn poll_done(&mut self) -> Option<ConnKey> {
        self.done.pop_front()
    }

    /// Whether connection `key` (sender → station) is being replayed now.
    pub fn replaying(&self, key: ConnKey) -> bool {
        self.flows.get(&key).is_some_and(|f| f.replay.is_some())
    }

    /// Earliest replay retransmission timeout among the connections.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.flows.values().filter_map(|f| f.replay.as_ref().and_then(|r| r.rto_at)).min()
    }

    /// Replay timeouts: go back to the first unacknowledged byte with one
    /// segment of window and a doubled timer (RFC 6298 §5.4–5.6).
    pub fn handle_timeout(&mut self, now: Instant) {
        let (max_rto, max_retries) = (self.cfg.replay_max_rto, self.cfg.replay_max_retries);
        let mut abandoned = Vec::new();
        for (k, f) in self.flows.iter_mut() {
            let Some(r) = f.replay.as_mut() else { continue };
            if r.rto_at.is_none_or_before(now) {
                continue;
            }
            self.counters.replay_timeouts += 1;
            r.retries += 1;
            if r.retries > max_retries {
                abandoned.push(*k);
                continue;
            }
            r.rto = (r.rto + r.rto).min(max_rto);
            r.rto_at = None;
            r.nxt = r.una;
            r.cwnd = segment_at(&f.segs, r.una).map_or(1, |(_, p)| len(&p) as u64);
            r.dupacks = 0;
            r.rtx_head = true;
        }
        for k in abandoned {
            self.flows.remove(&k);
            self.counters.replays_abandoned += 1;
            self.done.push_back(k);
        }
        self.pump(now);
    }
}

trait DueBy {
    /// Not due at `now` (unset, or later).
    fn is_none_or_before(&self, now: Instant) -> bool;
}

impl DueBy for Option<Instant> {
    fn is_none_or_before(&self, now: Instant) -> bool {
        self.is_none_or(|t| t > now)
    }
}
