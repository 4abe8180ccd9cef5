//! TCP analysis of packet captures and simulated runs.
//!
//! One definition of every metric (documented in `docs/analyze.md`), applied
//! the same way to a real capture (pcap, pcapng) and to a run of the
//! simulator. This crate depends on nothing of the simulator, so the
//! simulator can compute its own metrics through it.
//!
//! # Layer map
//!
//! Beside the protocol crates, on no other airtcp crate: `sim` computes its
//! runs' metrics through it and `py` exposes it (`airtcp analyze`,
//! `airtcp.metrics`). Inside, from the bottom: [`capture`] (pcap and pcapng
//! packets) and [`decode`] (a frame to its TCP fields); [`flow`] (one
//! direction's metrics, in one pass) and [`conn`] (the connection table);
//! [`model`] (the records and their sink) and [`output`] (CSV and
//! summary.json); [`analyze`], the whole analysis of a file or run
//! directory. The definitions a run and a capture share are pure functions
//! of delivery series and segments: [`interruptions`](mod@interruptions)
//! and [`metrics`].
//!
//! ```
//! use airtcp_analyze::interruptions;
//!
//! // Cumulative in-order bytes over time (ns), one segment every 100 ms:
//! // delivery stops at 0.2 s and resumes at 2.7 s, the one gap longer than
//! // the 200-ms threshold.
//! let ms = 1_000_000;
//! let deliveries = [(0, 1448), (100 * ms, 2896), (200 * ms, 4344), (2700 * ms, 5792), (2800 * ms, 7240)];
//! let gaps = interruptions(deliveries, 200 * ms, None).unwrap();
//! assert_eq!(gaps.len(), 1);
//! assert_eq!((gaps[0].start_ns, gaps[0].end_ns), (200 * ms, Some(2700 * ms)));
//! assert_eq!(gaps[0].duration_ns(), Some(2500 * ms));
//! ```

pub mod analyze;
pub mod capture;
pub mod conn;
pub mod decode;
pub mod flow;
pub mod interruptions;
pub mod metrics;
pub mod model;
pub mod output;

pub use analyze::{analyze_file, analyze_path, analyze_reader, read_events, AnalyzeError, CaptureSummary, Options};
pub use conn::Tap;
pub use interruptions::{interruption_around, interruptions, Interruption, OutOfOrder, Tracker};
