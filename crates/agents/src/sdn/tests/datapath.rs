//! The datapath: table miss to packet-in (whole or buffered), packet-out,
//! buffered flow-mods, timeouts and flow-removed, flow stats, AP notices.

use airtcp_core::{Duration, Instant};

use super::super::datapath::{Datapath, DatapathConfig};
use super::super::msg::*;
use super::super::ofmatch::Match;
use super::super::types::*;
use super::*;

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

fn control(dp: &mut Datapath) -> Vec<OfMessage> {
    std::iter::from_fn(|| dp.poll_control()).collect()
}

#[test]
fn table_miss_sends_the_whole_packet_without_buffers() {
    let mut dp = Datapath::new(DatapathConfig::new(1));
    let p = data(1, 1000, 1, None);
    let d = dp.handle_packet(ms(0), 3, &p);
    assert!(d.to_controller && d.ports().is_empty());
    let pi = PacketIn { buffer_id: None, in_port: 3, reason: PacketInReason::NoMatch, cookie: u64::MAX, pkt: p };
    assert_eq!(control(&mut dp), vec![OfMessage::PacketIn(pi)]);
    // Without a table-miss path the packet is dropped silently.
    let mut quiet = Datapath::new(DatapathConfig { miss_to_controller: false, ..DatapathConfig::new(2) });
    assert!(quiet.handle_packet(ms(0), 3, &p).is_drop());
    assert!(quiet.poll_control().is_none());
}

#[test]
fn buffered_packet_in_then_packet_out_and_buffered_flow_mod() {
    let mut dp = Datapath::new(DatapathConfig { buffers: 2, ..DatapathConfig::new(1) });
    let (p1, p2, p3) = (data(1, 10, 1, None), data(11, 10, 1, None), data(21, 10, 1, None));
    for p in [p1, p2, p3] {
        dp.handle_packet(ms(0), 3, &p);
    }
    let ids: Vec<Option<u32>> = control(&mut dp)
        .into_iter()
        .map(|m| match m {
            OfMessage::PacketIn(pi) => pi.buffer_id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, vec![Some(0x1_0000), Some(0x2_0001), None], "two buffers, then OFP_NO_BUFFER");
    // Packet-out of buffer 0 to port 4; the buffer is then free (and the id stale).
    dp.handle_control(ms(1), OfMessage::PacketOut { buffer_id: Some(0x1_0000), in_port: 3, actions: Actions::output(4), pkt: None });
    assert_eq!(dp.poll_output(), Some((4, p1)));
    dp.handle_control(ms(1), OfMessage::PacketOut { buffer_id: Some(0x1_0000), in_port: 3, actions: Actions::output(4), pkt: None });
    assert_eq!(control(&mut dp), vec![OfMessage::Error { xid: 0, error: OfError::BufferUnknown }]);
    // A flow-mod naming buffer 1 installs the entry and sends that packet through it.
    let mut fm = FlowMod::add(5, Match::to_host(MN), Actions::new(&[Action::Output(OFPP_IN_PORT), Action::Output(6)]).unwrap());
    fm.buffer_id = Some(0x2_0001);
    dp.handle_control(ms(2), OfMessage::FlowMod(fm));
    assert_eq!(std::iter::from_fn(|| dp.poll_output()).collect::<Vec<_>>(), vec![(3, p2), (6, p2)]);
    assert_eq!(dp.table().entries()[0].counters.packets, 1);
    // A packet-out carrying its own packet.
    dp.handle_control(ms(3), OfMessage::PacketOut { buffer_id: None, in_port: OFPP_CONTROLLER, actions: Actions::output(2), pkt: Some(p3) });
    assert_eq!(dp.poll_output(), Some((2, p3)));
    assert_eq!(dp.counters().packet_outs, 2);
}

#[test]
fn idle_and_hard_timeouts_expire_with_flow_removed() {
    let mut dp = Datapath::new(DatapathConfig::new(1));
    let mut idle = FlowMod::add(10, Match::to_host(MN), Actions::output(2)).with_flags(OFPFF_SEND_FLOW_REM);
    idle.idle_timeout = Some(Duration::from_secs(5));
    let mut hard = FlowMod::add(10, Match::to_host(CN), Actions::output(1)).with_flags(OFPFF_SEND_FLOW_REM);
    hard.hard_timeout = Some(Duration::from_secs(3));
    dp.handle_control(ms(0), OfMessage::FlowMod(idle));
    dp.handle_control(ms(0), OfMessage::FlowMod(hard));
    assert_eq!(dp.poll_timeout(), Some(ms(3000)));
    // Traffic at 2 s keeps the idle entry alive until 7 s; the hard one ignores traffic.
    assert_eq!(dp.handle_packet(ms(2000), 1, &data(1, 100, 1, None)).ports(), &[2]);
    dp.handle_packet(ms(2000), 2, &mn_ack(101, 10));
    dp.handle_timeout(ms(2999));
    assert!(dp.poll_control().is_none());
    dp.handle_timeout(ms(3000));
    let hard_gone = FlowRemoved {
        cookie: 0,
        priority: 10,
        reason: RemovedReason::HardTimeout,
        duration: Duration::from_secs(3),
        idle_timeout: None,
        hard_timeout: Some(Duration::from_secs(3)),
        counters: FlowCounters { packets: 1, bytes: 40 },
        r#match: Match::to_host(CN),
    };
    assert_eq!(control(&mut dp), vec![OfMessage::FlowRemoved(hard_gone)]);
    assert_eq!(dp.poll_timeout(), Some(ms(7000)));
    dp.handle_timeout(ms(7000));
    match control(&mut dp).as_slice() {
        [OfMessage::FlowRemoved(r)] => {
            assert_eq!((r.reason, r.duration, r.counters), (RemovedReason::IdleTimeout, Duration::from_secs(7), FlowCounters { packets: 1, bytes: 140 }));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(dp.poll_timeout(), None);
}

#[test]
fn expiry_without_send_flow_rem_is_silent() {
    let mut dp = Datapath::new(DatapathConfig::new(1));
    let mut fm = FlowMod::add(10, Match::ANY, Actions::output(2));
    fm.idle_timeout = Some(Duration::from_millis(10));
    dp.handle_control(ms(0), OfMessage::FlowMod(fm));
    dp.handle_timeout(ms(10));
    assert!(dp.table().is_empty() && dp.poll_control().is_none());
}

#[test]
fn flow_stats_reply_lists_covered_entries_with_counters_and_duration() {
    let mut dp = Datapath::new(DatapathConfig::new(1));
    dp.handle_control(ms(0), OfMessage::FlowMod(FlowMod::add(10, Match::to_host(MN), Actions::output(2))));
    dp.handle_control(ms(500), OfMessage::FlowMod(FlowMod::add(10, Match::to_host(CN), Actions::output(1))));
    dp.handle_packet(ms(600), 1, &data(1, 1000, 1, None));
    dp.handle_control(ms(1000), OfMessage::FlowStatsRequest { xid: 7, r#match: Match::to_host(MN), out_port: OFPP_ANY, cookie: 0, cookie_mask: 0 });
    match control(&mut dp).as_slice() {
        [OfMessage::FlowStatsReply { xid: 7, stats }] => {
            assert_eq!(stats.len(), 1);
            assert_eq!((stats[0].duration, stats[0].counters), (Duration::from_secs(1), FlowCounters { packets: 1, bytes: 1040 }));
        }
        other => panic!("{other:?}"),
    }
    dp.handle_control(ms(1000), OfMessage::FlowStatsRequest { xid: 8, r#match: Match::ANY, out_port: 1, cookie: 0, cookie_mask: 0 });
    assert!(matches!(control(&mut dp).as_slice(), [OfMessage::FlowStatsReply { xid: 8, stats }] if stats.len() == 1 && stats[0].r#match == Match::to_host(CN)));
}

#[test]
fn malformed_flow_mod_and_wrong_direction_messages_get_errors() {
    let mut dp = Datapath::new(DatapathConfig::new(1));
    let mut fm = FlowMod::add(10, Match { tp_src: Some(1), ..Match::ANY }, Actions::output(2));
    fm.xid = 42;
    dp.handle_control(ms(0), OfMessage::FlowMod(fm));
    dp.handle_control(ms(0), OfMessage::BarrierReply { xid: 1 });
    dp.handle_control(ms(0), OfMessage::BarrierRequest { xid: 2 });
    assert_eq!(
        control(&mut dp),
        vec![
            OfMessage::Error { xid: 42, error: OfError::BadMatch(super::super::ofmatch::BadMatch::BadPrereq) },
            OfMessage::Error { xid: 0, error: OfError::BadType },
            OfMessage::BarrierReply { xid: 2 },
        ]
    );
    assert!(dp.table().is_empty());
}

#[test]
fn ap_disassociation_notice_carries_the_counters_towards_the_station() {
    let mut dp = Datapath::new(DatapathConfig::new(11));
    dp.handle_control(ms(0), OfMessage::FlowMod(FlowMod::add(10, Match::to_host(MN), Actions::output(2))));
    dp.handle_packet(ms(1), 1, &data(1, 1000, 1, None));
    dp.handle_packet(ms(2), 1, &data(1001, 1000, 1, None));
    let mac = airtcp_core::MacAddr::local(9);
    dp.station_notice(ms(3), StationEvent::Disassociated, MN, mac, 2);
    let n = StationNotice { event: StationEvent::Disassociated, station_ip: MN, station_mac: mac, port: 2, at: ms(3), counters: Some(FlowCounters { packets: 2, bytes: 2080 }) };
    assert_eq!(control(&mut dp), vec![OfMessage::StationNotice(n)]);
    dp.station_notice(ms(4), StationEvent::Associated, [10, 0, 9, 3], mac, 2);
    assert!(matches!(dp.poll_control(), Some(OfMessage::StationNotice(StationNotice { counters: None, .. }))));
}

#[test]
fn output_to_the_input_port_needs_ofpp_in_port_and_zero_timeouts_mean_none() {
    let mut dp = Datapath::new(DatapathConfig::new(1));
    let mut fm = FlowMod::add(10, Match::ANY, Actions::new(&[Action::Output(3), Action::Output(4)]).unwrap());
    fm.idle_timeout = Some(Duration::ZERO);
    fm.hard_timeout = Some(Duration::ZERO);
    dp.handle_control(ms(0), OfMessage::FlowMod(fm));
    assert_eq!(dp.handle_packet(ms(1), 3, &data(1, 10, 1, None)).ports(), &[4]);
    assert_eq!(dp.handle_packet(ms(1), 5, &data(1, 10, 1, None)).ports(), &[3, 4]);
    assert_eq!(dp.poll_timeout(), None);
    dp.handle_control(ms(2), OfMessage::PacketOut { buffer_id: None, in_port: 3, actions: Actions::new(&[Action::Output(3), Action::Output(OFPP_IN_PORT)]).unwrap(), pkt: Some(data(1, 10, 1, None)) });
    assert_eq!(std::iter::from_fn(|| dp.poll_output()).map(|x| x.0).collect::<Vec<_>>(), vec![3]);
}
