//! Foundation types shared by every airtcp crate.
//!
//! Nothing here knows about a simulator or an emulator: time is a plain integer
//! passed in by whoever drives a protocol core, sequence numbers wrap exactly as
//! on the wire, and randomness comes from named, seeded streams so that a run is
//! reproducible byte for byte.

pub mod coded;
pub mod heap;
pub mod mobileip;
pub mod packet;
pub mod pcap;
pub mod rng;
pub mod segment;
pub mod seq;
pub mod time;
pub mod wire;

pub use coded::{CodeVector, Coded, CodedKind, CODED_HEADER_LEN, MAX_BATCH};
pub use rng::RngStream;
pub use packet::{ConnKey, Ecn, Frame, Icmp, IpPayload, Ipv4Header, L2Header, L2Kind, MacAddr, Packet, Udp, UdpMsg};
pub use segment::{Segment, TcpFlags, WiTcp, MAX_SACK_BLOCKS, WITCP_EXID};
pub use seq::SeqNum;
pub use time::{Duration, Instant};
