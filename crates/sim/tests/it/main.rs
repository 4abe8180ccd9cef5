//! Every integration test of this crate in one binary: one link and one
//! compilation of the shared helpers instead of one per file.
//! Run one file's tests with `cargo test -p airtcp-sim --test it <file>::`.
//! Kept apart (own process): alloc.

mod common;
mod agents;
mod agents_property;
mod analyze_agreement;
mod analyze_interruptions;
mod buffers;
mod drive_external;
mod cc_sanity;
mod e2e;
mod ecn;
mod engine;
mod freeze;
mod fuzz_corpus;
mod handoff_frto;
mod link;
mod link_keys;
mod mesh;
mod mesh_ns2;
mod mobileip;
mod mobileip_p2p;
mod mtcp;
mod property;
mod property_many;
mod retransmit_bound;
mod route_keys;
mod routing;
mod scenario;
mod sdn;
mod streams;
mod summary_types;
mod trace_catalog;
mod trace_drive_link;
mod trace_drive_parsers;
mod trace_integration;
mod trace_mahimahi;
mod udp;
mod validate;
mod validation_ns2;
mod validation_ns3;
mod validation_pftk;
mod wifi;
mod wifi_capture;
mod witcp_ns2;
