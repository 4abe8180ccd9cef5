//! Topology paths, reactive forwarding, the mobility manager (Algorithm 1),
//! the statistics module's decision both ways and the ZWA app on the fabric.

use airtcp_core::{Instant, SeqNum};

use super::super::controller::Controller;
use super::super::devices::ZwaGate;
use super::super::forwarding::FWD_PRIORITY;
use super::super::mobility::MobilityManager;
use super::super::msg::*;
use super::super::ofmatch::Match;
use super::super::stats::StatsModule;
use super::super::topology::{Hop, Topology};
use super::super::types::*;
use super::super::zwa::{ZwaApp, ZWA_PRIORITY};
use super::super::zwa_core::ZwaConfig;
use super::fabric::*;
use super::*;

fn seed_controller(stats: bool) -> Controller {
    Controller::seed000(topo(), stats, Some(ZwaConfig::default()))
}

/// CN at S1:1 has sent once (learned), MN associated at AP1, and one
/// CN -> MN segment went through (routes installed).
fn running(stats: bool) -> Fabric {
    let mut f = Fabric::new(seed_controller(stats));
    f.station(AP1, StationEvent::Associated, MN);
    f.pump();
    f.send(S1, 1, data(1000, 1000, 1, Some((100, 50))));
    f
}

fn has_entry_to(f: &Fabric, d: Dpid, ip: [u8; 4]) -> Option<Actions> {
    f.dps[&d].table().entries().iter().find(|e| e.r#match == Match::to_host(ip)).map(|e| e.actions)
}

#[test]
fn bfs_shortest_path_with_deterministic_ties() {
    let t = topo();
    let h = |dpid, in_port, out_port| Hop { dpid, in_port, out_port };
    assert_eq!(t.path(S1, AP2), Some(vec![h(S1, None, 3), h(S3, Some(1), 2)]));
    assert_eq!(t.route(S1, 1, AP2, WPORT), Some(vec![h(S1, Some(1), 3), h(S3, Some(1), 2), h(AP2, Some(1), WPORT)]));
    assert_eq!(t.route(AP1, WPORT, AP1, WPORT), Some(vec![h(AP1, Some(WPORT), WPORT)]));
    assert_eq!(t.path(S1, 99), None);
    // A diamond A-B-D / A-C-D: the lower port at A wins, whatever the dpids.
    for (pb, pc, via) in [(1, 2, 2), (5, 4, 3)] {
        let mut d = Topology::new();
        d.add_link(1, pb, 2, 1).unwrap();
        d.add_link(1, pc, 3, 1).unwrap();
        d.add_link(2, 2, 4, 1).unwrap();
        d.add_link(3, 2, 4, 2).unwrap();
        let p = d.path(1, 4).unwrap();
        assert_eq!(p[1].dpid, via, "ports {pb}/{pc}");
    }
    let mut bad = Topology::new();
    bad.add_link(1, 1, 2, 1).unwrap();
    assert!(bad.add_link(1, 1, 3, 1).is_err());
}

#[test]
fn reactive_forwarding_installs_the_path_last_hop_first_then_packet_out() {
    let mut f = Fabric::new(seed_controller(false));
    f.station(AP1, StationEvent::Associated, MN);
    f.pump();
    let mark = f.log.len();
    let p = data(1000, 1000, 1, None);
    f.send(S1, 1, p);
    let sent = f.sent_since(mark);
    let dpids: Vec<Dpid> = sent.iter().map(|x| x.0).collect();
    assert_eq!(dpids, vec![AP1, S2, S1, S1], "AP1, S2, S1 flow-mods, then the packet-out at S1");
    match &sent[0].1 {
        OfMessage::FlowMod(fm) => {
            assert_eq!((fm.priority, fm.r#match, fm.actions, fm.flags), (FWD_PRIORITY, Match::to_host(MN), Actions::output(WPORT), OFPFF_SEND_FLOW_REM));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(sent[3].1, OfMessage::PacketOut { in_port: 1, .. }));
    assert_eq!(f.take_delivered(), vec![(AP1, WPORT, p)]);
    assert_eq!(has_entry_to(&f, S1, MN), Some(Actions::output(2)));
    // The next segment needs no controller.
    let mark = f.log.len();
    f.send(S1, 1, data(2000, 1000, 1, None));
    assert_eq!(f.log.len(), mark);
    assert_eq!(f.take_delivered().len(), 1);
    assert_eq!(f.ctl.devices.location(CN), Some((S1, 1)), "CN learned from its packet-in");
}

#[test]
fn mobility_manager_deletes_on_disassociation_and_installs_the_new_path_on_association() {
    let mut f = running(false);
    f.take_delivered();
    let mark = f.log.len();
    f.station(AP1, StationEvent::Disassociated, MN);
    f.pump();
    let deletes: Vec<Dpid> = f
        .sent_since(mark)
        .into_iter()
        .filter(|(_, m)| matches!(m, OfMessage::FlowMod(fm) if fm.command == FlowModCommand::Delete && fm.r#match == Match::to_host(MN)))
        .map(|x| x.0)
        .collect();
    assert_eq!(deletes, vec![S1, S2, AP1], "every datapath of the path, in dpid order");
    for d in [S1, S2, AP1] {
        assert_eq!(has_entry_to(&f, d, MN), None);
    }
    assert_eq!(f.ctl.devices.location(MN), None);
    // Association at AP2: CN -> MN along S1-S3-AP2, MN -> CN at AP2 and S3.
    f.station(AP2, StationEvent::Associated, MN);
    f.pump();
    assert_eq!(has_entry_to(&f, S1, MN), Some(Actions::output(3)));
    assert_eq!(has_entry_to(&f, S3, MN), Some(Actions::output(2)));
    assert_eq!(has_entry_to(&f, AP2, MN), Some(Actions::output(WPORT)));
    assert_eq!(has_entry_to(&f, AP2, CN), Some(Actions::output(1)));
    assert_eq!(has_entry_to(&f, S3, CN), Some(Actions::output(1)));
    let mark = f.log.len();
    let p = data(3000, 1000, 1, None);
    f.send(S1, 1, p);
    f.send(AP2, WPORT, mn_ack(4000, 100));
    assert_eq!(f.log.len(), mark, "both directions flow without the controller");
    assert_eq!(f.take_delivered(), vec![(AP2, WPORT, p), (S1, 1, mn_ack(4000, 100))]);
    let mob = f.ctl.app::<MobilityManager>().unwrap();
    assert_eq!((mob.disassociations, mob.associations, mob.deletes_sent, mob.routes_installed), (1, 2, 3, 2));
}

fn zwa(f: &Fabric) -> &ZwaApp {
    f.ctl.app::<ZwaApp>().unwrap()
}

#[test]
fn statistics_module_enables_zwa_when_no_segment_reached_the_old_ap() {
    let mut f = running(true);
    f.station(AP1, StationEvent::Disassociated, MN);
    f.pump();
    assert_eq!(f.ctl.devices.handoff(MN).map(|h| h.gate), Some(ZwaGate::Enabled));
    let st = f.ctl.app::<StatsModule>().unwrap();
    assert_eq!((st.enabled, st.disabled), (1, 0));
    // A segment now reaches the controller and is answered with a ZWA back out of S1:1.
    f.take_delivered();
    f.send(S1, 1, data(2000, 1000, 1, Some((120, 50))));
    let got = f.take_delivered();
    assert_eq!(got.len(), 1);
    let (d, port, ack) = got[0];
    assert_eq!((d, port, ack.ip.src, ack.ip.dst), (S1, 1, MN, CN));
    let s = ack.segment().unwrap();
    assert_eq!((s.ack, s.window, s.timestamps), (SeqNum(3000), 0, Some((50, 120))));
}

#[test]
fn statistics_module_falls_back_to_bare_tcp_when_a_segment_slipped_into_the_old_ap() {
    let mut f = running(true);
    let now = f.now;
    // T0: the AP reports; before the controller's delete (T2) a segment hits AP1's entry.
    f.station(AP1, StationEvent::Disassociated, MN);
    let lost = data(2000, 1000, 1, None);
    assert_eq!(f.dps.get_mut(&AP1).unwrap().handle_packet(now, 1, &lost).ports(), &[WPORT]);
    f.pump();
    assert_eq!(f.ctl.devices.handoff(MN).map(|h| h.gate), Some(ZwaGate::Disabled));
    let st = f.ctl.app::<StatsModule>().unwrap();
    assert_eq!((st.enabled, st.disabled), (0, 1));
    // Bare TCP: the next segment is neither answered nor stored.
    f.take_delivered();
    f.send(S1, 1, data(3000, 1000, 1, None));
    assert!(f.take_delivered().is_empty());
    assert_eq!(zwa(&f).core.counters.stored, 0);
    f.station(AP2, StationEvent::Associated, MN);
    f.pump();
    assert_eq!((zwa(&f).handoffs_zwa, zwa(&f).handoffs_bare), (0, 1));
}

#[test]
fn pending_gate_stores_silently_then_answers_when_the_counters_match() {
    let mut c = seed_controller(true);
    let t = Instant::from_millis(5);
    c.devices.learn_wired(CN, (S1, 1));
    c.devices.associate(MN, airtcp_core::MacAddr::local(2), (AP1, WPORT));
    let c0 = FlowCounters { packets: 3, bytes: 3120 };
    let notice = StationNotice { event: StationEvent::Disassociated, station_ip: MN, station_mac: airtcp_core::MacAddr::local(2), port: WPORT, at: t, counters: Some(c0) };
    c.handle_message(t, AP1, &OfMessage::StationNotice(notice));
    while c.poll_message().is_some() {}
    assert_eq!(c.devices.handoff(MN).map(|h| h.gate), Some(ZwaGate::Pending));
    // A segment arrives from S2 (its entry already deleted) before AP1's flow-removed.
    let pi = PacketIn { buffer_id: None, in_port: 1, reason: PacketInReason::NoMatch, cookie: u64::MAX, pkt: data(5000, 1000, 1, Some((9, 8))) };
    c.handle_message(t, S2, &OfMessage::PacketIn(pi));
    assert_eq!(c.poll_message(), None, "stored, not answered");
    let removed = FlowRemoved {
        cookie: 0,
        priority: FWD_PRIORITY,
        reason: RemovedReason::Delete,
        duration: airtcp_core::Duration::from_secs(1),
        idle_timeout: None,
        hard_timeout: None,
        counters: c0,
        r#match: Match::to_host(MN),
    };
    c.handle_message(t, AP1, &OfMessage::FlowRemoved(removed));
    match c.poll_message() {
        Some((S2, OfMessage::PacketOut { actions, pkt: Some(ack), .. })) => {
            assert_eq!(actions, Actions::output(1));
            let s = ack.segment().unwrap();
            assert_eq!((s.ack, s.window, s.timestamps), (SeqNum(6000), 0, Some((8, 9))));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(c.devices.handoff(MN).map(|h| h.gate), Some(ZwaGate::Enabled));
}

#[test]
fn zwa_app_replays_on_association_through_the_new_ap_and_removes_its_ack_copy_entry() {
    let mut f = running(true);
    f.station(AP1, StationEvent::Disassociated, MN);
    f.pump();
    f.take_delivered();
    for k in 0..3 {
        f.send(S1, 1, data(2000 + 1000 * k, 1000, 1, Some((130 + k, 50))));
    }
    f.send(S1, 1, data(3000, 1000, 1, Some((140, 50))));
    assert_eq!(f.take_delivered().len(), 4, "four ZWAs");
    assert_eq!(zwa(&f).core.counters.stored, 3);
    assert_eq!(zwa(&f).core.counters.duplicates, 1);
    f.station(AP2, StationEvent::Associated, MN);
    f.pump();
    let replayed: Vec<u32> = f.take_delivered().iter().map(|x| (x.0, x.1, x.2.segment().unwrap().seq.0)).map(|(d, p, s)| {
        assert_eq!((d, p), (AP2, WPORT));
        s
    }).collect();
    assert_eq!(replayed, vec![2000, 3000, 4000]);
    let copy = f.dps[&AP2].table().entries()[0];
    assert_eq!((copy.priority, copy.actions), (ZWA_PRIORITY, Actions::new(&[Action::Output(1), Action::Controller]).unwrap()));
    // No ACK within the replay's 200 ms timer: the head goes again.
    f.advance(Instant::from_millis(200));
    let again: Vec<(Dpid, PortNo, u32)> = f.take_delivered().iter().map(|x| (x.0, x.1, x.2.segment().unwrap().seq.0)).collect();
    assert_eq!(again, vec![(AP2, WPORT, 2000)]);
    // The station's ACKs go to the CN and, copied, to the replay.
    let mut ack = mn_ack(5000, 20_000);
    ack.segment_mut().unwrap().src_port = MN_PORT;
    f.send(AP2, WPORT, ack);
    assert_eq!(f.take_delivered(), vec![(S1, 1, ack)]);
    assert_eq!(zwa(&f).core.counters.replays_done, 1);
    assert!(f.dps[&AP2].table().entries().iter().all(|e| e.priority != ZWA_PRIORITY), "copy entry deleted");
    assert_eq!(f.ctl.counters().iter().find(|c| c.0 == "zwa_handoffs").map(|c| c.1), Some(1));
}

#[test]
fn an_ap_without_entries_for_the_station_enables_zwa_at_once() {
    let mut c = seed_controller(true);
    let t = Instant::from_millis(5);
    c.devices.associate(MN, airtcp_core::MacAddr::local(2), (AP1, WPORT));
    let notice = StationNotice { event: StationEvent::Disassociated, station_ip: MN, station_mac: airtcp_core::MacAddr::local(2), port: WPORT, at: t, counters: None };
    c.handle_message(t, AP1, &OfMessage::StationNotice(notice));
    assert_eq!(c.devices.handoff(MN).map(|h| h.gate), Some(ZwaGate::Enabled));
    assert_eq!(c.app::<StatsModule>().map(|s| (s.enabled, s.disabled)), Some((1, 0)));
}

/// The whole handoff twice from scratch: the control-message logs are identical.
#[test]
fn a_handoff_is_deterministic() {
    let run = || {
        let mut f = running(true);
        f.station(AP1, StationEvent::Disassociated, MN);
        f.pump();
        for k in 0..5 {
            f.send(S1, 1, data(2000 + 1000 * k, 1000, 1, Some((130 + k, 50))));
        }
        f.station(AP2, StationEvent::Associated, MN);
        f.pump();
        f.advance(Instant::from_millis(200));
        f.send(AP2, WPORT, mn_ack(7000, 20_000));
        (format!("{:?}", f.log), f.take_delivered(), f.ctl.counters())
    };
    assert_eq!(run(), run());
}

#[test]
fn bare_tcp_controller_routes_but_never_answers_for_an_away_station() {
    let mut f = Fabric::new(Controller::seed000(topo(), false, None));
    f.station(AP1, StationEvent::Associated, MN);
    f.pump();
    f.send(S1, 1, data(1000, 1000, 1, None));
    f.station(AP1, StationEvent::Disassociated, MN);
    f.pump();
    f.take_delivered();
    f.send(S1, 1, data(2000, 1000, 1, None));
    assert!(f.take_delivered().is_empty(), "dropped: no route, no ZWA");
    f.station(AP2, StationEvent::Associated, MN);
    f.pump();
    let p = data(3000, 1000, 1, None);
    f.send(S1, 1, p);
    assert_eq!(f.take_delivered(), vec![(AP2, WPORT, p)]);
    assert!(f.ctl.app::<ZwaApp>().is_none());
}
