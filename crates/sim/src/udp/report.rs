//! `summary.json`'s `udp_flows`: one object per `[[udp_flows]]` entry with
//! the sender's counts and the receiver's iperf-style metrics.

use airtcp_core::Instant;

use super::UdpFlow;
use crate::scenario::udp::UdpApp;
use crate::scenario::Scenario;
use crate::summary::UdpFlowSummary;

/// Per flow: `sent_datagrams`/`sent_bytes`; `received_datagrams`/
/// `received_bytes` (distinct datagrams); `lost` (missing below the
/// highest sequence number received, as iperf counts) and `loss_fraction`
/// (lost / (received + lost)); `out_of_order`, `duplicates`;
/// `throughput_bps` and `offered_bps` (received / sent payload bits over
/// the flow's active time, start to min(stop, end of run));
/// `jitter_s` (RFC 3550 §6.4.1 at the end of the run); `delay_mean_s`,
/// `delay_min_s`, `delay_max_s` (one-way, null before the first datagram).
pub(crate) fn udp_summaries(sc: &Scenario, flows: &[UdpFlow], end: Instant) -> Vec<UdpFlowSummary> {
    flows
        .iter()
        .zip(&sc.udp_flows)
        .map(|(f, spec)| {
            let r = &f.receiver;
            let active = crate::secs(spec.stop.min(end.saturating_since(Instant::ZERO)).0.saturating_sub(spec.start.0));
            let per_s = |bytes: u64| if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 };
            let lost = r.lost();
            let seen = r.received + lost;
            let some = |ns: u64| (r.received > 0).then(|| crate::secs(ns));
            UdpFlowSummary {
                name: spec.name.clone(),
                from: sc.nodes[spec.from].name.clone(),
                to: sc.nodes[spec.to].name.clone(),
                app: match spec.app {
                    UdpApp::Cbr { .. } => "cbr",
                    UdpApp::OnOff { .. } => "onoff",
                    UdpApp::Saturated { .. } => "saturated",
                    UdpApp::Trace { .. } => "trace",
                }
                .to_string(),
                start_s: crate::secs(spec.start.0),
                active_s: active,
                sent_datagrams: f.sent,
                sent_bytes: f.sent_bytes,
                received_datagrams: r.received,
                received_bytes: r.bytes,
                lost,
                loss_fraction: if seen > 0 { lost as f64 / seen as f64 } else { 0.0 },
                out_of_order: r.out_of_order,
                duplicates: r.duplicates,
                throughput_bps: per_s(r.bytes),
                offered_bps: per_s(f.sent_bytes),
                jitter_s: r.jitter_ns / 1e9,
                delay_mean_s: r.delay_mean_ns().map(|d| d / 1e9),
                delay_min_s: some(r.delay_min_ns),
                delay_max_s: some(r.delay_max_ns),
            }
        })
        .collect()
}
