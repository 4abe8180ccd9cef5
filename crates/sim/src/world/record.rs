//! What a run records besides the event log: the flows' sampled time series,
//! the agents' sampled gauges, and the events executed per kind.

use airtcp_agents::Agent;
use airtcp_core::{Duration, Instant};

use super::hosts::Hosts;
use crate::events::EVENT_KINDS;
use crate::network::Network;
use crate::scenario::Scenario;

/// An agent's gauge sampled every series interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GaugeSeries {
    pub t_s: Vec<f64>,
    pub value: Vec<u64>,
}

pub(crate) struct Recorder {
    interval: Duration,
    /// Next sampling instant of each flow, and their minimum. Sampling is not
    /// an event: a sample at `t` is taken once every event at `t` has run.
    sample_next: Vec<u64>,
    next_sample: u64,
    /// Next agent sampling instant.
    agent_next: u64,
    pub agent_series: Vec<GaugeSeries>,
    pub by_kind: [u64; EVENT_KINDS.len()],
}

impl Recorder {
    pub fn new(sc: &Scenario, interval: Duration, n_agents: usize) -> Recorder {
        let on = interval > Duration::ZERO;
        // TCP flows, then UDP flows, each from its start.
        let starts = sc.flows.iter().map(|f| f.start).chain(sc.udp_flows.iter().map(|f| f.start));
        let sample_next: Vec<u64> = starts.map(|s| if on { s.0 } else { u64::MAX }).collect();
        let agent_next = if on && n_agents > 0 { 0 } else { u64::MAX };
        let next_sample = sample_next.iter().copied().min().unwrap_or(u64::MAX).min(agent_next);
        Recorder {
            interval,
            sample_next,
            next_sample,
            agent_next,
            agent_series: vec![GaugeSeries::default(); n_agents],
            by_kind: [0; EVENT_KINDS.len()],
        }
    }

    /// Whether a sample is due before `now`.
    #[inline]
    pub fn due(&self, now: u64) -> bool {
        self.next_sample < now
    }

    /// Take every sample due before `before` (exclusive).
    pub fn take(&mut self, before: u64, hosts: &mut Hosts, net: &Network) {
        while self.next_sample < before {
            let t = self.next_sample;
            let mut min = u64::MAX;
            for (i, f) in hosts.flows.iter_mut().enumerate() {
                if self.sample_next[i] == t {
                    let probe = hosts.eps[f.client as usize].probe();
                    f.sample(Instant(t), &probe);
                    self.sample_next[i] = t.saturating_add(self.interval.0);
                }
                min = min.min(self.sample_next[i]);
            }
            let tcp = hosts.flows.len();
            for (k, f) in hosts.udp.flows.iter_mut().enumerate() {
                if self.sample_next[tcp + k] == t {
                    f.sample(t);
                    self.sample_next[tcp + k] = t.saturating_add(self.interval.0);
                }
                min = min.min(self.sample_next[tcp + k]);
            }
            if self.agent_next == t {
                for (a, s) in self.agent_series.iter_mut().enumerate() {
                    if let Some(v) = net.agents[a].gauge() {
                        s.t_s.push(crate::secs(t));
                        s.value.push(v);
                    }
                }
                self.agent_next = t.saturating_add(self.interval.0);
            }
            self.next_sample = min.min(self.agent_next);
        }
    }
}
