//! The MORE / TCPFender role each mesh radio plays for the coded flow, built
//! from the scenario's forwarder plan, with one call per input and output
//! whatever the protocol.

use airtcp_agents::more::{MoreConfig, MoreDestination, MoreForwarder, MoreSource};
use airtcp_agents::tcpfender::{FenderConfig, FenderReceiver, FenderSender};
use airtcp_coding::Symbol;
use airtcp_core::{Coded, RngStream};

use crate::scenario::mesh_coding::{CodingSpec, Protocol};

/// Flow id in the coded header (one coded flow per scenario).
pub(super) const FLOW_ID: u16 = 1;

pub(super) enum Role {
    None,
    MoreSource(MoreSource),
    FenderSender(Box<FenderSender>),
    Forwarder(MoreForwarder),
    MoreDestination(MoreDestination),
    FenderReceiver(Box<FenderReceiver>),
}

impl Role {
    /// Every radio's role: the plan's source, forwarders and destination;
    /// radios off the plan (pruned or farther than the source) have none.
    /// `symbol_len` is 0 for coefficient-only roles, else the bytes a
    /// coded payload holds (at least the flow's largest datagram). Each
    /// role draws from the stream of its radio's node name (`names`).
    pub(super) fn build_all(c: &CodingSpec, names: &[&str], seed: u64, symbol_len: usize) -> Result<Vec<Role>, String> {
        let more = MoreConfig { beta: c.beta, symbol_len, max_batches: c.pipeline };
        let fender = FenderConfig { beta: c.beta, symbol_len, max_batches: c.pipeline, z_src: c.plan.z(c.src) };
        let rng = |r: usize| RngStream::component(seed, "radio", names[r], "coded");
        (0..names.len())
            .map(|r| {
                Ok(if r == c.src {
                    match c.protocol {
                        Protocol::More => {
                            let s = MoreSource::new(FLOW_ID, more, rng(r)).map_err(|e| e.to_string())?;
                            Role::MoreSource(match c.batch_timeout {
                                Some(t) => s.with_batch_timeout(t),
                                None => s,
                            })
                        }
                        Protocol::Fender => Role::FenderSender(Box::new(FenderSender::new(FLOW_ID, fender, rng(r)).map_err(|e| e.to_string())?.with_source(c.source))),
                    }
                } else if r == c.dst {
                    match c.protocol {
                        Protocol::More => Role::MoreDestination(MoreDestination::new(FLOW_ID, more).map_err(|e| e.to_string())?),
                        Protocol::Fender => Role::FenderReceiver(Box::new(FenderReceiver::new(FLOW_ID, fender).map_err(|e| e.to_string())?)),
                    }
                } else if c.plan.is_forwarder(r) {
                    Role::Forwarder(MoreForwarder::new(FLOW_ID, r, &c.plan, more, rng(r)).map_err(|e| e.to_string())?)
                } else {
                    Role::None
                })
            })
            .collect()
    }

    /// The next coded packet this radio broadcasts, if its credit allows.
    pub(super) fn poll_transmit(&mut self, out: &mut Symbol) -> Option<Coded> {
        match self {
            Role::MoreSource(s) => s.poll_transmit(out),
            Role::FenderSender(s) => s.poll_transmit(out),
            Role::Forwarder(f) => f.poll_transmit(out),
            _ => None,
        }
    }

    pub(super) fn kind(&self) -> &'static str {
        match self {
            Role::None => "none",
            Role::MoreSource(_) => "more_source",
            Role::FenderSender(_) => "tcpfender_sender",
            Role::Forwarder(_) => "forwarder",
            Role::MoreDestination(_) => "more_destination",
            Role::FenderReceiver(_) => "tcpfender_receiver",
        }
    }

    /// End-of-run counters, by name.
    pub(super) fn counters(&self) -> Vec<(&'static str, u64)> {
        match self {
            Role::None => Vec::new(),
            Role::MoreSource(s) => s.counters().to_vec(),
            Role::FenderSender(s) => s.counters().to_vec(),
            Role::Forwarder(f) => f.counters().to_vec(),
            Role::MoreDestination(d) => d.counters().to_vec(),
            Role::FenderReceiver(r) => r.counters().to_vec(),
        }
    }
}
