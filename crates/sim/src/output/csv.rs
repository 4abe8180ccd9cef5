//! CSV time series. Floats use Rust's shortest round-trip formatting, which
//! is the same on every platform.

use std::fmt::Write;

use crate::{ca_state_name, FlowSeries, SegmentLog};

pub fn series(s: &FlowSeries) -> String {
    let mut out = String::with_capacity(s.t_s.len() * 64 + 80);
    out.push_str("t_s,cwnd,ssthresh,srtt_s,rto_s,snd_una,snd_nxt,bytes_delivered,ca_state\n");
    for i in 0..s.t_s.len() {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            s.t_s[i],
            s.cwnd[i],
            s.ssthresh[i],
            s.srtt_s[i],
            s.rto_s[i],
            s.snd_una[i],
            s.snd_nxt[i],
            s.bytes_delivered[i],
            ca_state_name(s.ca_state[i])
        );
    }
    out
}

pub fn segments(s: &SegmentLog) -> String {
    let mut out = String::with_capacity(s.t_s.len() * 32 + 40);
    out.push_str("t_s,seq,len,retransmission\n");
    for i in 0..s.t_s.len() {
        let _ = writeln!(out, "{},{},{},{}", s.t_s[i], s.seq[i], s.len[i], s.retransmission[i] as u8);
    }
    out
}
