//! A tiny network for agent tests, no simulator: fixed host F —wired— base
//! station B —wireless— mobile host M, real `airtcp_tcp::Endpoint`s at F and
//! M, and an agent stack at B or at M run the way `agent.rs` specifies
//! (egress top-down, ingress bottom-up, injections continuing below/above
//! the injecting agent or routed). Links are FIFO with a rate and a delay.

use std::collections::{BTreeMap, VecDeque};

use airtcp_core::{Duration, Instant, Packet};
use airtcp_tcp::{Endpoint, Event, TcpConfig};

use crate::agent::{Agent, AgentLog, Hook, IfaceId, InjectAt, Verdict};
use crate::AnyAgent;

pub const F_ADDR: [u8; 4] = [10, 0, 0, 1];
pub const M_ADDR: [u8; 4] = [10, 0, 1, 2];
pub const WIRED: IfaceId = IfaceId(0);
pub const WLAN: IfaceId = IfaceId(1);

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Node {
    F,
    B,
    M,
}

/// An application on an endpoint: writes `to_send` bytes then closes;
/// reads everything, records the chunks, closes when the peer has.
pub struct Host {
    pub node: Node,
    pub port: u16,
    pub addr: [u8; 4],
    pub peer: [u8; 4],
    pub ep: Endpoint,
    pub to_send: u64,
    pub written: u64,
    pub close_when_done: bool,
    /// `(offset, len)` of every read, in order.
    pub reads: Vec<(u64, u64)>,
    pub connected: bool,
    pub closed: Option<bool>,
    /// Drop every packet this host emits (a mobile that stopped answering).
    pub mute: bool,
}

impl Host {
    pub fn new(node: Node, cfg: TcpConfig, local_port: u16, remote_port: u16, iss: u32) -> Host {
        let (addr, peer) = if node == Node::F { (F_ADDR, M_ADDR) } else { (M_ADDR, F_ADDR) };
        Host {
            node,
            port: local_port,
            addr,
            peer,
            ep: Endpoint::new(cfg, local_port, remote_port, airtcp_core::SeqNum(iss)).unwrap(),
            to_send: 0,
            written: 0,
            close_when_done: true,
            reads: Vec::new(),
            connected: false,
            closed: None,
            mute: false,
        }
    }

    /// The reads tile `[0, n)` in order, each byte once.
    pub fn read_in_order_exactly_once(&self, n: u64) -> bool {
        let mut next = 0;
        for &(off, len) in &self.reads {
            if off != next {
                return false;
            }
            next += len;
        }
        next == n
    }
}

#[derive(Clone, Copy)]
struct Link {
    delay: Duration,
    rate_bps: u64,
    /// When each direction's transmitter is free: [from B side, towards B].
    busy: [Instant; 2],
}

enum Work {
    Egress { node: Node, iface: IfaceId, pkt: Packet, from: usize },
    Ingress { node: Node, iface: IfaceId, pkt: Packet, below: usize },
    Route { node: Node, pkt: Packet },
}

pub struct Net {
    pub now: Instant,
    pub hosts: Vec<Host>,
    pub agents_at: Node,
    pub agents: Vec<AnyAgent>,
    pub logs: Vec<(Instant, AgentLog)>,
    /// Largest agent gauge seen after any step, per agent.
    pub gauge_max: Vec<u64>,
    wired: Link,
    wireless: Link,
    arrivals: BTreeMap<(Instant, u64), (Node, IfaceId, Packet)>,
    counter: u64,
    work: VecDeque<Work>,
    ip_id: u16,
}

impl Net {
    pub fn new(hosts: Vec<Host>, agents_at: Node, agents: Vec<AnyAgent>) -> Net {
        let n = agents.len();
        Net {
            now: Instant::ZERO,
            hosts,
            agents_at,
            agents,
            logs: Vec::new(),
            gauge_max: vec![0; n],
            wired: Link { delay: Duration::from_millis(20), rate_bps: 10_000_000, busy: [Instant::ZERO; 2] },
            wireless: Link { delay: Duration::from_millis(2), rate_bps: 2_000_000, busy: [Instant::ZERO; 2] },
            arrivals: BTreeMap::new(),
            counter: 0,
            work: VecDeque::new(),
            ip_id: 0,
        }
    }

    pub fn set_wireless(&mut self, delay: Duration, rate_bps: u64) {
        self.wireless.delay = delay;
        self.wireless.rate_bps = rate_bps;
    }

    /// The (first) host at `node`.
    pub fn host(&mut self, node: Node) -> &mut Host {
        self.hosts.iter_mut().find(|h| h.node == node).expect("host")
    }

    pub fn all_closed(&self) -> bool {
        self.hosts.iter().all(|h| h.closed.is_some())
    }

    fn agents_here(&self, node: Node) -> usize {
        if node == self.agents_at {
            self.agents.len()
        } else {
            0
        }
    }

    /// Run until `done` holds or nothing is left to do before `until`.
    pub fn run(&mut self, until: Instant, mut done: impl FnMut(&Net) -> bool) {
        for h in 0..self.hosts.len() {
            self.service(h);
        }
        self.drain();
        while !done(self) {
            let Some(t) = self.next_event() else { return };
            if t > until {
                return;
            }
            self.now = t;
            self.step();
        }
    }

    fn next_event(&self) -> Option<Instant> {
        let a = self.arrivals.keys().next().map(|k| k.0);
        let b = self.agents.iter().filter_map(|x| x.poll_timeout()).min();
        let c = self.hosts.iter().filter_map(|h| h.ep.poll_timeout()).min();
        [a, b, c].into_iter().flatten().min()
    }

    fn step(&mut self) {
        let now = self.now;
        while let Some(entry) = self.arrivals.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (node, iface, pkt) = entry.remove();
            let below = self.agents_here(node);
            self.work.push_back(Work::Ingress { node, iface, pkt, below });
            self.drain();
        }
        for k in 0..self.agents.len() {
            if self.agents[k].poll_timeout().is_some_and(|t| t <= now) {
                self.agents[k].handle_timeout(now);
                self.collect(k);
                self.drain();
            }
        }
        for h in 0..self.hosts.len() {
            if self.hosts[h].ep.poll_timeout().is_some_and(|t| t <= now) {
                self.hosts[h].ep.handle_timeout(now);
                self.service(h);
                self.drain();
            }
        }
        for (k, a) in self.agents.iter().enumerate() {
            self.gauge_max[k] = self.gauge_max[k].max(a.gauge().unwrap_or(0));
        }
    }

    /// Drive a host's endpoint as `sim::service` does.
    fn service(&mut self, h: usize) {
        let now = self.now;
        loop {
            let host = &mut self.hosts[h];
            let mut any = false;
            while let Some(e) = host.ep.poll_event() {
                any = true;
                match e {
                    Event::Connected => host.connected = true,
                    Event::PeerClosed => host.ep.close(),
                    Event::Closed { aborted } => host.closed = Some(aborted),
                    _ => {}
                }
            }
            while let Some(r) = host.ep.recv(u64::MAX) {
                host.reads.push(r);
            }
            if host.connected && host.written < host.to_send {
                host.written += host.ep.send(host.to_send - host.written);
                if host.written == host.to_send && host.close_when_done {
                    host.ep.close();
                }
            }
            let mut out = Vec::new();
            while let Some(seg) = host.ep.poll_transmit(now) {
                out.push(Packet::tcp(host.addr, host.peer, 64, self.ip_id, seg));
                self.ip_id = self.ip_id.wrapping_add(1);
            }
            let (node, mute) = (host.node, host.mute);
            for pkt in out {
                if !mute {
                    self.work.push_back(Work::Route { node, pkt });
                }
            }
            if !any {
                break;
            }
        }
    }

    fn collect(&mut self, k: usize) {
        let node = self.agents_at;
        while let Some(inj) = self.agents[k].poll_injection() {
            self.work.push_back(match inj.at {
                InjectAt::Egress(iface) => Work::Egress { node, iface, pkt: inj.pkt, from: k + 1 },
                InjectAt::Ingress(iface) => Work::Ingress { node, iface, pkt: inj.pkt, below: k },
                InjectAt::Route => Work::Route { node, pkt: inj.pkt },
            });
        }
        while let Some(l) = self.agents[k].poll_log() {
            self.logs.push((self.now, l));
        }
    }

    fn call(&mut self, k: usize, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if !self.agents[k].hooks().has(hook) {
            return Verdict::Accept;
        }
        let v = self.agents[k].on_packet(self.now, hook, iface, pkt);
        self.collect(k);
        v
    }

    fn drain(&mut self) {
        while let Some(w) = self.work.pop_front() {
            match w {
                Work::Route { node, pkt } => {
                    let towards_f = node == Node::F || (node == Node::B && pkt.ip.dst == F_ADDR);
                    let iface = if towards_f { WIRED } else { WLAN };
                    self.egress(node, iface, pkt, 0);
                }
                Work::Egress { node, iface, pkt, from } => self.egress(node, iface, pkt, from),
                Work::Ingress { node, iface, pkt, below } => self.ingress(node, iface, pkt, below),
            }
        }
    }

    fn egress(&mut self, node: Node, iface: IfaceId, mut pkt: Packet, from: usize) {
        for k in from..self.agents_here(node) {
            if self.call(k, Hook::Egress, iface, &mut pkt) != Verdict::Accept {
                return;
            }
        }
        let (link, side) = match (node, iface) {
            (Node::F, _) => (&mut self.wired, 1),
            (Node::B, WIRED) => (&mut self.wired, 0),
            (Node::B, _) => (&mut self.wireless, 0),
            (Node::M, _) => (&mut self.wireless, 1),
        };
        let tx = Duration::transmission(pkt.ip_len() as u64 * 8, link.rate_bps);
        let start = link.busy[side].max(self.now);
        link.busy[side] = start + tx;
        let at = start + tx + link.delay;
        let to = match (node, iface) {
            (Node::B, WIRED) => (Node::F, WIRED),
            (Node::B, _) => (Node::M, WLAN),
            (Node::F, _) => (Node::B, WIRED),
            (Node::M, _) => (Node::B, WLAN),
        };
        self.counter += 1;
        self.arrivals.insert((at, self.counter), (to.0, to.1, pkt));
    }

    fn ingress(&mut self, node: Node, iface: IfaceId, mut pkt: Packet, below: usize) {
        for k in (0..below).rev() {
            if self.call(k, Hook::Ingress, iface, &mut pkt) != Verdict::Accept {
                return;
            }
        }
        if node == Node::B {
            let out = if pkt.ip.dst == F_ADDR { WIRED } else { WLAN };
            for k in 0..self.agents_here(node) {
                if self.call(k, Hook::Forward, out, &mut pkt) != Verdict::Accept {
                    return;
                }
            }
            pkt.ip.ttl -= 1;
            self.egress(node, out, pkt, 0);
            return;
        }
        for k in 0..self.agents_here(node) {
            if self.call(k, Hook::LocalIn, iface, &mut pkt) != Verdict::Accept {
                return;
            }
        }
        let now = self.now;
        let Some(seg) = pkt.segment() else { return };
        let Some(h) = self.hosts.iter().position(|h| h.node == node && h.port == seg.dst_port) else { return };
        self.hosts[h].ep.handle_segment(now, seg);
        self.service(h);
    }

    pub fn counter(&self, k: usize, name: &str) -> u64 {
        self.agents[k].counters().into_iter().find(|c| c.0 == name).map(|c| c.1).expect("counter")
    }
}
