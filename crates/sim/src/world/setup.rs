//! Building a run from a scenario: the network, the hosts' endpoints and
//! applications, and the first events.

use airtcp_core::{Duration, Instant, RngStream, SeqNum};
use airtcp_tcp::Endpoint;

use super::ep::HostEp;
use super::ns2host::Ns2Host;

use super::hosts::{EpMeta, Hosts, CLIENT_PORT_BASE, SERVER_PORT_BASE};
use super::record::Recorder;
use super::Sim;
use crate::apps::{RecvApp, SendApp};
use crate::engine::{class, EventQueue};
use crate::events::Ev;
use crate::flow::FlowState;
use crate::network::{Cx, Network};
use crate::pcap_out::PcapOut;
use crate::scenario::{AppSpec, Scenario, TraceModel, TraceSpec};
use crate::SimError;

impl<'s> Sim<'s> {
    pub(super) fn new(sc: &'s Scenario, seed: u64, pcap: Option<PcapOut>) -> Result<Sim<'s>, SimError> {
        let end = Instant::ZERO + sc.sim.duration;
        let mut q = EventQueue::with_capacity(4096);
        let handoffs = link_state_events(sc, &mut q, end);
        for (idx, r) in sc.route_changes.iter().enumerate() {
            q.push(Instant::ZERO + r.at, class::LINK_STATE, Ev::RouteChange { idx: idx as u32 });
        }
        let mut net = Network::from_scenario_with_pcap(sc, seed, pcap);
        if net.radio_medium().is_some() {
            // The radio medium's timer rides the queue's lane (`engine.rs`).
            q.use_lane();
        }
        let interval = sc.sim.series_interval;
        let samples = if interval == Duration::ZERO { 0 } else { (sc.sim.duration.0 / interval.0) as usize + 2 };
        let udp = crate::udp::UdpFlows::build(sc, seed, &mut net, &mut q, samples)?;
        let hosts = hosts(sc, seed, &net, &mut q, samples, end, udp)?;
        let rec = Recorder::new(sc, interval, net.agents.len());
        let mut sim = Sim { sc, seed, end, q, net, hosts, log: Vec::with_capacity(4096), rec, handoffs };
        let mut cx = Cx { q: &mut sim.q, log: &mut sim.log };
        sim.net.start(&mut cx, Instant::ZERO);
        for ep in 0..sim.hosts.eps.len() {
            sim.hosts.schedule_timer(&mut cx, ep, Instant::ZERO);
        }
        Ok(sim)
    }
}

/// Outage and handoff markers for the event log; returns the handoffs'
/// `(link, direction, index)` that the queued `Ev::Handoff`s point at.
fn link_state_events(sc: &Scenario, q: &mut EventQueue<Ev>, end: Instant) -> Vec<(u32, u8, u32)> {
    let mut handoffs = Vec::new();
    for (li, l) in sc.links.iter().enumerate() {
        for d in 0..2 {
            for &(s, e) in &l.loss[d].outages {
                q.push(Instant::ZERO + s, class::LINK_STATE, Ev::Outage { link: li as u32, dir: d as u8, start: true });
                q.push(Instant::ZERO + e, class::LINK_STATE, Ev::Outage { link: li as u32, dir: d as u8, start: false });
            }
            if let Some(TraceSpec { model: TraceModel::Drive(ds), .. }) = &l.trace[d] {
                for (idx, h) in ds.link.handoffs().iter().enumerate() {
                    if h.t <= end {
                        q.push(h.t, class::LINK_STATE, Ev::Handoff { entry: handoffs.len() as u32 });
                        handoffs.push((li as u32, d as u8, idx as u32));
                    }
                }
            }
        }
    }
    handoffs
}

/// Each flow's client and server endpoint on its nodes' primary addresses.
fn hosts(sc: &Scenario, seed: u64, net: &Network, q: &mut EventQueue<Ev>, samples: usize, end: Instant, udp: crate::udp::UdpFlows) -> Result<Hosts, SimError> {
    let mut eps = Vec::with_capacity(2 * sc.flows.len());
    let mut meta = Vec::with_capacity(2 * sc.flows.len());
    let mut flows = Vec::with_capacity(sc.flows.len());
    for (i, f) in sc.flows.iter().enumerate() {
        let cport = CLIENT_PORT_BASE + i as u16;
        let sport = SERVER_PORT_BASE + i as u16;
        // Streams named by the flow's name, not its index, so inserting a
        // flow leaves every other flow's ISS and BBR phase as they were.
        let stream = |purpose: &str| RngStream::component(seed, "flow", &f.name, purpose);
        let c_iss = SeqNum(stream("iss.client").next_u32());
        let s_iss = SeqNum(stream("iss.server").next_u32());
        let bad = |e: String| SimError::Config(format!("flows[{i}].tcp: {e}"));
        let (client, server) = match &f.ns2 {
            Some(c) => (
                HostEp::Ns2(Box::new(Ns2Host::sender(c.clone(), cport, sport, c_iss, s_iss).map_err(bad)?)),
                HostEp::Ns2(Box::new(Ns2Host::sink(c.clone(), sport, cport, c_iss, s_iss).map_err(bad)?)),
            ),
            None => {
                let mut client = Endpoint::new(f.tcp.clone(), cport, sport, c_iss).map_err(bad)?;
                let mut server = Endpoint::new(f.tcp.clone(), sport, cport, s_iss).map_err(bad)?;
                client.set_cc_rng(stream("cc.client"));
                server.set_cc_rng(stream("cc.server"));
                server.listen();
                (HostEp::Linux(client), HostEp::Linux(server))
            }
        };
        let addr = |n: usize| {
            net.primary_addr(n).ok_or_else(|| SimError::Config(format!("flows[{i}]: node \"{}\" has no interface", sc.nodes[n].name)))
        };
        let (ca, sa) = (addr(f.from)?, addr(f.to)?);
        let ci = eps.len() as u32;
        eps.push(client);
        meta.push(EpMeta { flow: i as u32, client: true, node: f.from as u32, addr: ca, peer: sa, timer: None });
        eps.push(server);
        meta.push(EpMeta { flow: i as u32, client: false, node: f.to as u32, addr: sa, peer: ca, timer: None });
        let send = match f.app {
            AppSpec::Bulk => SendApp::Bulk { chunk: u64::from(f.ns2.as_ref().map_or(f.tcp.mss, |c| c.packet_size).max(1)) },
            AppSpec::Transfer { bytes } => SendApp::Transfer { total: bytes, queued: 0, closed: false },
        };
        let start = Instant::ZERO + f.start;
        let recv = RecvApp::new(f.recv_rate_bps, f.recv_interval);
        flows.push(FlowState::new(ci, ci + 1, start, send, recv, c_iss, samples, crate::metrics::SocketTap::new(ca, sa)));
        q.push(start, class::APP, Ev::FlowStart { flow: i as u32 });
        if f.recv_rate_bps.is_some() {
            q.push(start + f.recv_interval, class::APP, Ev::Read { flow: i as u32 });
        }
    }
    Ok(Hosts { eps, meta, flows, udp, unmatched: 0, end })
}
