//! The UDP applications of a run: each `[[udp_flows]]` entry is a sender
//! (`sender`) on one node and an iperf-style receiver (`receiver`) on
//! another. Datagrams travel the network as every other packet does
//! (`Network::send_from`), through every agent hook on the way, as
//! `UdpMsg::Probe`s carrying their sequence number and send time.
//!
//! Ports: sender `49152 + i`, receiver `5001 + i` (iperf's port), so the
//! receiver of a delivered datagram is found without a table.

pub mod receiver;
pub(crate) mod report;
pub mod sender;

use airtcp_core::{Duration, Instant, IpPayload, Ipv4Header, Packet, RngStream, Udp, UdpMsg};

use crate::engine::class;
use crate::events::Ev;
use crate::network::{Cx, Network};
use crate::scenario::Scenario;
use crate::SimError;

pub use receiver::UdpReceiver;
pub use sender::{Pattern, UdpSender};

pub(crate) const UDP_CLIENT_PORT_BASE: u16 = 49_152;
pub(crate) const UDP_SERVER_PORT_BASE: u16 = 5_001;
/// Initial IPv4 TTL (Linux default, net.ipv4.ip_default_ttl).
const TTL: u8 = 64;
/// A saturated sender whose radio refused datagrams (not associated yet,
/// queue full of other traffic) looks again after this long.
const SATURATED_RETRY: Duration = Duration::from_millis(1);

/// Time series of one UDP flow, one row per `sim.series_interval` from its start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UdpSeries {
    pub t_s: Vec<f64>,
    /// Datagrams sent so far.
    pub sent: Vec<u64>,
    /// Distinct datagrams received so far, and their payload bytes.
    pub received: Vec<u64>,
    pub bytes_received: Vec<u64>,
    /// Datagrams missing below the highest received (iperf's count).
    pub lost: Vec<u64>,
    /// RFC 3550 interarrival jitter at the sample time.
    pub jitter_s: Vec<f64>,
    /// One-way delay of the latest datagram received (0 before the first).
    pub delay_s: Vec<f64>,
}

pub(crate) struct UdpFlow {
    pub from: u32,
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    /// The sender's radio (a saturated sender is paced by its MAC queue).
    radio: Option<u32>,
    pub sender: UdpSender,
    pub receiver: UdpReceiver,
    pub sent: u64,
    pub sent_bytes: u64,
    /// The start event has run (a saturated sender refills from then on).
    started: bool,
    pub series: UdpSeries,
}

impl UdpFlow {
    pub fn sample(&mut self, t: u64) {
        let s = &mut self.series;
        let r = &self.receiver;
        s.t_s.push(crate::secs(t));
        s.sent.push(self.sent);
        s.received.push(r.received);
        s.bytes_received.push(r.bytes);
        s.lost.push(r.lost());
        s.jitter_s.push(r.jitter_ns / 1e9);
        s.delay_s.push(crate::secs(r.delay_last_ns));
    }
}

pub(crate) struct UdpFlows {
    pub flows: Vec<UdpFlow>,
    /// `(radio, flow)` of the saturated senders, sorted.
    saturated: Vec<(u32, u32)>,
}

impl UdpFlows {
    pub fn build(sc: &Scenario, seed: u64, net: &mut Network, q: &mut crate::engine::EventQueue<Ev>, samples: usize) -> Result<UdpFlows, SimError> {
        let mut flows = Vec::with_capacity(sc.udp_flows.len());
        let mut saturated = Vec::new();
        for (i, f) in sc.udp_flows.iter().enumerate() {
            let addr = |n: usize| {
                net.primary_addr(n).ok_or_else(|| SimError::Config(format!("udp_flows[{i}]: node \"{}\" has no interface", sc.nodes[n].name)))
            };
            let (src, dst) = (addr(f.from)?, addr(f.to)?);
            let sender = UdpSender::new(f, RngStream::component(seed, "udp", &f.name, "onoff"));
            let radio = net.nodes[f.from].ifaces.iter().map(|&j| net.ifaces[j as usize].radio).find(|&r| r != crate::network::node::NO_RADIO);
            if let Pattern::Saturated { .. } = sender.pattern {
                let r = radio.expect("validated: a saturated sender's node has a radio");
                saturated.push((r, i as u32));
                net.watch_releases(r);
            }
            let mut series = UdpSeries::default();
            for v in [&mut series.sent, &mut series.received, &mut series.bytes_received, &mut series.lost] {
                v.reserve(samples);
            }
            series.t_s.reserve(samples);
            series.jitter_s.reserve(samples);
            series.delay_s.reserve(samples);
            flows.push(UdpFlow {
                from: f.from as u32,
                src,
                dst,
                sport: UDP_CLIENT_PORT_BASE + i as u16,
                dport: UDP_SERVER_PORT_BASE + i as u16,
                radio,
                sender,
                receiver: UdpReceiver::default(),
                sent: 0,
                sent_bytes: 0,
                started: false,
                series,
            });
            q.push(Instant::ZERO + f.start, class::APP, Ev::Udp { flow: i as u32 });
        }
        saturated.sort_unstable();
        Ok(UdpFlows { flows, saturated })
    }

    /// The flow a datagram delivered to `node` belongs to, if it is one of ours.
    #[inline]
    pub fn deliver(&mut self, now: Instant, node: u32, pkt: &Packet) -> bool {
        let IpPayload::Udp(Udp { dst_port, msg: UdpMsg::Probe { len, seq, sent_ns }, .. }) = pkt.payload else { return false };
        let Some(f) = dst_port.checked_sub(UDP_SERVER_PORT_BASE).and_then(|i| self.flows.get_mut(i as usize)) else { return false };
        if f.dst != pkt.ip.dst || node == f.from {
            return false;
        }
        f.receiver.on_datagram(now, seq, sent_ns, len);
        true
    }

    /// The sender's event: send what is due, then ask to be woken for the next.
    #[inline(never)]
    pub fn on_event(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, flow: u32) {
        let f = &mut self.flows[flow as usize];
        f.started = true;
        while let Some(len) = f.sender.due(now) {
            send(f, cx, net, now, len);
        }
        if let Pattern::Saturated { .. } = f.sender.pattern {
            if !top_up(f, cx, net, now) && now + SATURATED_RETRY < f.sender.stop {
                cx.q.push(now + SATURATED_RETRY, class::APP, Ev::Udp { flow });
            }
            return;
        }
        if let Some(t) = f.sender.next_wake() {
            cx.q.push(t, class::APP, Ev::Udp { flow });
        }
    }

    /// Radio `radio`'s MAC released a frame: its saturated senders refill the queue.
    pub fn on_release(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, radio: u32) {
        let from = self.saturated.partition_point(|&(r, _)| r < radio);
        for k in from..self.saturated.len() {
            let (r, flow) = self.saturated[k];
            if r != radio {
                break;
            }
            let f = &mut self.flows[flow as usize];
            if f.started {
                top_up(f, cx, net, now);
            }
        }
    }
}

/// Fill a saturated sender's MAC queue to its backlog. False: the radio
/// took fewer than asked (it refused some).
fn top_up(f: &mut UdpFlow, cx: &mut Cx, net: &mut Network, now: Instant) -> bool {
    let Pattern::Saturated { backlog } = f.sender.pattern else { return true };
    if now >= f.sender.stop {
        return true;
    }
    let radio = f.radio.expect("a saturated sender has a radio");
    for _ in 0..backlog {
        let before = net.radio_queue_len(radio);
        if before >= backlog as usize {
            return true;
        }
        let len = f.sender.size;
        send(f, cx, net, now, len);
        if net.radio_queue_len(radio) <= before {
            return false;
        }
    }
    net.radio_queue_len(radio) >= backlog as usize
}

fn send(f: &mut UdpFlow, cx: &mut Cx, net: &mut Network, now: Instant, len: u32) {
    let seq = f.sent as u32;
    f.sent += 1;
    f.sent_bytes += len as u64;
    let ip = Ipv4Header { src: f.src, dst: f.dst, ttl: TTL, ip_id: net.next_ip_id(f.from as usize), ecn: Default::default() };
    let udp = Udp { src_port: f.sport, dst_port: f.dport, msg: UdpMsg::Probe { len, seq, sent_ns: now.0 } };
    net.send_from(cx, now, f.from as usize, Packet { ip, outer: None, payload: IpPayload::Udp(udp) });
}
