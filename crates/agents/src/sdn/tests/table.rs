//! Flow-table semantics: priority, ties, wildcards and masks, add/modify/
//! delete (strict and not), overlap, counters, malformed flow-mods.

use airtcp_core::Instant;

use super::super::msg::*;
use super::super::ofmatch::{BadMatch, Ipv4Masked, Match, PacketFields};
use super::super::table::FlowTable;
use super::super::types::*;
use super::*;

const T0: Instant = Instant::ZERO;

fn fields(in_port: PortNo, p: &airtcp_core::Packet) -> PacketFields {
    PacketFields::of(in_port, p, None)
}

fn hit(t: &mut FlowTable, in_port: PortNo, p: &airtcp_core::Packet) -> Option<Actions> {
    t.lookup(T0, &fields(in_port, p), p.ip_len()).map(|e| e.actions)
}

fn apply(t: &mut FlowTable, fm: FlowMod) -> (Result<(), OfError>, Vec<FlowRemoved>) {
    let mut rem = Vec::new();
    (t.apply(T0, &fm, &mut rem), rem)
}

#[test]
fn highest_priority_wins_and_equal_priorities_go_by_install_order() {
    let mut t = FlowTable::new(16);
    let p = data(1, 100, 1, None);
    apply(&mut t, FlowMod::add(10, Match::ANY, Actions::output(1))).0.unwrap();
    apply(&mut t, FlowMod::add(20, Match::to_host(MN), Actions::output(2))).0.unwrap();
    assert_eq!(hit(&mut t, 5, &p), Some(Actions::output(2)));
    // Two overlapping entries at priority 30: the first installed wins.
    apply(&mut t, FlowMod::add(30, Match::from_host(CN), Actions::output(3))).0.unwrap();
    apply(&mut t, FlowMod::add(30, Match { ip_proto: Some(6), ..Match::ANY }, Actions::output(4))).0.unwrap();
    assert_eq!(hit(&mut t, 5, &p), Some(Actions::output(3)));
    let order: Vec<u16> = t.entries().iter().map(|e| e.priority).collect();
    assert_eq!(order, vec![30, 30, 20, 10]);
    assert_eq!(t.entries()[0].counters, FlowCounters { packets: 1, bytes: 140 });
}

#[test]
fn wildcards_masks_ports_and_in_port() {
    let mut t = FlowTable::new(16);
    let p = data(1, 0, 1, None);
    let tcp_to = |port| Match { ip_proto: Some(6), tp_dst: Some(port), ..Match::ANY };
    let net = Match { ipv4_dst: Some(Ipv4Masked::prefix([10, 0, 9, 0], 24)), in_port: Some(3), ..Match::ANY };
    apply(&mut t, FlowMod::add(50, tcp_to(80), Actions::output(1))).0.unwrap();
    apply(&mut t, FlowMod::add(40, net, Actions::output(2))).0.unwrap();
    apply(&mut t, FlowMod::add(30, tcp_to(MN_PORT), Actions::output(7))).0.unwrap();
    assert_eq!(hit(&mut t, 3, &p), Some(Actions::output(2)), "prefix /24 and in_port 3");
    assert_eq!(hit(&mut t, 4, &p), Some(Actions::output(7)), "in_port 4 misses the prefix entry");
    assert_eq!(hit(&mut t, 4, &mn_ack(1, 0)), None, "an ACK to port 5001 matches nothing");
    // The Ethernet fields of a bare packet are unknown: a match on them misses.
    let eth = Match { eth_dst: Some(airtcp_core::MacAddr::local(1)), ..Match::ANY };
    apply(&mut t, FlowMod::add(60, eth, Actions::output(9))).0.unwrap();
    assert_eq!(hit(&mut t, 3, &p), Some(Actions::output(2)));
    let f = PacketFields::of(3, &p, Some((airtcp_core::MacAddr::local(2), airtcp_core::MacAddr::local(1))));
    assert_eq!(t.lookup(T0, &f, 40).map(|e| e.actions), Some(Actions::output(9)));
}

#[test]
fn nonstrict_delete_takes_every_entry_it_covers_and_strict_only_the_identical_one() {
    let mut t = FlowTable::new(16);
    let to_mn = Match::to_host(MN);
    let to_mn_tcp = Match { ip_proto: Some(6), ..to_mn };
    let to_cn = Match::to_host(CN);
    for (prio, m) in [(10, to_mn), (20, to_mn_tcp), (10, to_cn)] {
        apply(&mut t, FlowMod::add(prio, m, Actions::output(1)).with_flags(OFPFF_SEND_FLOW_REM)).0.unwrap();
    }
    // Strict: priority must match too.
    let mut strict = FlowMod::add(99, to_mn, Actions::DROP);
    strict.command = FlowModCommand::DeleteStrict;
    assert_eq!(apply(&mut t, strict).1.len(), 0);
    strict.priority = 10;
    let (r, rem) = apply(&mut t, strict);
    r.unwrap();
    assert_eq!((rem.len(), rem[0].r#match, rem[0].reason), (1, to_mn, RemovedReason::Delete));
    assert_eq!(t.len(), 2);
    // Non-strict delete of to_mn covers the more specific TCP entry, not to_cn.
    apply(&mut t, FlowMod::add(10, to_mn, Actions::output(1))).0.unwrap();
    let (_, rem) = apply(&mut t, FlowMod::delete(to_mn));
    assert_eq!(rem.len(), 1, "only entries with SEND_FLOW_REM report");
    assert_eq!(t.entries().iter().map(|e| e.r#match).collect::<Vec<_>>(), vec![to_cn]);
    // A more specific request does not take a wider entry.
    apply(&mut t, FlowMod::delete(Match { tp_dst: Some(1), ip_proto: Some(6), ..to_cn })).0.unwrap();
    assert_eq!(t.len(), 1);
    // out_port filter: only entries that output there.
    let mut d = FlowMod::delete(Match::ANY);
    d.out_port = 2;
    apply(&mut t, d).0.unwrap();
    assert_eq!(t.len(), 1);
    d.out_port = 1;
    apply(&mut t, d).0.unwrap();
    assert!(t.is_empty());
}

#[test]
fn add_of_an_identical_entry_replaces_it_keeping_counters_unless_reset() {
    let mut t = FlowTable::new(16);
    let p = data(1, 100, 1, None);
    apply(&mut t, FlowMod::add(10, Match::to_host(MN), Actions::output(1))).0.unwrap();
    hit(&mut t, 1, &p);
    let (r, rem) = apply(&mut t, FlowMod::add(10, Match::to_host(MN), Actions::output(2)).with_flags(OFPFF_SEND_FLOW_REM));
    r.unwrap();
    assert!(rem.is_empty(), "a replaced entry sends no flow-removed");
    assert_eq!((t.len(), t.entries()[0].actions, t.entries()[0].counters.packets), (1, Actions::output(2), 1));
    apply(&mut t, FlowMod::add(10, Match::to_host(MN), Actions::output(2)).with_flags(OFPFF_RESET_COUNTS)).0.unwrap();
    assert_eq!(t.entries()[0].counters, FlowCounters::default());
    // CHECK_OVERLAP refuses an overlapping entry of equal priority only.
    let ov = FlowMod::add(10, Match::from_host(CN), Actions::output(3)).with_flags(OFPFF_CHECK_OVERLAP);
    assert_eq!(apply(&mut t, ov).0, Err(OfError::Overlap));
    assert_eq!(apply(&mut t, FlowMod { priority: 11, ..ov }).0, Ok(()));
    let disjoint = FlowMod::add(10, Match::to_host(CN), Actions::output(3)).with_flags(OFPFF_CHECK_OVERLAP);
    assert_eq!(apply(&mut t, disjoint).0, Ok(()));
}

#[test]
fn modify_changes_actions_of_covered_entries_and_strict_only_the_exact_one() {
    let mut t = FlowTable::new(16);
    let to_mn_tcp = Match { ip_proto: Some(6), ..Match::to_host(MN) };
    apply(&mut t, FlowMod::add(10, Match::to_host(MN), Actions::output(1))).0.unwrap();
    apply(&mut t, FlowMod::add(20, to_mn_tcp, Actions::output(1))).0.unwrap();
    let mut m = FlowMod::add(10, to_mn_tcp, Actions::output(5));
    m.command = FlowModCommand::ModifyStrict;
    apply(&mut t, m).0.unwrap();
    assert_eq!(t.entries().iter().map(|e| e.actions).collect::<Vec<_>>(), vec![Actions::output(1); 2], "priority 10 != 20");
    m.priority = 20;
    apply(&mut t, m).0.unwrap();
    assert_eq!(t.entries()[0].actions, Actions::output(5));
    let mut m = FlowMod::add(0, Match::to_host(MN), Actions::output(6));
    m.command = FlowModCommand::Modify;
    apply(&mut t, m).0.unwrap();
    assert!(t.entries().iter().all(|e| e.actions == Actions::output(6)));
    // A modify that selects nothing adds nothing (OF 1.2+).
    m.r#match = Match::to_host(CN);
    apply(&mut t, m).0.unwrap();
    assert_eq!(t.len(), 2);
}

#[test]
fn cookie_mask_selects_entries() {
    let mut t = FlowTable::new(16);
    for c in [0x100u64, 0x101, 0x200] {
        let mut fm = FlowMod::add(c as u16, Match::ANY, Actions::output(1));
        fm.cookie = c;
        apply(&mut t, fm).0.unwrap();
    }
    let mut d = FlowMod::delete(Match::ANY);
    d.cookie = 0x100;
    d.cookie_mask = 0xf00;
    apply(&mut t, d).0.unwrap();
    assert_eq!(t.entries().iter().map(|e| e.cookie).collect::<Vec<_>>(), vec![0x200]);
}

#[test]
fn malformed_flow_mods_are_refused_with_an_error() {
    let mut t = FlowTable::new(1);
    let no_proto = Match { tp_dst: Some(80), ..Match::ANY };
    assert_eq!(apply(&mut t, FlowMod::add(1, no_proto, Actions::output(1))).0, Err(OfError::BadMatch(BadMatch::BadPrereq)));
    let icmp_port = Match { ip_proto: Some(1), tp_dst: Some(80), ..Match::ANY };
    assert_eq!(apply(&mut t, FlowMod::delete(icmp_port)).0, Err(OfError::BadMatch(BadMatch::BadPrereq)));
    let bad_mask = Match { ipv4_dst: Some(Ipv4Masked { addr: [10, 0, 0, 1], mask: [255, 255, 255, 0] }), ..Match::ANY };
    assert_eq!(apply(&mut t, FlowMod::add(1, bad_mask, Actions::output(1))).0, Err(OfError::BadMatch(BadMatch::BadWildcards)));
    assert_eq!(apply(&mut t, FlowMod::add(1, Match::ANY, Actions::output(0))).0, Err(OfError::BadOutPort));
    assert_eq!(apply(&mut t, FlowMod::add(1, Match::ANY, Actions::output(OFPP_ANY))).0, Err(OfError::BadOutPort));
    apply(&mut t, FlowMod::add(1, Match::ANY, Actions::output(1))).0.unwrap();
    assert_eq!(apply(&mut t, FlowMod::add(2, Match::ANY, Actions::output(1))).0, Err(OfError::TableFull));
    assert_eq!(apply(&mut t, FlowMod::add(1, Match::ANY, Actions::output(2))).0, Ok(()), "replacing needs no room");
    assert!(Actions::new(&[Action::Controller; 5]).is_none());
}
