//! A station's data frames across a disassociation, as Linux mac80211
//! treats them (`ieee80211_set_disassoc` flushes the queues with drop
//! before the disassociation frame; `ieee80211_tx_h_check_assoc` drops data
//! given while not associated): nothing queued before the station left is
//! sent after it reassociates.

use crate::common;
use airtcp_core::{Duration, Instant};
use airtcp_wifi::medium::{Wlan, WlanOutput};
use airtcp_wifi::mgmt::{ApSpec, MgmtSpec, StaSpec};
use airtcp_wifi::phy::{Rate, Standard};

const AP: u32 = 0;
const STA: u32 = 1;

fn ms(x: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(x)
}

/// An AP and a station 10 m away, associated from the start; the station
/// leaves at `leave` (scripted, back to the same AP after `away`).
fn bss(leave: Instant, away: Duration) -> Wlan {
    let mut ap = common::radio(Standard::B, Rate::B1, 0.0, 0.0, None);
    ap.mgmt = MgmtSpec::Ap(ApSpec::new("t"));
    let mut sta = common::radio(Standard::B, Rate::B1, 10.0, 0.0, Some(AP));
    let mut spec = StaSpec::new("t", vec![ap.channel]);
    spec.scripted = vec![(leave, Some(AP))];
    spec.scripted_away = vec![away];
    sta.mgmt = MgmtSpec::Station(spec);
    let mut w = Wlan::new(vec![ap, sta], common::log_distance(), None, 1);
    w.start();
    w
}

/// Run to `until`; returns the data frames the AP received from the
/// station `(t, handle)` and the handles the station's MAC released.
fn run_to(w: &mut Wlan, until: Instant, got: &mut Vec<(Instant, u32)>, released: &mut Vec<u32>) {
    while let Some(t) = w.poll_timeout() {
        if t > until {
            break;
        }
        w.handle_timeout(t);
        while let Some(o) = w.poll_output() {
            match o {
                WlanOutput::Delivered { handle, radio: AP } => got.push((t, handle)),
                WlanOutput::Released { handle, radio: STA } => released.push(handle),
                _ => {}
            }
        }
    }
}

#[test]
fn frames_queued_at_disassociation_are_dropped_not_sent_after_reassociation() {
    let (leave, away) = (ms(500), Duration::from_millis(300));
    let mut w = bss(leave, away);
    let (mut got, mut released) = (Vec::new(), Vec::new());
    run_to(&mut w, ms(499), &mut got, &mut released);
    // 40 frames of 1500 B at 1 Mb/s take about half a second: most still
    // wait when the station leaves a millisecond later.
    for h in 0..40 {
        assert!(w.enqueue(ms(499), STA, h, 1500, AP));
    }
    run_to(&mut w, ms(2_000), &mut got, &mut released);
    let sent_before: Vec<u32> = got.iter().filter(|g| g.0 <= leave + Duration::from_millis(20)).map(|g| g.1).collect();
    assert!(sent_before.len() <= 1, "at most the frame on the air finishes: {sent_before:?}");
    assert!(got.iter().all(|g| g.0 <= leave + Duration::from_millis(20)), "a frame queued before the disassociation was sent after it: {got:?}");
    let flushed = w.counters(STA).disassoc_flushed;
    assert_eq!(flushed as usize + got.len(), 40, "every frame is either sent before leaving or flushed");
    // Each flushed frame went back to the network to be freed.
    assert_eq!(released.len(), 40);
    assert!(w.associated_ap(STA).is_some(), "the station came back");
}

#[test]
fn data_given_while_not_associated_is_refused_and_data_after_reassociation_goes() {
    let (leave, away) = (ms(500), Duration::from_millis(300));
    let mut w = bss(leave, away);
    let (mut got, mut released) = (Vec::new(), Vec::new());
    run_to(&mut w, ms(600), &mut got, &mut released);
    assert!(!w.enqueue(ms(600), STA, 7, 100, AP), "a station that is away takes no data");
    assert_eq!(w.counters(STA).not_associated_drops, 1);
    run_to(&mut w, ms(1_500), &mut got, &mut released);
    assert!(w.associated_ap(STA).is_some());
    assert!(w.enqueue(ms(1_500), STA, 8, 100, AP));
    run_to(&mut w, ms(1_600), &mut got, &mut released);
    assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), [8]);
}

/// The AP a station is associated with is kept in one place: after a
/// scripted roam from AP1 (channel 1) to AP2 (channel 6), the medium
/// reports AP2 and the station's data goes to AP2 — a frame for the
/// distribution system, addressed to the AP it was first given (AP1), is
/// taken by the AP the station is with now.
#[test]
fn after_a_roam_the_reported_ap_is_the_one_the_data_goes_to() {
    const AP1: u32 = 0;
    const AP2: u32 = 1;
    const STA2: u32 = 2;
    let mut ap1 = common::radio(Standard::B, Rate::B1, 0.0, 0.0, None);
    ap1.channel = 1;
    ap1.mgmt = MgmtSpec::Ap(ApSpec::new("t"));
    let mut ap2 = common::radio(Standard::B, Rate::B1, 20.0, 0.0, None);
    ap2.channel = 6;
    ap2.mgmt = MgmtSpec::Ap(ApSpec::new("t"));
    let mut sta = common::radio(Standard::B, Rate::B1, 10.0, 0.0, Some(AP1));
    sta.channel = 1;
    let mut spec = StaSpec::new("t", vec![1, 6]);
    spec.scripted = vec![(ms(200), Some(AP2))];
    sta.mgmt = MgmtSpec::Station(spec);
    let mut w = Wlan::new(vec![ap1, ap2, sta], common::log_distance(), None, 1);
    w.start();
    assert_eq!(w.associated_ap(STA2), Some(AP1), "associated from the start");
    let mut delivered = Vec::new();
    let run = |w: &mut Wlan, until: Instant, delivered: &mut Vec<(u32, u32)>| {
        while let Some(t) = w.poll_timeout().filter(|&t| t <= until) {
            w.handle_timeout(t);
            while let Some(o) = w.poll_output() {
                if let WlanOutput::Delivered { handle, radio } = o {
                    delivered.push((radio, handle));
                }
            }
        }
    };
    assert!(w.enqueue(ms(100), STA2, 1, 100, AP1));
    run(&mut w, ms(150), &mut delivered);
    assert_eq!(delivered, [(AP1, 1)], "before the roam the frame goes to AP1");
    run(&mut w, ms(1_000), &mut delivered);
    assert_eq!(w.associated_ap(STA2), Some(AP2), "the station roamed");
    assert!(w.enqueue(ms(1_000), STA2, 2, 100, AP1));
    run(&mut w, ms(1_100), &mut delivered);
    assert_eq!(delivered, [(AP1, 1), (AP2, 2)], "after the roam the frame goes to AP2");
}
