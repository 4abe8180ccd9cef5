//! The Mobile IP agents driven directly, no simulator (smoltcp style: template
//! packets, `recv`/`injected` helpers, exact expectations). One file per
//! agent, and `chain` wiring all of them to a real Wi-TCP endpoint.

mod chain;
mod correspondent;
mod foreign_agent;
mod home_agent;
mod mobile_node;
mod robust;

use airtcp_core::mobileip::{Ident, MipMsg, RegRequest, MIP_PORT};
use airtcp_core::{Instant, Packet, Segment, SeqNum, TcpFlags};

use super::mip_packet;
use crate::agent::{Agent, AgentLog, Hook, IfaceId, Injection, Verdict};

const WIRED: IfaceId = IfaceId(0);
const WLAN: IfaceId = IfaceId(1);
const CH: [u8; 4] = [10, 0, 0, 1];
const HA: [u8; 4] = [10, 0, 1, 1];
const MH: [u8; 4] = [10, 0, 1, 2];
const FA1: [u8; 4] = [10, 0, 2, 1];
const FA2: [u8; 4] = [10, 0, 3, 1];
const CH_PORT: u16 = 5000;
const MH_PORT: u16 = 80;

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

/// A Mobile IP datagram.
fn mip(src: [u8; 4], dst: [u8; 4], sport: u16, msg: MipMsg) -> Packet {
    mip_packet(src, dst, (sport, MIP_PORT), 1, msg)
}

/// The mobile's request for care-of address `coa`.
fn request(coa: [u8; 4], lifetime: u16, id: Ident) -> RegRequest {
    RegRequest { flags: 0, lifetime, home_addr: MH, home_agent: HA, coa, id }
}

/// Data segment `i` (1000 bytes) from the correspondent to the mobile.
fn data(i: u32) -> Packet {
    let seg = Segment {
        src_port: CH_PORT,
        dst_port: MH_PORT,
        seq: SeqNum(1001 + 1000 * i),
        ack: SeqNum(7001),
        flags: TcpFlags::ACK,
        window: 20_000,
        payload_len: 1000,
        ..Default::default()
    };
    Packet::tcp(CH, MH, 63, i as u16, seg)
}

/// The mobile's ACK of segments `[0, n)`.
fn ack(n: u32) -> Packet {
    let seg = Segment {
        src_port: MH_PORT,
        dst_port: CH_PORT,
        seq: SeqNum(7001),
        ack: SeqNum(1001 + 1000 * n),
        flags: TcpFlags::ACK,
        window: 30_000,
        ..Default::default()
    };
    Packet::tcp(MH, CH, 64, 0, seg)
}

fn recv(a: &mut impl Agent, t: Instant, iface: IfaceId, mut p: Packet) -> Verdict {
    a.on_packet(t, Hook::Ingress, iface, &mut p)
}

fn send(a: &mut impl Agent, t: Instant, iface: IfaceId, mut p: Packet) -> Verdict {
    a.on_packet(t, Hook::Egress, iface, &mut p)
}

fn injected(a: &mut impl Agent) -> Vec<Injection> {
    std::iter::from_fn(|| a.poll_injection()).collect()
}

fn logs(a: &mut impl Agent) -> Vec<AgentLog> {
    std::iter::from_fn(|| a.poll_log()).collect()
}

fn counter(a: &impl Agent, name: &str) -> u64 {
    a.counters().into_iter().find(|c| c.0 == name).unwrap_or_else(|| panic!("no counter {name}")).1
}

/// The Mobile IP message an injection carries.
fn msg_of(inj: &Injection) -> MipMsg {
    *inj.pkt.mip().expect("a Mobile IP message")
}

/// Run every timer due up to `t`, in order.
fn run_timers(a: &mut impl Agent, t: Instant) {
    while let Some(d) = a.poll_timeout().filter(|&d| d <= t) {
        a.handle_timeout(d);
    }
}
