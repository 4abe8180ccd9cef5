//! Foundation types shared by every airtcp crate.
//!
//! Nothing here knows about a simulator or an emulator: time is a plain integer
//! passed in by whoever drives a protocol core, sequence numbers wrap exactly as
//! on the wire, and randomness comes from named, seeded streams so that a run is
//! reproducible byte for byte.
//!
//! # Layer map
//!
//! The bottom of the workspace: `core` ← `tcp` / `coding` / `wifi` ←
//! `agents` ← `sim` ← `emu` and `py` (`agents` stands on `tcp` and
//! `coding`, not `wifi`); `analyze` stands on no airtcp crate, and `sim`
//! and `py` use it. Inside:
//!
//! - values: [`time`] (integer nanoseconds), [`seq`] (wrapping sequence
//!   numbers), [`rng`] (named streams), [`heap`];
//! - what travels: [`segment`] (a TCP segment), [`coded`] (a network-coded
//!   packet), [`mobileip`] (registration messages), [`packet`] (the IPv4
//!   packet and L2 frame carrying any of them);
//! - the edges to real bytes: [`wire`] (IPv4/TCP/UDP/ICMP encode and decode)
//!   and [`pcap`] (capture files Wireshark opens).
//!
//! ```
//! use airtcp_core::{Duration, Instant, SeqNum};
//!
//! // Time is integer nanoseconds: no rounding, whatever the machine.
//! let rto = Duration::from_millis(200);
//! assert_eq!((Instant::ZERO + rto).0, 200_000_000);
//!
//! // Sequence numbers compare across the 2^32 wrap, as RFC 9293 asks.
//! let before = SeqNum(u32::MAX - 10);
//! let after = before + 20;
//! assert_eq!(after, SeqNum(9));
//! assert!(before < after);
//! ```

#![deny(missing_docs)]

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
pub use rng::{component_key, RngStream};
pub use packet::{ConnKey, Ecn, Frame, Icmp, IpPayload, Ipv4Header, L2Header, L2Kind, MacAddr, Packet, Udp, UdpMsg};
pub use segment::{Segment, TcpFlags, WiTcp, MAX_SACK_BLOCKS, WITCP_EXID};
pub use seq::SeqNum;
pub use time::{Duration, Instant};
