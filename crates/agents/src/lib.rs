//! In-network agents: mechanisms that sit in a node's packet path.
//!
//! This crate knows packets (`airtcp-core`) and TCP endpoints (`airtcp-tcp`)
//! and nothing about the simulator: every agent is a sans-IO state machine
//! behind [`Agent`], tested by driving it directly, and the simulator and the
//! emulator are two drivers of the same code.
//!
//! Built in: seed 004's packet error generator ([`peg`]), the Snoop proxy
//! ([`snoop`]), the I-TCP split connection ([`itcp`]) and seed 001's Mobile
//! IP agents with route optimisation and Wi-TCP ([`mobileip`]).
//!
//! # Layer map
//!
//! Above `airtcp-core`, `airtcp-tcp` and `airtcp-coding`, below `sim` (and
//! so `emu`). Inside: [`agent`] (the hooks, verdicts and node events every
//! agent speaks) and [`config`]; then one module per mechanism: [`peg`], [`snoop`], [`itcp`],
//! [`mtcp`], [`mobileip`], [`sdn`] (datapath, controller and its apps),
//! [`more`] and [`tcpfender`].
//!
//! ```
//! use airtcp_agents::peg::Peg;
//! use airtcp_agents::{Agent, Hook, IfaceId, PegConfig, Verdict};
//! use airtcp_core::{Instant, Packet, RngStream, Segment};
//!
//! // A packet error generator that drops every outgoing data segment but
//! // lets pure ACKs through (`data_only`).
//! let cfg = PegConfig { send_drop_rate: 1.0, recv_drop_rate: 0.0, data_only: true, iface: None };
//! let mut peg = Peg::new(cfg, RngStream::new(7, "peg"));
//! let data = Segment { payload_len: 1000, ..Segment::default() };
//! let mut data = Packet::tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, 0, data);
//! let mut ack = Packet::tcp([10, 0, 0, 2], [10, 0, 0, 1], 64, 0, Segment::default());
//! assert_eq!(peg.on_packet(Instant::ZERO, Hook::Egress, IfaceId(0), &mut data), Verdict::Drop);
//! assert_eq!(peg.on_packet(Instant::ZERO, Hook::Egress, IfaceId(0), &mut ack), Verdict::Accept);
//! ```

#![deny(missing_docs)]

pub mod agent;
pub mod config;
pub mod itcp;
pub mod mobileip;
pub mod more;
pub mod mtcp;
pub mod peg;
pub mod sdn;
pub mod snoop;
pub mod tcpfender;

#[cfg(test)]
mod testwire;

use airtcp_core::{Instant, Packet, RngStream};

pub use agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, NodeEvent, Verdict};
pub use config::{ItcpConfig, PegConfig, SnoopConfig, SnoopTimer};

/// Any agent: the built-ins by value (static dispatch on the packet path) and
/// an escape hatch for agents defined elsewhere.
pub enum AnyAgent {
    /// Seed 004's packet error generator.
    Peg(peg::Peg),
    /// The Snoop proxy (seed 004).
    Snoop(snoop::Snoop),
    /// The I-TCP split-connection proxy.
    Itcp(itcp::Itcp),
    /// Mobile IP home agent (seed 001).
    HomeAgent(mobileip::HomeAgent),
    /// Mobile IP foreign agent, with Wi-TCP's signalling (seed 001).
    ForeignAgent(mobileip::ForeignAgent),
    /// Mobile IP mobile node (seed 001).
    MobileNode(mobileip::MobileNode),
    /// A correspondent node that learns bindings (route optimisation, seed 001).
    Correspondent(mobileip::Correspondent),
    /// M-TCP's supervisor host.
    Mtcp(mtcp::Mtcp),
    /// An agent defined outside this crate, called through a vtable.
    Custom(Box<dyn Agent>),
}

/// An agent as a scenario declares it.
#[derive(Clone, Debug)]
pub enum AgentSpec {
    /// Build a [`peg::Peg`].
    Peg(PegConfig),
    /// Build a [`snoop::Snoop`].
    Snoop(SnoopConfig),
    /// Build an [`itcp::Itcp`].
    Itcp(ItcpConfig),
    /// Build a [`mobileip::HomeAgent`].
    HomeAgent(mobileip::HomeAgentConfig),
    /// Build a [`mobileip::ForeignAgent`].
    ForeignAgent(mobileip::ForeignAgentConfig),
    /// Build a [`mobileip::MobileNode`].
    MobileNode(mobileip::MobileNodeConfig),
    /// Build a [`mobileip::Correspondent`].
    Correspondent(mobileip::CorrespondentConfig),
    /// Build an [`mtcp::Mtcp`].
    Mtcp(mtcp::MtcpConfig),
}

impl AnyAgent {
    /// Build a declared agent. `rng` is the agent's own stream (derived by the
    /// driver from the master seed and the agent's name).
    pub fn build(spec: &AgentSpec, rng: RngStream) -> AnyAgent {
        match spec {
            AgentSpec::Peg(c) => AnyAgent::Peg(peg::Peg::new(c.clone(), rng)),
            AgentSpec::Snoop(c) => AnyAgent::Snoop(snoop::Snoop::new(c.clone())),
            AgentSpec::Itcp(c) => AnyAgent::Itcp(itcp::Itcp::new(c.clone(), rng)),
            AgentSpec::HomeAgent(c) => AnyAgent::HomeAgent(mobileip::HomeAgent::new(c.clone())),
            AgentSpec::ForeignAgent(c) => AnyAgent::ForeignAgent(mobileip::ForeignAgent::new(c.clone())),
            AgentSpec::MobileNode(c) => AnyAgent::MobileNode(mobileip::MobileNode::new(c.clone())),
            AgentSpec::Correspondent(c) => AnyAgent::Correspondent(mobileip::Correspondent::new(c.clone())),
            AgentSpec::Mtcp(c) => AnyAgent::Mtcp(mtcp::Mtcp::new(c.clone())),
        }
    }

    fn inner(&self) -> &dyn Agent {
        match self {
            AnyAgent::Peg(a) => a,
            AnyAgent::Snoop(a) => a,
            AnyAgent::Itcp(a) => a,
            AnyAgent::HomeAgent(a) => a,
            AnyAgent::ForeignAgent(a) => a,
            AnyAgent::MobileNode(a) => a,
            AnyAgent::Correspondent(a) => a,
            AnyAgent::Mtcp(a) => a,
            AnyAgent::Custom(a) => a.as_ref(),
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Agent {
        match self {
            AnyAgent::Peg(a) => a,
            AnyAgent::Snoop(a) => a,
            AnyAgent::Itcp(a) => a,
            AnyAgent::HomeAgent(a) => a,
            AnyAgent::ForeignAgent(a) => a,
            AnyAgent::MobileNode(a) => a,
            AnyAgent::Correspondent(a) => a,
            AnyAgent::Mtcp(a) => a,
            AnyAgent::Custom(a) => a.as_mut(),
        }
    }
}

impl Agent for AnyAgent {
    fn kind(&self) -> &'static str {
        self.inner().kind()
    }
    fn hooks(&self) -> HookMask {
        self.inner().hooks()
    }
    #[inline]
    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        match self {
            AnyAgent::Peg(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::Snoop(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::Itcp(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::HomeAgent(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::ForeignAgent(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::MobileNode(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::Correspondent(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::Mtcp(a) => a.on_packet(now, hook, iface, pkt),
            AnyAgent::Custom(a) => a.on_packet(now, hook, iface, pkt),
        }
    }
    fn poll_injection(&mut self) -> Option<Injection> {
        self.inner_mut().poll_injection()
    }
    fn poll_timeout(&self) -> Option<Instant> {
        self.inner().poll_timeout()
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.inner_mut().handle_timeout(now)
    }
    fn on_node_event(&mut self, now: Instant, ev: NodeEvent) {
        self.inner_mut().on_node_event(now, ev)
    }
    fn poll_log(&mut self) -> Option<AgentLog> {
        self.inner_mut().poll_log()
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.inner().counters()
    }
    fn gauge(&self) -> Option<u64> {
        self.inner().gauge()
    }
}
