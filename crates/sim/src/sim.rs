//! The run loop: builds links, routes and endpoints from a scenario and
//! dispatches events by index into them until the end of the run.

use std::collections::VecDeque;

use airtcp_core::{Duration, Instant, Packet, RngStream, SeqNum};
use airtcp_tcp::{CaState, Endpoint, Event};

use crate::apps::{RecvApp, SendApp};
use crate::engine::{class, EventQueue};
use crate::flow::FlowState;
use crate::link::{LinkDir, LossModel, LossProcess, RateModel, Reorder, Verdict};
use crate::network::{addr_node, node_addr, Routes};
use crate::pcap_out::PcapOut;
use crate::scenario::{AppSpec, Scenario, TraceModel, TraceSpec, DIR_NAMES};
use crate::slab::Slab;
use crate::{report, RunOptions, RunOutput, SimError};

/// Port of flow `i`'s client and server (see `scenario::schema::MAX_FLOWS`).
const CLIENT_PORT_BASE: u16 = 49_152;
const SERVER_PORT_BASE: u16 = 1_024;
/// Initial IPv4 TTL (Linux default, net.ipv4.ip_default_ttl).
const TTL: u8 = 64;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Ev {
    /// The oldest frame in link direction `ld`'s arrival FIFO reaches the far node.
    LinkArrive { ld: u32 },
    /// Packet `pkt` (slab index) has fully arrived at `node` out of FIFO
    /// order (a reordered frame).
    Arrive { pkt: u32, node: u32 },
    /// Endpoint `ep` may have a timer due.
    Timer { ep: u32 },
    FlowStart { flow: u32 },
    /// Rate-limited reader tick.
    Read { flow: u32 },
    /// Log only: the loss process itself knows its windows.
    Outage { link: u32, dir: u8, start: bool },
    /// Log only: handoff `idx` of the drive trace on link `link`, direction
    /// `dir` (the rate model and loss windows already contain its outage).
    Handoff { link: u32, dir: u8, idx: u32 },
}

/// What goes into the event log, kept compact during the run and formatted after.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Raw {
    /// `aux`: stream offset of a fast retransmit's segment, else 0.
    Tcp { flow: u32, client: bool, ev: Event, aux: u64 },
    Outage { link: u32, dir: u8, start: bool },
    Handoff { link: u32, dir: u8, idx: u32 },
    TransferComplete { flow: u32, response: Duration },
}

#[derive(Clone, Copy)]
pub(crate) struct EpMeta {
    pub flow: u32,
    pub client: bool,
    pub node: u32,
    pub addr: [u8; 4],
    pub peer: [u8; 4],
    /// Earliest Timer event in the queue for this endpoint, if tracked.
    pub timer: Option<Instant>,
}

pub(crate) struct Sim<'s> {
    pub sc: &'s Scenario,
    pub seed: u64,
    pub end: Instant,
    q: EventQueue<Ev>,
    slab: Slab<Packet>,
    pub links: Vec<[LinkDir; 2]>,
    link_ends: Vec<(usize, usize)>,
    routes: Routes,
    ip_id: Vec<u16>,
    pub eps: Vec<Endpoint>,
    pub meta: Vec<EpMeta>,
    pub flows: Vec<FlowState>,
    pub log: Vec<(Instant, Raw)>,
    pcap: Option<PcapOut>,
    /// Packets dropped for lack of a route or of a socket.
    pub misrouted: u64,
    interval: Duration,
    /// Events executed per kind (`EVENT_KINDS` order).
    by_kind: [u64; 6],
    /// Per link direction (`2 * link + dir`): frames on the wire or in
    /// flight, in arrival order, as `(arrival, slab index)`. Only the head has
    /// an event in the queue, which keeps the heap small: a direction's
    /// arrivals are FIFO (a reordered frame bypasses this with its own event).
    fifos: Vec<VecDeque<(Instant, u32)>>,
    /// Next sampling instant of each flow, and their minimum. Sampling is not
    /// an event: a sample at `t` is taken once every event at `t` has run.
    sample_next: Vec<u64>,
    next_sample: u64,
}

/// Names of the event kinds counted in `summary.run.events_by_kind`.
pub(crate) const EVENT_KINDS: [&str; 6] = ["packet", "timer", "flow_start", "read", "outage", "handoff"];

impl<'s> Sim<'s> {
    fn new(sc: &'s Scenario, seed: u64, pcap: Option<PcapOut>) -> Result<Sim<'s>, SimError> {
        let end = Instant::ZERO + sc.sim.duration;
        let mut q = EventQueue::with_capacity(4096);
        let mut links = Vec::with_capacity(sc.links.len());
        for (li, l) in sc.links.iter().enumerate() {
            let mk = |d: usize| {
                let (rate, trace_loss, drops) = trace_models(l.trace[d].as_ref(), l.rate_bps[d]);
                let mut dir = LinkDir::new(rate, l.delay[d], l.queue, l.overhead_bytes);
                let spec = &l.loss[d];
                let rng = RngStream::new(seed, &format!("link.{}.{}.loss", l.name, DIR_NAMES[d]));
                let mut windows: Vec<(Instant, Instant)> =
                    spec.outages.iter().map(|&(s, e)| (Instant::ZERO + s, Instant::ZERO + e)).collect();
                windows.extend_from_slice(drops);
                let model = trace_loss.unwrap_or_else(|| spec.model.clone());
                dir.loss = LossProcess::new(model, merge_windows(windows), rng);
                if let Some(r) = &l.reorder[d] {
                    let rng = RngStream::new(seed, &format!("link.{}.{}.reorder", l.name, DIR_NAMES[d]));
                    dir.reorder = Some(Reorder::new(r.p, r.delay, rng));
                }
                dir
            };
            links.push([mk(0), mk(1)]);
            for d in 0..2 {
                for &(s, e) in &l.loss[d].outages {
                    q.push(Instant::ZERO + s, class::LINK_STATE, Ev::Outage { link: li as u32, dir: d as u8, start: true });
                    q.push(Instant::ZERO + e, class::LINK_STATE, Ev::Outage { link: li as u32, dir: d as u8, start: false });
                }
                if let Some(TraceSpec { model: TraceModel::Drive(ds), .. }) = &l.trace[d] {
                    for (idx, h) in ds.link.handoffs().iter().enumerate() {
                        if h.t <= end {
                            q.push(h.t, class::LINK_STATE, Ev::Handoff { link: li as u32, dir: d as u8, idx: idx as u32 });
                        }
                    }
                }
            }
        }
        let link_ends: Vec<(usize, usize)> = sc.links.iter().map(|l| (l.a, l.b)).collect();
        let routes = Routes::compute(sc.nodes.len(), &link_ends);
        let interval = sc.sim.series_interval;
        let samples = if interval == Duration::ZERO { 0 } else { (sc.sim.duration.0 / interval.0) as usize + 2 };
        let mut eps = Vec::with_capacity(2 * sc.flows.len());
        let mut meta = Vec::with_capacity(2 * sc.flows.len());
        let mut flows = Vec::with_capacity(sc.flows.len());
        for (i, f) in sc.flows.iter().enumerate() {
            let cport = CLIENT_PORT_BASE + i as u16;
            let sport = SERVER_PORT_BASE + i as u16;
            let c_iss = SeqNum(RngStream::new(seed, &format!("flow{i}.iss.client")).next_u32());
            let s_iss = SeqNum(RngStream::new(seed, &format!("flow{i}.iss.server")).next_u32());
            let bad = |e: String| SimError::Config(format!("flows[{i}].tcp: {e}"));
            let client = Endpoint::new(f.tcp.clone(), cport, sport, c_iss).map_err(bad)?;
            let mut server = Endpoint::new(f.tcp.clone(), sport, cport, s_iss).map_err(bad)?;
            server.listen();
            let (ca, sa) = (node_addr(f.from), node_addr(f.to));
            let ci = eps.len() as u32;
            eps.push(client);
            meta.push(EpMeta { flow: i as u32, client: true, node: f.from as u32, addr: ca, peer: sa, timer: None });
            eps.push(server);
            meta.push(EpMeta { flow: i as u32, client: false, node: f.to as u32, addr: sa, peer: ca, timer: None });
            let send = match f.app {
                AppSpec::Bulk => SendApp::Bulk { chunk: u64::from(f.tcp.mss.max(1)) },
                AppSpec::Transfer { bytes } => SendApp::Transfer { total: bytes, queued: 0, closed: false },
            };
            let start = Instant::ZERO + f.start;
            let recv = RecvApp::new(f.recv_rate_bps, f.recv_interval);
            flows.push(FlowState::new(ci, ci + 1, start, send, recv, c_iss, samples));
            q.push(start, class::APP, Ev::FlowStart { flow: i as u32 });
            if f.recv_rate_bps.is_some() {
                q.push(start + f.recv_interval, class::APP, Ev::Read { flow: i as u32 });
            }
        }
        let mut sim = Sim {
            sc,
            seed,
            end,
            q,
            slab: Slab::with_capacity(1024),
            links,
            link_ends,
            routes,
            ip_id: vec![0; sc.nodes.len()],
            eps,
            meta,
            flows,
            log: Vec::with_capacity(4096),
            pcap,
            misrouted: 0,
            interval,
            by_kind: [0; 6],
            fifos: (0..2 * sc.links.len()).map(|_| VecDeque::with_capacity(64)).collect(),
            sample_next: sc
                .flows
                .iter()
                .map(|f| if interval > Duration::ZERO { f.start.0 } else { u64::MAX })
                .collect(),
            next_sample: u64::MAX,
        };
        sim.next_sample = sim.sample_next.iter().copied().min().unwrap_or(u64::MAX);
        for ep in 0..sim.eps.len() {
            sim.schedule_timer(ep, Instant::ZERO);
        }
        Ok(sim)
    }

    fn run_loop(&mut self, progress: &mut Option<&mut dyn FnMut(f64)>) {
        let step = (self.end.0 / 100).max(1);
        let mut next_report = step;
        while let Some((now, ev)) = self.q.pop_until(self.end) {
            if now.0 >= next_report {
                if let Some(cb) = progress.as_mut() {
                    cb(now.0 as f64 / self.end.0 as f64);
                }
                next_report = (now.0 / step + 1) * step;
            }
            if self.next_sample < now.0 {
                self.take_samples(now.0);
            }
            let kind = match ev {
                Ev::LinkArrive { .. } | Ev::Arrive { .. } => 0,
                Ev::Timer { .. } => 1,
                Ev::FlowStart { .. } => 2,
                Ev::Read { .. } => 3,
                Ev::Outage { .. } => 4,
                Ev::Handoff { .. } => 5,
            };
            self.by_kind[kind] += 1;
            match ev {
                Ev::LinkArrive { ld } => {
                    let fifo = &mut self.fifos[ld as usize];
                    let (t, pkt) = fifo.pop_front().expect("arrival FIFO head");
                    debug_assert_eq!(t, now);
                    if let Some(&(next, _)) = fifo.front() {
                        self.q.push(next, class::PACKET, Ev::LinkArrive { ld });
                    }
                    let (a, b) = self.link_ends[ld as usize / 2];
                    let far = if ld % 2 == 0 { b } else { a };
                    self.arrive(now, pkt, far);
                }
                Ev::Arrive { pkt, node } => self.arrive(now, pkt, node as usize),
                Ev::Timer { ep } => self.timer(now, ep as usize),
                Ev::FlowStart { flow } => {
                    let ep = self.flows[flow as usize].client as usize;
                    self.eps[ep].connect(now);
                    self.service(ep, now);
                }
                Ev::Read { flow } => {
                    let f = &mut self.flows[flow as usize];
                    let ep = f.server as usize;
                    f.recv.tick(&mut self.eps[ep]);
                    let next = now + f.recv.interval;
                    self.service(ep, now);
                    self.q.push(next, class::APP, Ev::Read { flow });
                }
                Ev::Outage { link, dir, start } => self.log.push((now, Raw::Outage { link, dir, start })),
                Ev::Handoff { link, dir, idx } => self.log.push((now, Raw::Handoff { link, dir, idx })),
            }
        }
        self.take_samples(self.end.0 + 1);
        if let Some(cb) = progress.as_mut() {
            cb(1.0);
        }
    }

    /// Take every sample due before `before` (exclusive).
    fn take_samples(&mut self, before: u64) {
        while self.next_sample < before {
            let t = self.next_sample;
            let mut min = u64::MAX;
            for (i, f) in self.flows.iter_mut().enumerate() {
                if self.sample_next[i] == t {
                    let probe = self.eps[f.client as usize].probe();
                    f.sample(Instant(t), &probe);
                    self.sample_next[i] = t.saturating_add(self.interval.0);
                }
                min = min.min(self.sample_next[i]);
            }
            self.next_sample = min;
        }
    }

    fn arrive(&mut self, now: Instant, idx: u32, node: usize) {
        let pkt = self.slab.get_mut(idx);
        let dst = addr_node(pkt.dst);
        if dst != node {
            // Forward: routers decrement the TTL (RFC 791) and drop at zero.
            if pkt.ttl <= 1 {
                self.slab.remove(idx);
                self.misrouted += 1;
                return;
            }
            pkt.ttl -= 1;
            self.forward(now, node, idx);
            return;
        }
        let pkt = self.slab.remove(idx);
        let port = pkt.seg.dst_port;
        let ep = if port >= CLIENT_PORT_BASE {
            2 * (port - CLIENT_PORT_BASE) as usize
        } else {
            2 * (port.wrapping_sub(SERVER_PORT_BASE)) as usize + 1
        };
        if ep >= self.eps.len() || self.meta[ep].node as usize != node {
            self.misrouted += 1;
            return;
        }
        self.eps[ep].handle_segment(now, &pkt.seg);
        self.service(ep, now);
    }

    fn timer(&mut self, now: Instant, ep: usize) {
        if self.meta[ep].timer == Some(now) {
            self.meta[ep].timer = None;
        }
        match self.eps[ep].poll_timeout() {
            Some(d) if d <= now => {
                self.eps[ep].handle_timeout(now);
                self.service(ep, now);
            }
            _ => self.schedule_timer(ep, now),
        }
    }

    /// Lazy cancellation: one queued Timer per endpoint unless the deadline
    /// moved earlier; a Timer that fires early just re-arms for the real deadline.
    #[inline]
    fn schedule_timer(&mut self, ep: usize, now: Instant) {
        if let Some(d) = self.eps[ep].poll_timeout() {
            let d = if d < now { now } else { d };
            if d > self.end {
                return;
            }
            let m = &mut self.meta[ep];
            if m.timer.map_or(true, |p| d < p) {
                m.timer = Some(d);
                self.q.push(d, class::TIMER, Ev::Timer { ep: ep as u32 });
            }
        }
    }

    /// Let the endpoint and its application react until neither has anything
    /// more to say, then re-arm its timer.
    fn service(&mut self, ep: usize, now: Instant) {
        loop {
            let mut any = false;
            while let Some(e) = self.eps[ep].poll_event() {
                any = true;
                self.on_tcp_event(ep, e, now);
            }
            let m = self.meta[ep];
            let f = &mut self.flows[m.flow as usize];
            if m.client && f.connected {
                f.send.fill(&mut self.eps[ep]);
            }
            while let Some(seg) = self.eps[ep].poll_transmit(now) {
                if m.client && seg.payload_len > 0 {
                    self.flows[m.flow as usize].on_data_sent(now, seg.seq, seg.payload_len);
                }
                let id = self.ip_id[m.node as usize];
                self.ip_id[m.node as usize] = id.wrapping_add(1);
                let idx = self.slab.insert(Packet { src: m.addr, dst: m.peer, ttl: TTL, ip_id: id, seg });
                self.forward(now, m.node as usize, idx);
            }
            if !any {
                break;
            }
        }
        let m = self.meta[ep];
        if m.client {
            let f = &mut self.flows[m.flow as usize];
            if let (SendApp::Transfer { total, .. }, None) = (&f.send, f.done_at) {
                if self.eps[ep].stats().bytes_acked >= *total {
                    f.done_at = Some(now);
                    let response = now.saturating_since(f.start);
                    self.log.push((now, Raw::TransferComplete { flow: m.flow, response }));
                }
            }
        }
        self.schedule_timer(ep, now);
    }

    fn on_tcp_event(&mut self, ep: usize, e: Event, now: Instant) {
        let m = self.meta[ep];
        let f = &mut self.flows[m.flow as usize];
        let aux_f = (f.data_base, f.high_sent);
        match e {
            Event::Readable => {
                if !m.client && f.recv.rate_bps.is_none() {
                    f.recv.read_all(&mut self.eps[ep]);
                }
                return;
            }
            Event::Connected => {
                if m.client {
                    f.connected = true;
                }
            }
            Event::PeerClosed => {
                if !m.client {
                    // The server has nothing to send: close its side too.
                    self.eps[ep].close();
                }
            }
            Event::Closed { aborted } => f.closed[!m.client as usize] = Some((now, aborted)),
            Event::CaStateChanged { to, .. } if m.client => match to {
                CaState::Recovery => f.fast_recoveries += 1,
                CaState::Loss => f.loss_entries += 1,
                _ => {}
            },
            Event::ZeroWindow if m.client => f.zero_windows += 1,
            _ => {}
        }
        let aux = match e {
            Event::FastRetransmit { seq } => crate::flow::unwrap_seq(seq, aux_f.0, aux_f.1),
            _ => 0,
        };
        self.log.push((now, Raw::Tcp { flow: m.flow, client: m.client, ev: e, aux }));
    }

    /// Put packet `idx` on the first link of its route from `node`.
    #[inline]
    fn forward(&mut self, now: Instant, node: usize, idx: u32) {
        let pkt = self.slab.get(idx);
        let dst = addr_node(pkt.dst);
        let Some(hop) = self.routes.next_hop(node, dst) else {
            self.slab.remove(idx);
            self.misrouted += 1;
            return;
        };
        let ip_len = pkt.ip_len();
        let (li, d) = (hop.link as usize, hop.dir as usize);
        let verdict = self.links[li][d].enqueue(now, ip_len);
        if let Some(p) = self.pcap.as_mut() {
            if let Verdict::Delivered { start, .. } | Verdict::Lost { start, .. } = verdict {
                p.capture(li, d, start, now, self.slab.get(idx));
            }
        }
        match verdict {
            Verdict::Delivered { arrival, .. } => {
                let ld = 2 * li + d;
                let fifo = &mut self.fifos[ld];
                match fifo.back() {
                    Some(&(last, _)) if arrival < last => {
                        // Overtakes frames sent before it: its own event.
                        let (a, b) = self.link_ends[li];
                        let far = if d == 0 { b } else { a };
                        self.q.push(arrival, class::PACKET, Ev::Arrive { pkt: idx, node: far as u32 });
                    }
                    _ => {
                        if fifo.is_empty() {
                            self.q.push(arrival, class::PACKET, Ev::LinkArrive { ld: ld as u32 });
                        }
                        fifo.push_back((arrival, idx));
                    }
                }
            }
            _ => {
                self.slab.remove(idx);
            }
        }
    }
}

/// A direction's rate model, the loss model its trace imposes (a drive log's
/// loss curve), and the windows in which its handoffs drop frames.
fn trace_models(trace: Option<&TraceSpec>, bps: u64) -> (RateModel, Option<LossModel>, &[(Instant, Instant)]) {
    match trace.map(|t| &t.model) {
        None => (RateModel::Constant { bps }, None, &[]),
        Some(TraceModel::Mahimahi(m)) => {
            let mut m = m.clone();
            m.reset();
            (RateModel::Mahimahi(m), None, &[])
        }
        Some(TraceModel::Drive(d)) => {
            let loss = d.has_loss().then(|| LossModel::Schedule(d.link.loss_schedule()));
            (RateModel::Drive(Box::new(d.link.clone())), loss, &d.drop_windows)
        }
    }
}

/// Sorted, non-overlapping union of `[start, end)` windows.
fn merge_windows(mut w: Vec<(Instant, Instant)>) -> Vec<(Instant, Instant)> {
    w.sort_unstable();
    let mut out: Vec<(Instant, Instant)> = Vec::with_capacity(w.len());
    for (s, e) in w {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Run a scenario. The simulation loop itself is timed (`run_wall_s`);
/// building and reporting are not.
pub fn run(s: &Scenario, mut opts: RunOptions) -> Result<RunOutput, SimError> {
    let seed = opts.seed.unwrap_or(s.sim.seed);
    let pcap = match &opts.pcap_dir {
        Some(dir) => {
            let names: Vec<String> = s
                .links
                .iter()
                .enumerate()
                .map(|(i, l)| format!("link{i}_{}-{}", s.nodes[l.a].name, s.nodes[l.b].name))
                .collect();
            Some(PcapOut::create(dir, &names)?)
        }
        None => None,
    };
    let mut sim = Sim::new(s, seed, pcap)?;
    let t0 = std::time::Instant::now();
    sim.run_loop(&mut opts.progress);
    let wall = t0.elapsed().as_secs_f64();
    if let Some(p) = sim.pcap.take() {
        p.finish()?;
    }
    Ok(report::output(sim.take_report(), wall))
}

/// Everything the report needs, moved out of the simulator.
pub(crate) struct Finished<'s> {
    pub sc: &'s Scenario,
    pub seed: u64,
    pub end: Instant,
    pub events_executed: u64,
    pub links: Vec<[LinkDir; 2]>,
    pub eps: Vec<Endpoint>,
    pub flows: Vec<FlowState>,
    pub log: Vec<(Instant, Raw)>,
    pub misrouted: u64,
    pub by_kind: [u64; 6],
}

impl<'s> Sim<'s> {
    fn take_report(self) -> Finished<'s> {
        Finished {
            sc: self.sc,
            seed: self.seed,
            end: self.end,
            events_executed: self.q.executed(),
            links: self.links,
            eps: self.eps,
            flows: self.flows,
            log: self.log,
            misrouted: self.misrouted,
            by_kind: self.by_kind,
        }
    }
}
