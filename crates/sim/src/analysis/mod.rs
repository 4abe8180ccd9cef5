//! Checks of simulated runs against analytical models of TCP.
//!
//! [`pftk`] is the model itself (pure arithmetic, no simulator types);
//! [`compare`] feeds it with what a run measured — its own mean RTT and
//! un-backed-off RTO — so a validation compares like with like.

pub mod compare;
pub mod pftk;

pub use compare::{base_rto_s, format_table, pftk_compare, pftk_sweep, PftkComparison};
pub use pftk::{send_rate_pkts, PftkError, PftkInputs};
