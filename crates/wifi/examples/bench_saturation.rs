//! The saturation benchmark of the medium against ns-3 (docs/perf-wifi-saturation.md): `N`
//! saturated stations 2 m around an AP (802.11a at `RATE` Mb/s, 1500-byte
//! payloads in 1528-byte IP datagrams, as the ns-3 anchor `wifi_sat`) for
//! `SECONDS` simulated. Prints wall time, frames and delivered throughput.
//!
//!   bench_saturation [N] [RATE] [SECONDS]   (default 10 54 60)

use airtcp_core::{Duration, Instant};
use airtcp_wifi::mac::MacParams;
use airtcp_wifi::medium::{RadioSpec, Wlan, WlanOutput};
use airtcp_wifi::mobility::{Mobility, Pos};
use airtcp_wifi::phy::{PathLoss, RadioParams, Rate, Standard};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: f64| args.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(d);
    let (n, mbps, secs) = (arg(0, 10.0) as usize, arg(1, 54.0), arg(2, 60.0));
    let rate = Rate::from_mbps(Standard::A, mbps).expect("an 802.11a rate");
    let radio = |x: f64, y: f64, ap: Option<u32>| RadioSpec {
        name: String::new(),
        mobility: Mobility::Static(Pos { x, y, z: 0.0 }),
        channel: 36,
        phy: RadioParams::default(),
        mac: MacParams::new(Standard::A, rate),
        ap,
        mgmt: Default::default(),
    };
    let mut specs = vec![radio(0.0, 0.0, None)];
    for i in 0..n {
        let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        specs.push(radio(2.0 * a.cos(), 2.0 * a.sin(), Some(0)));
    }
    let t0 = std::time::Instant::now();
    let mut w = Wlan::new(
        specs,
        PathLoss::LogDistance {
            exponent: 3.0,
            reference_m: 1.0,
            reference_loss_db: 46.6777,
        },
        None,
        1,
    );
    let mut handle = 0u32;
    for s in 1..=n as u32 {
        for _ in 0..4 {
            w.enqueue(Instant::ZERO, s, handle, 1528, 0);
            handle += 1;
        }
    }
    let end = Instant::ZERO + Duration::from_nanos((secs * 1e9) as u64);
    let (mut delivered, mut wakes) = (0u64, 0u64);
    while let Some(t) = w.poll_timeout() {
        if t > end {
            break;
        }
        w.handle_timeout(t);
        wakes += 1;
        while let Some(o) = w.poll_output() {
            match o {
                WlanOutput::Delivered { .. } => delivered += 1,
                WlanOutput::Released { radio, .. } => {
                    w.enqueue(t, radio, handle, 1528, 0);
                    handle = handle.wrapping_add(1);
                }
                _ => {}
            }
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let tx: u64 = (1..=n as u32).map(|s| w.counters(s).data_tx).sum();
    println!(
        "n {n} rate {mbps} Mb/s sim {secs} s: wall {wall:.3} s, {wakes} wake-ups, {tx} data transmissions, throughput {:.3} Mb/s",
        delivered as f64 * 1500.0 * 8.0 / secs / 1e6
    );
}
