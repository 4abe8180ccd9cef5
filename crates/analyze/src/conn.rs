//! The connection table: packets to connections, connections to their two
//! [`Flow`]s, handshake bookkeeping and the capture-point inference.

use rustc_hash::FxHashMap;

use crate::decode::{flags, Endpoint, TcpInfo};
use crate::flow::{At, Flow, Settings};
use crate::model::{ConnSummary, Dir, Sink};

/// A capture point is "near" one end when the other half of the handshake
/// takes less than this fraction of the whole SYN -> ACK time.
const NEAR_FRACTION: f64 = 0.1;

struct Conn {
    id: u64,
    a: Endpoint,
    b: Endpoint,
    first_ns: i64,
    last_ns: i64,
    last_packet: u64,
    syn_ns: Option<i64>,
    synack_ns: Option<i64>,
    ack_ns: Option<i64>,
    syn_isn: Option<u32>,
    wscale: [Option<u8>; 2],
    mss: Option<u32>,
    sack_ok: [bool; 2],
    ts_seen: bool,
    flows: [Flow; 2],
    closed: bool,
    /// Only the first direction's flow is fed (see [`Tap::forward_only`]).
    forward_only: bool,
}

impl Conn {
    fn new(id: u64, tcp: &TcpInfo, t_ns: i64, packet: u64, min_gap_ns: i64) -> Self {
        Conn {
            id,
            a: tcp.src,
            b: tcp.dst,
            first_ns: t_ns,
            last_ns: t_ns,
            last_packet: packet,
            syn_ns: None,
            synack_ns: None,
            ack_ns: None,
            syn_isn: None,
            wscale: [None; 2],
            mss: None,
            sack_ok: [false; 2],
            ts_seen: false,
            flows: [Flow::new(Dir::Fwd, min_gap_ns), Flow::new(Dir::Rev, min_gap_ns)],
            closed: false,
            forward_only: false,
        }
    }

    /// One packet of this connection, in time order.
    fn packet<S: Sink + ?Sized>(&mut self, t_ns: i64, packet: u64, tcp: &TcpInfo, settings: &Settings, sink: &mut S) {
        let conn = self;
        // A SYN/ACK seen first: its sender is the server, "a" the client.
        if conn.first_ns == t_ns && conn.flows[0].sum.packets == 0 && tcp.flags & (flags::SYN | flags::ACK) == flags::SYN | flags::ACK {
            conn.a = tcp.dst;
            conn.b = tcp.src;
        }
        let d = if tcp.src == conn.a { Dir::Fwd } else { Dir::Rev };
        conn.last_ns = t_ns;
        conn.last_packet = packet;
        conn.ts_seen |= tcp.ts.is_some();
        if tcp.flags & flags::SYN != 0 {
            conn.wscale[d.index()] = tcp.wscale;
            conn.sack_ok[d.index()] = tcp.sack_permitted;
            if let Some(m) = tcp.mss {
                conn.mss = Some(conn.mss.map_or(m as u32, |x| x.min(m as u32)));
            }
            if tcp.flags & flags::ACK == 0 {
                conn.syn_ns.get_or_insert(t_ns);
                conn.syn_isn = Some(tcp.seq);
            } else if conn.synack_ns.is_none() {
                conn.synack_ns = Some(t_ns);
                // Window scaling is in force only if both SYNs carried it (RFC 7323 §2.2).
                if let (Some(sa), Some(sb)) = (conn.wscale[0], conn.wscale[1]) {
                    // Flow 0's data is limited by the window "rev" advertises, scaled by rev's shift.
                    conn.flows[0].peer_wscale = sb.min(14);
                    conn.flows[1].peer_wscale = sa.min(14);
                }
            }
        } else if conn.synack_ns.is_some() && conn.ack_ns.is_none() && tcp.flags & flags::ACK != 0 && d == Dir::Fwd {
            conn.ack_ns = Some(t_ns);
        }
        let at = At { t_ns, t0_ns: settings.t0_ns, packet, conn: conn.id };
        let (send, ack) = match d {
            Dir::Fwd => (0, 1),
            Dir::Rev => (1, 0),
        };
        if conn.forward_only {
            // The first flow reads nothing of the second: feeding it alone
            // gives the same forward summary.
            let f = &mut conn.flows[0];
            f.advance_time(t_ns, settings, conn.id, sink);
            match d {
                Dir::Fwd => f.on_send(tcp, at, sink),
                Dir::Rev => f.on_ack(tcp, at, settings, sink),
            }
        } else {
            for f in conn.flows.iter_mut() {
                f.advance_time(t_ns, settings, conn.id, sink);
            }
            conn.flows[send].on_send(tcp, at, sink);
            conn.flows[ack].on_ack(tcp, at, settings, sink);
        }
        if tcp.flags & flags::RST != 0 || conn.flows[0].fin_acked && conn.flows[1].fin_acked {
            conn.closed = true;
        }
    }

    /// Close what is open and summarise both directions.
    fn finish<S: Sink + ?Sized>(mut self, settings: &Settings, sink: &mut S) -> ConnSummary {
        let c = &mut self;
        let at = At { t_ns: c.last_ns, t0_ns: settings.t0_ns, packet: c.last_packet, conn: c.id };
        let fed = if c.forward_only { 1 } else { 2 };
        for f in c.flows.iter_mut().take(fed) {
            f.finish(c.last_ns, settings, at, sink);
        }
        let syn_to_synack = c.syn_ns.zip(c.synack_ns).map(|(s, a)| a - s);
        let synack_to_ack = c.synack_ns.zip(c.ack_ns).map(|(s, a)| a - s);
        let (fwd_point, rev_point) = match (syn_to_synack, synack_to_ack) {
            (Some(x), Some(y)) if x + y > 0 => {
                let total = (x + y) as f64;
                if (y as f64) < NEAR_FRACTION * total {
                    ("sender", "receiver") // beside the client
                } else if (x as f64) < NEAR_FRACTION * total {
                    ("receiver", "sender") // beside the server
                } else {
                    ("middle", "middle")
                }
            }
            _ => ("unknown", "unknown"),
        };
        let span_s = (c.last_ns - c.first_ns) as f64 / 1e9;
        let [mut fwd, mut rev] = std::mem::replace(&mut c.flows, [Flow::new(Dir::Fwd, 0), Flow::new(Dir::Rev, 0)]);
        for (f, point) in [(&mut fwd, fwd_point), (&mut rev, rev_point)] {
            f.sum.capture_point = point.into();
            f.sum.goodput_bps = if span_s > 0.0 { f.sum.bytes_delivered as f64 * 8.0 / span_s } else { 0.0 };
        }
        ConnSummary {
            conn: c.id,
            a: c.a.to_string_lossless(),
            b: c.b.to_string_lossless(),
            first_ns: c.first_ns - settings.t0_ns,
            last_ns: c.last_ns - settings.t0_ns,
            handshake: c.syn_ns.is_some() && c.synack_ns.is_some(),
            syn_to_synack_ns: syn_to_synack,
            synack_to_ack_ns: synack_to_ack,
            mss: c.mss,
            sack_permitted: c.sack_ok[0] && c.sack_ok[1],
            timestamps: c.ts_seen,
            fwd: std::mem::take(&mut fwd.sum),
            rev: std::mem::take(&mut rev.sum),
        }
    }
}

/// One connection analysed as it happens, by whoever sees its packets (the
/// simulator at a TCP endpoint's socket): the same [`Flow`] code as a
/// capture, fed packet by packet, keeping only the totals. Series rows, RTT
/// samples and events are handed to `sink` (pass a [`crate::model::Discard`]
/// to keep none).
pub struct Tap {
    settings: Settings,
    conn: Option<Conn>,
    packets: u64,
    forward_only: bool,
}

impl Tap {
    /// `min_gap_ns`: shortest delivery gap reported as an interruption.
    /// Times are kept as given (origin 0).
    pub fn new(min_gap_ns: i64) -> Self {
        Tap {
            settings: Settings { interval_ns: 1_000_000_000, min_gap_ns, t0_ns: 0, external: Vec::new() },
            conn: None,
            packets: 0,
            forward_only: false,
        }
    }

    /// A tap that analyses only the direction of the connection's first
    /// packet (the client's, from its SYN): every packet of the other
    /// direction is read as that direction's ACK and nothing more. The
    /// summary's `fwd` is the same as [`Tap::new`]'s; its `rev` counts
    /// nothing (only its `capture_point` is set) and the connection is never
    /// marked closed by FINs. The
    /// simulator's socket analysis reports only `fwd`, and skips half the
    /// work per packet this way.
    pub fn forward_only(min_gap_ns: i64) -> Self {
        Tap { forward_only: true, ..Tap::new(min_gap_ns) }
    }

    /// One packet of the connection (either direction), in time order.
    #[inline]
    pub fn packet<S: Sink + ?Sized>(&mut self, t_ns: i64, tcp: &TcpInfo, sink: &mut S) {
        self.packets += 1;
        let n = self.packets;
        let min_gap = self.settings.min_gap_ns;
        let forward_only = self.forward_only;
        let conn = self.conn.get_or_insert_with(|| Conn { forward_only, ..Conn::new(1, tcp, t_ns, n, min_gap) });
        conn.packet(t_ns, n, tcp, &self.settings, sink);
    }

    /// The summary of both directions, open episodes closed at the last
    /// packet; `None` if no packet was seen.
    pub fn finish<S: Sink + ?Sized>(&mut self, sink: &mut S) -> Option<ConnSummary> {
        self.conn.take().map(|c| c.finish(&self.settings, sink))
    }
}

/// The analysis of one capture, fed packet by packet.
pub struct Analyzer<'s> {
    settings: Settings,
    conns: FxHashMap<(Endpoint, Endpoint), Conn>,
    next_id: u64,
    sink: &'s mut dyn Sink,
    pub tcp_packets: u64,
    pub connections: u64,
}

fn key(a: Endpoint, b: Endpoint) -> (Endpoint, Endpoint) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

impl<'s> Analyzer<'s> {
    pub fn new(settings: Settings, sink: &'s mut dyn Sink) -> Self {
        Analyzer {
            settings,
            conns: FxHashMap::default(),
            next_id: 0,
            sink,
            tcp_packets: 0,
            connections: 0,
        }
    }

    /// The time origin of the outputs.
    pub fn set_t0(&mut self, t0: i64) {
        self.settings.t0_ns = t0;
    }

    /// External events (absolute ns), sorted by start.
    pub fn set_external(&mut self, ev: Vec<(i64, i64, String)>) {
        self.settings.external = ev;
    }

    pub fn packet(&mut self, t_ns: i64, packet: u64, tcp: &TcpInfo) {
        self.tcp_packets += 1;
        let k = key(tcp.src, tcp.dst);
        let is_syn = tcp.flags & flags::SYN != 0 && tcp.flags & flags::ACK == 0;
        // A new SYN on a finished tuple (or one with another ISN after data)
        // starts a new connection.
        if let Some(c) = self.conns.get(&k) {
            let reused = is_syn && (c.closed || c.syn_isn.is_some_and(|i| i != tcp.seq));
            if reused {
                let c = self.conns.remove(&k).expect("present");
                self.finish_conn(c);
            }
        }
        let settings = &self.settings;
        let conn = self.conns.entry(k).or_insert_with(|| {
            self.next_id += 1;
            self.connections += 1;
            Conn::new(self.next_id, tcp, t_ns, packet, settings.min_gap_ns)
        });
        conn.packet(t_ns, packet, tcp, settings, self.sink);
    }

    fn finish_conn(&mut self, c: Conn) {
        let summary = c.finish(&self.settings, self.sink);
        self.sink.connection(&summary);
    }

    /// Connections closed by RST or by both FINs acknowledged are finished
    /// at once (their memory freed); call this now and then.
    pub fn reap_closed(&mut self) {
        let closed: Vec<_> = self.conns.iter().filter(|(_, c)| c.closed).map(|(k, _)| *k).collect();
        for k in closed {
            let c = self.conns.remove(&k).expect("present");
            self.finish_conn(c);
        }
    }

    /// The capture ended: finish every connection, in order of appearance.
    pub fn finish(mut self) {
        let mut all: Vec<Conn> = self.conns.drain().map(|(_, c)| c).collect();
        all.sort_by_key(|c| c.id);
        for c in all {
            self.finish_conn(c);
        }
    }
}
