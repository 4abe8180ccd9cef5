//! The output queues every Mobile IP agent shares: packets to inject, lines
//! for the event log, and the IPv4 identification counter of the packets it
//! originates.

use std::collections::VecDeque;

use airtcp_core::Packet;

use crate::agent::{AgentLog, InjectAt, Injection};

#[derive(Default)]
pub(crate) struct Out {
    injections: VecDeque<Injection>,
    logs: VecDeque<AgentLog>,
    ip_id: u16,
}

impl Out {
    /// The next IPv4 identification for a packet this agent originates.
    pub(crate) fn next_ip_id(&mut self) -> u16 {
        self.ip_id = self.ip_id.wrapping_add(1);
        self.ip_id
    }

    pub(crate) fn inject(&mut self, at: InjectAt, pkt: Packet) {
        self.injections.push_back(Injection { at, pkt });
    }

    pub(crate) fn log(&mut self, kind: &'static str, value: u64) {
        self.logs.push_back(AgentLog { kind, value });
    }

    pub(crate) fn pop_injection(&mut self) -> Option<Injection> {
        self.injections.pop_front()
    }

    pub(crate) fn pop_log(&mut self) -> Option<AgentLog> {
        self.logs.pop_front()
    }
}

/// An address as one number for log values.
pub(crate) fn addr_value(a: [u8; 4]) -> u64 {
    u32::from_be_bytes(a) as u64
}
