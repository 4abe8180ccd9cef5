//! A run driven from outside, step by step: the same network, agents and
//! simulated hosts as [`crate::run`], with some nodes' stacks external (an
//! emulator's kernels). The driver decides when time advances (a real-time
//! clock) and injects the packets the external stacks send; what reaches
//! them comes back through [`External::deliver`].

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use airtcp_core::{Instant, Packet};

use super::{External, Sim};
use crate::network::Cx;
use crate::pcap_out::PcapOut;
use crate::realbytes::RealBytes;
use crate::scenario::Scenario;
use crate::{report, RunOutput, SimError};

/// One interface of a node as its external stack must configure it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfaceInfo {
    pub addr: [u8; 4],
    pub prefix_len: u8,
    /// The address at the other end of a point-to-point link (a gateway).
    pub peer: Option<[u8; 4]>,
}

/// A flow with one end simulated and the other on an external node: where
/// the external stack must listen or connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MixedFlow {
    pub flow: usize,
    /// The simulated end is the client (it sends; the external host must
    /// listen on `server_port`), else the server (listening there for the
    /// external host's connection).
    pub simulated_client: bool,
    pub server_addr: [u8; 4],
    /// The server's port: 1024 + the flow's index (the simulator's scheme).
    pub server_port: u16,
}

pub struct Driver<'s> {
    sim: Sim<'s>,
}

impl<'s> Driver<'s> {
    /// Build the run of `sc` with `external` nodes. Captures (one per link,
    /// as a run's) go to `pcap_dir`, with the real bytes `real` holds for
    /// packets that came from outside.
    pub fn new(
        sc: &'s Scenario,
        seed: Option<u64>,
        pcap_dir: Option<PathBuf>,
        external: &[usize],
        real: Rc<RefCell<RealBytes>>,
    ) -> Result<Driver<'s>, SimError> {
        let seed = seed.unwrap_or(sc.sim.seed);
        let pcap = match pcap_dir {
            Some(dir) => {
                let names: Vec<String> = sc
                    .links
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!("link{i}_{}-{}", sc.nodes[l.a].name, sc.nodes[l.b].name))
                    .collect();
                let mut p = PcapOut::create(&dir, &names, &[])?;
                p.real = Some(real);
                Some(p)
            }
            None => None,
        };
        let mut sim = Sim::new(sc, seed, pcap)?;
        for &n in external {
            if let Some(e) = sim.net.external.get_mut(n) {
                *e = true;
            }
        }
        sim.hosts.face_external(&sim.net.external, |n| sc.nodes[n].name.clone()).map_err(SimError::Config)?;
        Ok(Driver { sim })
    }

    /// The flows with exactly one external end.
    pub fn mixed_flows(&self) -> Vec<MixedFlow> {
        let h = &self.sim.hosts;
        let ext = &self.sim.net.external;
        h.flows
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let (c, s) = (&h.meta[f.client as usize], &h.meta[f.server as usize]);
                let (cx, sx) = (ext[c.node as usize], ext[s.node as usize]);
                (cx != sx).then(|| MixedFlow { flow: i, simulated_client: sx, server_addr: s.addr, server_port: super::hosts::SERVER_PORT_BASE + i as u16 })
            })
            .collect()
    }

    /// Due time of the next event, if any before the end of the run.
    pub fn next_due(&self) -> Option<Instant> {
        self.sim.q.peek_time().filter(|&t| t <= self.sim.end)
    }

    pub fn end(&self) -> Instant {
        self.sim.end
    }

    /// The interfaces of `node`, in order, with their addresses.
    pub fn ifaces(&self, node: usize) -> Vec<IfaceInfo> {
        let net = &self.sim.net;
        net.nodes[node]
            .ifaces
            .iter()
            .map(|&i| {
                let f = &net.ifaces[i as usize];
                let peer = (f.peer != u32::MAX && (f.peer as usize) < net.ifaces.len())
                    .then(|| net.ifaces[f.peer as usize].addr.to_be_bytes());
                IfaceInfo { addr: f.addr.to_be_bytes(), prefix_len: f.subnet.len, peer }
            })
            .collect()
    }

    /// Whether some interface of the network owns `addr`.
    pub fn owns(&self, addr: [u8; 4]) -> bool {
        self.sim.net.iface_of(u32::from_be_bytes(addr)).is_some()
    }

    /// `pkt`, sent by external node `node` at `now` (not before the last
    /// event run), enters the network as a packet that node generated.
    pub fn inject<X: External>(&mut self, now: Instant, node: usize, pkt: Packet, x: &mut X) {
        let mut cx = Cx { q: &mut self.sim.q, log: &mut self.sim.log };
        self.sim.net.send_from(&mut cx, now, node, pkt);
        self.sim.drain_local(now, x);
    }

    /// Run every event due at or before `limit`.
    pub fn run_until<X: External>(&mut self, limit: Instant, x: &mut X) {
        self.sim.run_until(limit, x);
    }

    /// End the run at `stop` (its scheduled end, or earlier when the driver
    /// stops it) and build the outputs of a run; `wall` is the loop's wall time.
    pub fn finish(mut self, stop: Instant, wall: f64) -> Result<RunOutput, SimError> {
        self.sim.end = stop.min(self.sim.end);
        self.sim.rec.take(self.sim.end.0 + 1, &mut self.sim.hosts, &self.sim.net);
        if let Some(p) = self.sim.net.pcap.take() {
            p.finish()?;
        }
        Ok(report::output(self.sim.finish(), wall))
    }
}
