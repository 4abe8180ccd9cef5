//! Shared drivers for the medium: radios placed by hand, saturated senders,
//! and a loop that runs the medium to a time limit.
#![allow(dead_code)]

use airtcp_core::{Duration, Instant};
use airtcp_wifi::mac::MacParams;
use airtcp_wifi::medium::{RadioSpec, Wlan, WlanOutput};
use airtcp_wifi::mobility::{Mobility, Pos};
use airtcp_wifi::phy::{PathLoss, RadioParams, Rate, Standard};

/// ns-3's default LogDistance model (exponent 3, 46.6777 dB at 1 m).
pub fn log_distance() -> PathLoss {
    PathLoss::LogDistance {
        exponent: 3.0,
        reference_m: 1.0,
        reference_loss_db: 46.6777,
    }
}

pub fn radio(std: Standard, rate: Rate, x: f64, y: f64, ap: Option<u32>) -> RadioSpec {
    RadioSpec {
        name: String::new(),
        mobility: Mobility::Static(Pos { x, y, z: 0.0 }),
        channel: std.default_channel(),
        phy: RadioParams::default(),
        mac: MacParams::new(std, rate),
        ap,
        mgmt: Default::default(),
    }
}

/// Radio 0 an AP at the origin, radios 1..=n stations on a circle of
/// `radius` metres around it (the ns-3 anchor's layout).
pub fn star(
    std: Standard,
    rate: Rate,
    n: usize,
    radius: f64,
    tweak: impl Fn(&mut RadioSpec),
) -> Vec<RadioSpec> {
    let mut v = vec![radio(std, rate, 0.0, 0.0, None)];
    for i in 0..n {
        let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        v.push(radio(
            std,
            rate,
            radius * a.cos(),
            radius * a.sin(),
            Some(0),
        ));
    }
    for r in &mut v {
        tweak(r);
    }
    v
}

/// What a saturation run measured.
#[derive(Debug, Default, Clone)]
pub struct Sat {
    /// Frames delivered to the AP per station.
    pub delivered: Vec<u64>,
    pub total: u64,
    pub retry_drops: u64,
}

/// Every station always has a frame for the AP: `ip_bytes` datagrams, a
/// few queued and one more for each the MAC releases. Runs `secs` seconds.
pub fn saturate(specs: Vec<RadioSpec>, ip_bytes: u32, secs: f64, seed: u64) -> (Sat, Wlan) {
    let n = specs.len();
    let mut w = Wlan::new(specs, log_distance(), None, seed);
    let mut next_handle = 0u32;
    for s in 1..n as u32 {
        for _ in 0..4 {
            assert!(w.enqueue(Instant::ZERO, s, next_handle, ip_bytes, 0));
            next_handle += 1;
        }
    }
    let end = Instant::ZERO + Duration::from_nanos((secs * 1e9) as u64);
    let mut sat = Sat {
        delivered: vec![0; n],
        ..Default::default()
    };
    let mut sender_of = std::collections::HashMap::new();
    while let Some(t) = w.poll_timeout() {
        if t > end {
            break;
        }
        w.handle_timeout(t);
        while let Some(o) = w.poll_output() {
            match o {
                WlanOutput::Delivered { handle, radio } => {
                    assert_eq!(radio, 0);
                    *sender_of.entry(handle).or_insert(0u64) += 1;
                    sat.total += 1;
                }
                WlanOutput::Released { radio, .. } => {
                    assert!(w.enqueue(t, radio, next_handle, ip_bytes, 0));
                    next_handle += 1;
                }
                WlanOutput::RetryDrop { .. } => sat.retry_drops += 1,
                WlanOutput::Relay { .. } => panic!("no relaying in a star of uplinks"),
                WlanOutput::Mgmt { .. } | WlanOutput::Air { .. } => {}
            }
        }
    }
    for s in 1..n as u32 {
        sat.delivered[s as usize] = w.counters(s).acked;
    }
    (sat, w)
}
