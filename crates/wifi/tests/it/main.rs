//! Every integration test of this crate in one binary: one link and one
//! compilation of the shared helpers instead of one per file.
//! Run one file's tests with `cargo test -p airtcp-wifi --test it <file>::`.

mod common;
mod association_storm;
mod bianchi;
mod campus_reach;
mod capture_bytes;
mod capture_tshark;
mod disassociation;
mod hidden;
mod minstrel;
mod mobility_models;
mod mobility_parse;
mod nav;
mod ns3_saturation;
mod phy_api;
mod preamble;
mod rate_control;
