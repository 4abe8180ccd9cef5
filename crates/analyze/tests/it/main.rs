//! Every integration test of this crate in one binary: one link and one
//! compilation of the shared helpers instead of one per file.
//! Run one file's tests with `cargo test -p airtcp-analyze --test it <file>::`.

mod common;
mod capture;
mod flow;
mod tshark;
