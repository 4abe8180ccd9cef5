//! The ZWA core alone: the zero-window ACK's exact fields, storage once per
//! sequence, the in-order ACK number, replay order, window respect and
//! retransmission.

use airtcp_core::{Duration, Instant, SeqNum, TcpFlags};

use super::super::zwa_core::{zero_window_ack, ZwaConfig, ZwaCore};
use super::*;

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

fn ack_of(z: &mut ZwaCore, p: &airtcp_core::Packet) -> Option<(u32, u16)> {
    z.on_segment(p).map(|a| (a.segment().unwrap().ack.0, a.segment().unwrap().window))
}

fn sent(z: &mut ZwaCore) -> Vec<u32> {
    std::iter::from_fn(|| z.poll_transmit()).map(|p| p.segment().unwrap().seq.0).collect()
}

#[test]
fn zero_window_ack_has_exact_fields() {
    let d = data(1000, 1460, 77, Some((500, 400)));
    let a = zero_window_ack(&d, SeqNum(2460), 9).unwrap();
    assert_eq!((a.ip.src, a.ip.dst, a.ip.ttl, a.ip.ip_id, a.outer), (MN, CN, 64, 9, None));
    let s = a.segment().unwrap();
    let want = airtcp_core::Segment {
        src_port: MN_PORT,
        dst_port: CN_PORT,
        seq: SeqNum(77),
        ack: SeqNum(2460),
        flags: TcpFlags::ACK,
        window: 0,
        // TSval = the data's TSecr (the station's newest TSval the sender
        // holds: PAWS passes), TSecr = the data's TSval (echoed).
        timestamps: Some((400, 500)),
        ..Default::default()
    };
    assert_eq!(*s, want);
    assert_eq!(a.ip_len(), 20 + 32, "a pure ACK with the timestamps option");
    let plain = zero_window_ack(&data(1000, 1460, 77, None), SeqNum(2460), 1).unwrap();
    assert_eq!((plain.segment().unwrap().timestamps, plain.ip_len()), (None, 40));
}

#[test]
fn each_segment_is_stored_once_and_acked_to_the_end_of_in_order_data() {
    let mut z = ZwaCore::new(ZwaConfig::default());
    assert_eq!(ack_of(&mut z, &data(1000, 1000, 1, None)), Some((2000, 0)));
    assert_eq!(ack_of(&mut z, &data(3000, 1000, 1, None)), Some((2000, 0)), "a hole: the ACK stays");
    assert_eq!(ack_of(&mut z, &data(2000, 1000, 1, None)), Some((4000, 0)), "filled");
    assert_eq!(ack_of(&mut z, &data(2000, 1000, 1, None)), Some((4000, 0)), "a duplicate is answered again");
    // A zero-window probe (no data) is answered, not stored.
    assert_eq!(ack_of(&mut z, &data(3999, 0, 1, None)), Some((4000, 0)));
    // Data below the first segment seen extends the run downwards.
    assert_eq!(ack_of(&mut z, &data(0, 1000, 1, None)), Some((4000, 0)));
    let key = data(0, 0, 1, None).conn_key().unwrap();
    assert_eq!(z.stored(key), Some((4, 4000)));
    assert_eq!((z.counters.stored, z.counters.duplicates, z.counters.zw_acks), (4, 1, 6));
    // SYNs, RSTs and non-TCP are ignored.
    let mut syn = data(0, 0, 0, None);
    syn.segment_mut().unwrap().flags = TcpFlags::SYN;
    assert!(!z.store(&syn));
    let mut udp = data(0, 0, 0, None);
    udp.payload = airtcp_core::IpPayload::Udp(airtcp_core::Udp { src_port: 1, dst_port: 2, msg: airtcp_core::UdpMsg::Opaque { len: 10 } });
    assert_eq!(z.on_segment(&udp), None);
    // Nothing stored yet for a connection: a bare probe gets no answer.
    let mut other = data(5, 0, 1, None);
    other.segment_mut().unwrap().src_port = 1;
    assert_eq!(z.on_segment(&other), None);
}

#[test]
fn storage_is_bounded_and_unstored_data_is_not_acknowledged() {
    let mut z = ZwaCore::new(ZwaConfig { max_stored_bytes: 2000, ..ZwaConfig::default() });
    ack_of(&mut z, &data(0, 1000, 1, None));
    ack_of(&mut z, &data(1000, 1000, 1, None));
    assert_eq!(ack_of(&mut z, &data(2000, 1000, 1, None)), Some((2000, 0)));
    assert_eq!(z.counters.over_limit, 1);
}

#[test]
fn sequence_numbers_wrap() {
    let mut z = ZwaCore::new(ZwaConfig::default());
    assert_eq!(ack_of(&mut z, &data(u32::MAX - 499, 1000, 1, None)), Some((500, 0)));
    assert_eq!(ack_of(&mut z, &data(500, 1000, 1, None)), Some((1500, 0)));
}

fn filled(cfg: ZwaConfig, n: u32) -> ZwaCore {
    let mut z = ZwaCore::new(cfg);
    for k in 0..n {
        z.on_segment(&data(1000 + 1000 * k, 1000, 1, Some((10 + k, 5))));
    }
    z
}

#[test]
fn replay_goes_in_order_within_the_station_window() {
    let mut z = filled(ZwaConfig { replay_initial_window: 2, ..ZwaConfig::default() }, 6);
    z.start_replay(ms(0), [1, 2, 3, 4]);
    assert!(sent(&mut z).is_empty(), "another station");
    z.start_replay(ms(0), MN);
    assert_eq!(sent(&mut z), vec![1000, 2000], "initial window of two segments");
    assert_eq!(z.poll_timeout(), Some(ms(200)));
    // The station acknowledges one segment and advertises 1500 bytes: one more fits.
    z.on_station_ack(ms(10), &mn_ack(2000, 1500));
    assert_eq!(sent(&mut z), Vec::<u32>::new(), "2000..3000 in flight, 3000..4000 would end past 2000+1500");
    z.on_station_ack(ms(12), &mn_ack(3000, 1500));
    assert_eq!(sent(&mut z), vec![3000]);
    z.on_station_ack(ms(20), &mn_ack(4000, 10_000));
    assert_eq!(sent(&mut z), vec![4000, 5000, 6000]);
    assert_eq!(z.poll_timeout(), Some(ms(220)), "restarted by the last new ACK");
    z.on_station_ack(ms(30), &mn_ack(7000, 10_000));
    assert_eq!(z.poll_done(), Some(data(0, 0, 0, None).conn_key().unwrap()));
    assert_eq!((z.counters.replayed, z.counters.replays_done, z.poll_timeout()), (6, 1, None));
}

#[test]
fn replay_retransmits_on_timeout_with_backoff_and_on_three_duplicate_acks() {
    let mut z = filled(ZwaConfig::default(), 4);
    z.start_replay(ms(0), MN);
    assert_eq!(sent(&mut z), vec![1000, 2000, 3000, 4000]);
    // 1000..2000 lost on the wireless hop: three duplicate ACKs.
    for _ in 0..3 {
        z.on_station_ack(ms(5), &mn_ack(1000, 10_000));
    }
    assert_eq!(sent(&mut z), vec![1000]);
    z.handle_timeout(ms(199));
    assert!(sent(&mut z).is_empty());
    // Lost again: the timer at 5 + 200 ms sends the head, then 400 ms later again.
    z.handle_timeout(ms(205));
    assert_eq!(sent(&mut z), vec![1000]);
    assert_eq!(z.poll_timeout(), Some(ms(605)));
    z.handle_timeout(ms(605));
    assert_eq!(sent(&mut z), vec![1000]);
    assert_eq!(z.poll_timeout(), Some(ms(1405)));
    // It arrives: the station ACKs everything it held.
    z.on_station_ack(ms(620), &mn_ack(5000, 10_000));
    assert_eq!((z.counters.replay_retransmits, z.counters.replay_timeouts, z.counters.replays_done), (3, 2, 1));
}

#[test]
fn go_back_n_after_a_timeout_resends_what_followed_the_head() {
    let mut z = filled(ZwaConfig::default(), 3);
    z.start_replay(ms(0), MN);
    sent(&mut z);
    z.handle_timeout(ms(200));
    assert_eq!(sent(&mut z), vec![1000], "one segment of window after a timeout");
    z.on_station_ack(ms(210), &mn_ack(2000, 10_000));
    assert_eq!(sent(&mut z), vec![2000, 3000]);
}

#[test]
fn a_station_missing_earlier_data_stalls_the_replay_until_it_is_abandoned() {
    // Seed Fig. 6(b): a segment before the first stored one died at the old AP.
    let mut z = filled(ZwaConfig { replay_max_retries: 2, replay_max_rto: Duration::from_millis(300), ..ZwaConfig::default() }, 2);
    z.start_replay(ms(0), MN);
    sent(&mut z);
    z.on_station_ack(ms(5), &mn_ack(0, 10_000));
    z.on_station_ack(ms(6), &mn_ack(0, 10_000));
    assert_eq!(z.counters.station_behind, 2);
    z.handle_timeout(ms(200));
    z.handle_timeout(ms(500));
    assert_eq!(z.poll_timeout(), Some(ms(800)), "backoff capped at 300 ms");
    z.handle_timeout(ms(800));
    assert_eq!((z.counters.replays_abandoned, z.poll_timeout()), (1, None));
    assert!(z.poll_done().is_some());
}

#[test]
fn discard_forgets_a_station() {
    let mut z = filled(ZwaConfig::default(), 3);
    z.discard(MN);
    z.start_replay(ms(0), MN);
    assert!(sent(&mut z).is_empty());
    assert_eq!(z.counters.discarded, 3);
}

#[test]
fn a_station_leaving_mid_replay_gets_the_replay_again_from_the_start() {
    let mut z = filled(ZwaConfig { replay_initial_window: 1, ..ZwaConfig::default() }, 3);
    z.start_replay(ms(0), MN);
    assert_eq!(sent(&mut z), vec![1000]);
    z.on_station_ack(ms(10), &mn_ack(2000, 10_000));
    z.stop_replay(MN);
    assert_eq!((sent(&mut z), z.poll_timeout()), (vec![], None), "nothing queued, no timer");
    // More data while away, then back.
    z.on_segment(&data(4000, 1000, 1, Some((20, 5))));
    z.start_replay(ms(100), MN);
    assert_eq!(sent(&mut z), vec![1000]);
    z.on_station_ack(ms(110), &mn_ack(2000, 10_000));
    assert_eq!(sent(&mut z), vec![2000, 3000]);
    z.on_station_ack(ms(120), &mn_ack(4000, 10_000));
    assert_eq!(sent(&mut z), vec![4000]);
    z.on_station_ack(ms(130), &mn_ack(5000, 10_000));
    assert_eq!(z.counters.replays_done, 1);
}
