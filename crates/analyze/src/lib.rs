//! TCP analysis of packet captures and simulated runs.
//!
//! One definition of every metric (documented in `docs/analyze.md`), applied
//! the same way to a real capture (pcap, pcapng) and to a run of the
//! simulator. This crate depends on nothing of the simulator, so the
//! simulator can compute its own metrics through it.

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
