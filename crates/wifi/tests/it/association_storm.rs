//! Stations that start scanning at the same instant must all associate
//! within a bound (see `storm_bound`), not collide probe after probe.
//!
//! Layout: one 802.11a AP on channel 36, n stations on a 10 m circle
//! around it, every station scanning actively over channels 36, 40, 44
//! and 48 from t = 0.

use crate::common;
use airtcp_core::{Duration, Instant};
use airtcp_wifi::medium::{Wlan, WlanOutput};
use airtcp_wifi::mgmt::{ApSpec, MgmtEvent, MgmtSpec, StaSpec};
use airtcp_wifi::phy::{Rate, Standard};

use common::{log_distance, star};

/// Times at which each station associated (None: not within `secs`).
fn associate_all(n: usize, secs: u64, seed: u64) -> Vec<Option<Instant>> {
    associate_with(n, secs, seed, false)
}

/// The same, the stations taking every probe response they overhear while
/// scanning (`overhear`) or only their own.
fn associate_with(n: usize, secs: u64, seed: u64, overhear: bool) -> Vec<Option<Instant>> {
    let specs = star(Standard::A, Rate::OFDM54, n, 10.0, |r| {
        r.mgmt = match r.ap {
            None => MgmtSpec::Ap(ApSpec::new("storm")),
            Some(_) => {
                let mut s = StaSpec::new("storm", vec![36]);
                s.overhear_probe_responses = overhear;
                MgmtSpec::Station(s)
            }
        };
        r.ap = None;
    });
    let mut w = Wlan::new(specs, log_distance(), None, seed);
    w.start();
    let end = Instant::ZERO + Duration::from_secs(secs);
    let mut at = vec![None; n + 1];
    let mut left = n;
    while let Some(t) = w.poll_timeout() {
        if t > end || left == 0 {
            break;
        }
        w.handle_timeout(t);
        while let Some(o) = w.poll_output() {
            if let WlanOutput::Mgmt { radio, event: MgmtEvent::Associated { .. } } = o {
                if at[radio as usize].is_none() {
                    at[radio as usize] = Some(t);
                    left -= 1;
                }
            }
        }
    }
    at[1..].to_vec()
}

fn last_ms(at: &[Option<Instant>]) -> Option<f64> {
    at.iter().try_fold(0.0f64, |m, t| t.map(|t| m.max(t.0 as f64 / 1e6)))
}

/// Two scan rounds: a station whose probe was lost in the first round
/// (its dwell ends by MaxChannelTime) waits at most 1.5 x the rescan
/// interval (the jitter's upper end), scans again (MaxChannelTime), and
/// authenticates and associates, each exchange allowed one lost response
/// (a response timeout). In the second round the failed stations are
/// spread over a second of jitter, so their probes no longer meet in the
/// same slot.
fn storm_bound() -> Duration {
    let s = StaSpec::new("storm", vec![36]);
    Duration::from_nanos(2 * s.max_channel_time.as_nanos() + s.rescan_interval.as_nanos() * 3 / 2 + 2 * s.response_timeout.as_nanos())
}

fn check_storm(n: usize) {
    let bound = storm_bound().as_nanos() as f64 / 1e6;
    for seed in 1..=3 {
        let at = associate_all(n, 10, seed);
        let last = last_ms(&at).unwrap_or_else(|| panic!("n={n} seed={seed}: not every station associated in 10 s"));
        assert!(last <= bound, "n={n} seed={seed}: last association at {last} ms, bound {bound} ms");
    }
}

#[test]
fn one_station_associates_after_one_dwell() {
    // Probe, response within MinChannelTime, stay to MaxChannelTime (40 ms),
    // then authentication and association (about a millisecond).
    let last = last_ms(&associate_all(1, 1, 1)).expect("associated");
    assert!((40.0..42.0).contains(&last), "{last} ms");
}

#[test]
fn twenty_five_stations_starting_together_associate_within_two_rounds() {
    check_storm(25);
}

#[test]
fn hundred_stations_starting_together_associate_within_two_rounds() {
    check_storm(100);
}

#[test]
fn stations_that_overhear_probe_responses_join_after_one_dwell() {
    // Seed 7 is one of the slow ones (so are 10 and 12 of seeds 1-12 with
    // the radios' streams keyed by name): of 25 probe requests sent
    // together only a few get through, and the AP's first beacon falls
    // after the 40 ms dwell, so most stations hear nothing and rescan about
    // a second later. A station that takes the responses addressed to the
    // others (mac80211 scanning from a random address) learns the AP from
    // them.
    let own = last_ms(&associate_with(25, 5, 7, false)).expect("associated");
    assert!(own > 500.0, "seed 7 needs a rescan with only its own responses: {own} ms");
    for seed in [7, 1, 2] {
        let at = associate_with(25, 5, seed, true);
        let last = last_ms(&at).unwrap_or_else(|| panic!("seed {seed}: not every station associated"));
        // MaxChannelTime, then 25 authentications and associations in turn.
        assert!(last < 100.0, "seed {seed}: last association at {last} ms");
    }
}
