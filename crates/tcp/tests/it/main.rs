//! Every integration test of this crate in one binary: one link and one
//! compilation of the shared helpers instead of one per file.
//! Run one file's tests with `cargo test -p airtcp-tcp --test it <file>::`.

mod common;
mod anchor;
mod autotune;
mod connection;
mod delack_ato;
mod dsack;
mod ecn;
mod ehn;
mod freeze;
mod frto;
mod idle_restart;
mod nagle;
mod pushed_ack;
mod rack;
mod rtt_samples;
mod sack_compress;
mod receiver;
mod recovery;
mod shrink;
mod timers;
mod tlp;
mod undo;
mod witcp;
