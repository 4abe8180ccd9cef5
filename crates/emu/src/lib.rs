//! `airtcp emulate`: real Linux TCP stacks, each in its own network
//! namespace behind TUN devices, through the simulated network of a
//! scenario (links, WLAN, agents, simulated hosts), in real time. The
//! network is the simulator's, driven by the same engine
//! ([`airtcp_sim::Driver`]); only the clock and the hosts at the edge
//! differ. See docs/emulate.md.
//!
//! # Layer map
//!
//! The top of the Rust workspace beside `py`: above `airtcp-sim` (the
//! network, its agents and simulated hosts, driven through
//! [`airtcp_sim::Driver`]) and `airtcp-core` (the wire format of the real
//! hosts' datagrams). Inside: [`cli`] (the command line) and [`emulate`]
//! (one emulation: the real-time loop); at its edges to the kernel,
//! [`netns`] (a namespace per real host), [`tun`] (its devices), [`gso`]
//! (cutting a kernel's TSO super-packets) and [`coalesce`] (joining
//! segments into one for a write), [`exec`] (the commands run in the
//! namespaces) and [`signals`]; [`lateness`] measures how late events ran.
//!
//! ```
//! use airtcp_emu::cli::parse;
//! use airtcp_emu::emulate::Clock;
//!
//! // Two real Linux hosts through the scenario's network: iperf3 between them.
//! let args = ["emu-path.toml", "--out", "out/emu", "--real", "snd,rcv", "--serve", "rcv: iperf3 -s -1", "--exec", "snd: iperf3 -c rcv -t 8"];
//! let cfg = parse(&args.map(String::from)).unwrap();
//! assert_eq!(cfg.real, ["snd", "rcv"]);
//! assert_eq!(cfg.exec, [("snd".to_string(), "iperf3 -c rcv -t 8".to_string())]);
//! assert!(matches!(cfg.clock, Clock::Real) && cfg.mtu == 1500);
//! // A bad value is refused before any namespace is made.
//! let bad = ["emu-path.toml", "--out", "o", "--mtu", "100"];
//! assert_eq!(parse(&bad.map(String::from)).err().unwrap(), r#"--mtu "100": expected 576..65535"#);
//! ```

pub mod cli;
pub mod coalesce;
pub mod emulate;
pub mod exec;
pub mod gso;
pub mod lateness;
pub mod netns;
pub mod signals;
pub mod tun;
