//! A [`Tap`] (one connection fed packet by packet, as the simulator feeds
//! its sockets) gives the same summary as the analysis of a capture holding
//! the same packets: one definition for runs and captures.

use std::path::PathBuf;

use airtcp_analyze::capture::for_each_packet;
use airtcp_analyze::decode::decode;
use airtcp_analyze::model::{Collect, Discard};
use airtcp_analyze::{analyze_reader, Options, Tap};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn tap_and_capture_agree(name: &str) {
    let bytes = std::fs::read(data(name)).unwrap();
    let opts = Options::default();
    let mut sink = Collect::default();
    analyze_reader(&bytes[..], &opts, &mut sink).unwrap();
    let mut tap = Tap::new(opts.min_gap_ns);
    // The capture's clock is absolute; the tap keeps times as given, so
    // shift them to the capture's origin (its first packet).
    let mut t0 = None;
    for_each_packet(&bytes[..], |p| {
        let t0 = *t0.get_or_insert(p.t_ns);
        if let Ok(tcp) = decode(p.linktype, p.data, p.orig_len) {
            tap.packet(p.t_ns - t0, &tcp, &mut Discard);
        }
    })
    .unwrap();
    let from_tap = tap.finish(&mut Discard).expect("packets were seen");
    let from_capture = &sink.connections[0];
    assert_eq!(from_tap.fwd, from_capture.fwd, "{name} fwd");
    assert_eq!(from_tap.rev, from_capture.rev, "{name} rev");
    // The simulator's tap feeds only the first direction: same `fwd`.
    let mut fwd_only = Tap::forward_only(opts.min_gap_ns);
    let mut t0 = None;
    for_each_packet(&bytes[..], |p| {
        let t0 = *t0.get_or_insert(p.t_ns);
        if let Ok(tcp) = decode(p.linktype, p.data, p.orig_len) {
            fwd_only.packet(p.t_ns - t0, &tcp, &mut Discard);
        }
    })
    .unwrap();
    let from_fwd_only = fwd_only.finish(&mut Discard).expect("packets were seen");
    assert_eq!(from_fwd_only.fwd, from_capture.fwd, "{name} forward-only fwd");
    assert_eq!(from_fwd_only.syn_to_synack_ns, from_capture.syn_to_synack_ns, "{name} handshake");
    assert_eq!(from_fwd_only.rev.packets, 0, "{name} forward-only rev is not fed");
}

#[test]
fn tap_equals_capture_on_rto_chain() {
    tap_and_capture_agree("tcp_retransmissions.pcapng");
}

#[test]
fn tap_equals_capture_on_zero_window() {
    tap_and_capture_agree("tcp_zerowindowrecovery.pcapng");
}

#[test]
fn tap_equals_capture_on_dup_acks() {
    tap_and_capture_agree("tcp_dupack.pcapng");
}
