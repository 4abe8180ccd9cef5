//! Trace-driven links: Mahimahi delivery-opportunity traces and drive logs
//! (signal strength + serving cell) mapped to capacity, loss and handoff
//! outages. Parsers report bad input as `file:line: message`.
//!
//! Both link models expose `finish_time(start, frame_bytes) -> Instant`, the
//! same contract as `link::rate::RateModel`, so each can be one more variant
//! of that enum.

pub mod catalog;
pub mod drive;
mod drive_dispatch;
pub mod drive_link;
pub mod error;
pub mod feup;
pub mod imc23;
pub mod mahimahi;
pub mod mapping;
pub mod ucc;

pub use catalog::{describe_drive_log, list_drive_logs, DriveLogInfo};
pub use drive::{CellId, DriveLogKind, DriveSample, DriveTimeline, Handoff};
pub use drive_link::{DriveLink, DriveLinkConfig, LossSchedule, LTE_HANDOFF_OUTAGE, WIFI_HANDOFF_OUTAGE};
pub use error::TraceError;
pub use feup::{parse_feup, FeupSelect};
pub use imc23::parse_imc23;
pub use mahimahi::{MahimahiSchedule, MAHIMAHI_MTU};
pub use mapping::{LinearParams, LossCurve, ReportedParams, ShannonParams, SignalMapping};
pub use ucc::parse_ucc;
