//! The run loop: pops events and hands each to its owner — a channel or an
//! agent of the network, an endpoint or application of the hosts — then
//! passes what the network delivered to a node's own address to the hosts.

mod setup;
pub mod drive;
mod ep;
mod hosts;
mod ns2host;
#[cfg(test)]
mod ns2_fender_tests;
mod record;

use airtcp_core::Instant;

pub use record::GaugeSeries;

use crate::engine::EventQueue;
use crate::events::{Ev, Raw, MEDIUM_SLOT, RADIO_MEDIA_SLOT};
use crate::network::{Cx, Network};
use crate::pcap_out::PcapOut;
use crate::report::{self, AgentReport, Finished};
use crate::scenario::Scenario;
use crate::{RunOptions, RunOutput, SimError};

pub(crate) use ep::HostEp;
use hosts::Hosts;
use record::Recorder;

pub(crate) struct Sim<'s> {
    pub sc: &'s Scenario,
    pub seed: u64,
    pub end: Instant,
    q: EventQueue<Ev>,
    net: Network,
    hosts: Hosts,
    log: Vec<(Instant, Raw)>,
    rec: Recorder,
    /// Drive-trace handoff markers `(link, direction, index)` (`Ev::Handoff`).
    handoffs: Vec<(u32, u8, u32)>,
}

impl<'s> Sim<'s> {
    /// The handlers of rare events here (agent, WLAN and SDN timers, flow
    /// starts, reads, endpoint timers, route changes) are `#[inline(never)]`:
    /// inlined, they tripled the loop's code, spreading the hot path (the
    /// channel's deliveries) over more cache lines, and which of them the
    /// compiler inlined changed with unrelated edits, moving the wall time
    /// of a bulk run by ±3 % at equal instruction counts.
    fn run_loop(&mut self, progress: &mut Option<&mut dyn FnMut(f64)>) {
        let step = (self.end.0 / 100).max(1);
        let mut next_report = step;
        while self.q.peek_time().is_some_and(|t| t <= self.end) {
            let limit = match progress {
                Some(_) => Instant(next_report.min(self.end.0)),
                None => self.end,
            };
            self.run_until(limit, &mut NoExternal);
            if let Some(cb) = progress.as_mut() {
                if let Some(t) = self.q.peek_time() {
                    if t.0 >= next_report && t <= self.end {
                        cb(t.0 as f64 / self.end.0 as f64);
                        next_report = (t.0 / step + 1) * step;
                    }
                }
            }
        }
        self.rec.take(self.end.0 + 1, &mut self.hosts, &self.net);
        if let Some(cb) = progress.as_mut() {
            cb(1.0);
        }
    }

    /// Execute every event due at or before `limit` (and before the end of
    /// the run). `x` sees each event's due time before it runs and takes
    /// what the network delivers to external nodes; a simulation passes
    /// [`NoExternal`], whose checks compile away.
    #[inline]
    pub(crate) fn run_until<X: External>(&mut self, limit: Instant, x: &mut X) {
        if self.q.lane_on() {
            self.run_events::<X, true>(limit, x);
        } else {
            self.run_events::<X, false>(limit, x);
        }
    }

    /// [`Sim::run_until`]'s loop, popping through the event queue's lane
    /// if `LANE` (a run with a radio medium, whose timer rides the lane)
    /// or as before it (every other run keeps the plain loop's code).
    /// With two instantiations, the heap's pop, a link's deliveries and
    /// `drain_local` have two call sites each, and the compiler made them
    /// calls (+5 % instructions on the wired benchmark): they are
    /// `inline(always)`.
    #[inline]
    fn run_events<X: External, const LANE: bool>(&mut self, limit: Instant, x: &mut X) {
        let limit = limit.min(self.end);
        while let Some((now, ev)) = if LANE { self.q.pop_until_lane(limit) } else { self.q.pop_until(limit) } {
            if X::ACTIVE {
                x.event(now);
            }
            if self.rec.due(now.0) {
                self.rec.take(now.0, &mut self.hosts, &self.net);
            }
            self.rec.by_kind[ev.kind()] += 1;
            let mut cx = Cx { q: &mut self.q, log: &mut self.log };
            match ev {
                Ev::Medium { m } => {
                    if self.net.begin_medium(&mut cx, now, m) {
                        while let Some(d) = self.net.next_delivery(&mut cx, now, m) {
                            deliver(&mut self.hosts, &mut cx, &mut self.net, now, d, x);
                        }
                        self.net.end_medium(&mut cx, now, m);
                    }
                }
                Ev::Agent { agent } => self.net.on_agent_timeout(&mut cx, now, agent),
                Ev::Sdn {} => self.net.on_sdn(&mut cx, now),
                Ev::Timer { ep } => self.hosts.timer(&mut cx, &mut self.net, now, ep as usize),
                Ev::FlowStart { flow } => self.hosts.flow_start(&mut cx, &mut self.net, now, flow),
                Ev::Read { flow } => self.hosts.read_tick(&mut cx, &mut self.net, now, flow),
                Ev::Udp { flow } => self.hosts.udp.on_event(&mut cx, &mut self.net, now, flow),
                Ev::Outage { link, dir, start } => cx.log.push((now, Raw::Outage { link, dir, start })),
                Ev::Handoff { entry } => {
                    let (link, dir, idx) = self.handoffs[entry as usize];
                    cx.log.push((now, Raw::Handoff { link, dir, idx }));
                }
                Ev::RouteChange { idx } => {
                    // Validated against the scenario: every node, interface
                    // and (for a removal) route named exists or is reported.
                    let change = self.sc.route_changes[idx as usize].change;
                    if self.net.apply(&mut cx, now, change).is_ok() {
                        cx.log.push((now, Raw::RouteChange { idx }));
                    } else {
                        cx.log.push((now, Raw::RouteChange { idx: idx | 1 << 31 }));
                    }
                }
            }
            self.drain_local(now, x);
        }
    }

    /// Hand what the network delivered outside a channel event (through
    /// agents, tunnels, loopback) and the radios' handoff cues to the hosts.
    // Always: see `run_events`.
    #[inline(always)]
    fn drain_local<X: External>(&mut self, now: Instant, x: &mut X) {
        let mut cx = Cx { q: &mut self.q, log: &mut self.log };
        while let Some(d) = self.net.poll_local() {
            deliver(&mut self.hosts, &mut cx, &mut self.net, now, d, x);
        }
        while let Some((node, warning)) = self.net.poll_radio_notice() {
            self.hosts.radio_notice(&mut cx, &mut self.net, now, node, warning);
        }
        while let Some(radio) = self.net.poll_release() {
            self.hosts.udp.on_release(&mut cx, &mut self.net, now, radio);
        }
    }
}

/// A local delivery goes to the simulated hosts, or out when its node is external.
#[inline(always)]
fn deliver<X: External>(hosts: &mut Hosts, cx: &mut Cx, net: &mut Network, now: Instant, d: crate::network::LocalDelivery, x: &mut X) {
    if X::ACTIVE && net.external[d.node as usize] {
        let local = net.ifaces.get(d.iface as usize).map_or(0, |i| i.local);
        x.deliver(now, d.node, local, net.local_packet(&d));
        net.free_local(&d);
        return;
    }
    hosts.deliver(cx, net, now, d);
}

/// What drives a run from outside: an emulator's real hosts and clock.
pub trait External {
    /// False for a plain simulation: every hook compiles away.
    const ACTIVE: bool;
    /// Event due at `due` is about to run (an emulator measures its lateness).
    fn event(&mut self, due: Instant);
    /// `pkt` reached an address of external node `node` on its interface
    /// `iface` (position among the node's interfaces).
    fn deliver(&mut self, now: Instant, node: u32, iface: u32, pkt: &airtcp_core::Packet);
}

/// The simulation's [`External`]: nothing outside.
pub struct NoExternal;

impl External for NoExternal {
    const ACTIVE: bool = false;
    fn event(&mut self, _due: Instant) {}
    fn deliver(&mut self, _now: Instant, _node: u32, _iface: u32, _pkt: &airtcp_core::Packet) {}
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
            let radios: Vec<String> = match &s.wifi {
                Some(w) => w.radios.iter().enumerate().map(|(i, r)| format!("radio{i}_{}", s.nodes[r.node].name)).collect(),
                None => Vec::new(),
            };
            Some(PcapOut::create(dir, &names, &radios)?)
        }
        None => None,
    };
    let mut sim = Sim::new(s, seed, pcap)?;
    let t0 = std::time::Instant::now();
    sim.run_loop(&mut opts.progress);
    let wall = t0.elapsed().as_secs_f64();
    if let Some(p) = sim.net.pcap.take() {
        p.finish()?;
    }
    Ok(report::output(sim.finish(), wall))
}

/// Build a scenario's model — network, media, agents, hosts and their
/// first events — without running it: the checks only a built model makes
/// (an endpoint's TCP configuration, a UDP flow's route) fail here as they
/// would at the start of [`run`]. Cheaper than a run of any length, and
/// unlike a shortened run it keeps the scenario's own duration, so nothing
/// scheduled after a cut-off is mistaken for an error.
pub fn validate(s: &Scenario) -> Result<(), SimError> {
    Sim::new(s, s.sim.seed, None).map(drop)
}

impl<'s> Sim<'s> {
    fn finish(self) -> Finished<'s> {
        use airtcp_agents::Agent;
        let mut series = self.rec.agent_series;
        let agents = (0..self.net.agents.len())
            .map(|a| AgentReport {
                node: self.net.agent_at[a].0 as usize,
                kind: self.net.agents[a].kind(),
                counters: self.net.agents[a].counters(),
                drops: self.net.agent_drops[a],
                series: std::mem::take(&mut series[a]),
            })
            .collect();
        let (radios, radio_signal, radio_ap) = self.net.radio_report(self.end);
        let sdn = self.net.sdn.as_ref().map(|s| s.report(self.sc));
        // The radio media's wakes are counted apart from the links' (see
        // `events::RADIO_MEDIA`).
        let mut by_kind = self.rec.by_kind;
        let radio_wakes = self.net.radio_wakes();
        by_kind[MEDIUM_SLOT] -= radio_wakes;
        by_kind[RADIO_MEDIA_SLOT] = radio_wakes;
        let net_stats = self.net.stats.clone();
        let mesh = self.net.mesh_report(self.sc);
        Finished {
            sdn,
            mesh,
            radios,
            radio_signal,
            radio_ap,
            sc: self.sc,
            seed: self.seed,
            end: self.end,
            events_executed: self.q.executed(),
            links: self.net.into_links(),
            eps: self.hosts.eps,
            flows: self.hosts.flows,
            udp: self.hosts.udp.flows,
            log: self.log,
            net_stats,
            unmatched: self.hosts.unmatched,
            by_kind,
            agents,
        }
    }
}
