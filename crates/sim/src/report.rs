//! Turning a finished simulation into the run's summary and event log. The
//! simulator hands over a [`Finished`] (defined here, so the report depends on
//! the simulator's parts and the simulator on the report, never both ways).

use serde_json::json;

use airtcp_core::Instant;
use airtcp_tcp::Event;

use crate::scenario::{AppSpec, TraceModel, TraceSpec, DIR_NAMES};
use airtcp_wifi::mgmt::{MgmtEvent, Trigger};
use crate::events::{Raw, EVENT_KINDS};
use crate::flow::FlowState;
use crate::network::NetStats;
use crate::scenario::Scenario;
use crate::world::{GaugeSeries, HostEp};
use crate::summary::{
    AgentSummary, DriveSeries, EhnCounters, FlowSummary, FreezeCounters, Gauge, HandoffTime, LinkSummary, RadioSummary,
    ReceiverCounters, RunSummary, SenderCounters, SignalSeries, Summary, TraceReport, Versions, WitcpCounters,
};
use crate::{LogEvent, RunOutput};

/// One agent's end-of-run state for the report.
pub(crate) struct AgentReport {
    pub node: usize,
    pub kind: &'static str,
    pub counters: Vec<(&'static str, u64)>,
    pub drops: u64,
    pub series: GaugeSeries,
}

/// Everything the report needs, moved out of the simulator.
pub(crate) struct Finished<'s> {
    pub sc: &'s Scenario,
    pub seed: u64,
    pub end: Instant,
    pub events_executed: u64,
    pub links: Vec<[crate::link::LinkDir; 2]>,
    pub eps: Vec<HostEp>,
    pub flows: Vec<FlowState>,
    pub udp: Vec<crate::udp::UdpFlow>,
    pub log: Vec<(Instant, Raw)>,
    pub net_stats: NetStats,
    pub unmatched: u64,
    pub by_kind: [u64; EVENT_KINDS.len()],
    pub agents: Vec<AgentReport>,
    /// Each radio's MAC counters, in `[[radios]]` order.
    pub radios: Vec<airtcp_wifi::mac::MacCounters>,
    /// Each station's beacon signal samples and the AP it ends with.
    pub radio_signal: Vec<Vec<(Instant, f32)>>,
    pub radio_ap: Vec<Option<u32>>,
    /// The SDN control plane's counters, when the scenario has one.
    pub sdn: Option<crate::summary::SdnSummary>,
    /// The mesh's links, routes and measured deliveries, when the scenario has one.
    pub mesh: Option<crate::summary::MeshSummary>,
}

/// One flow's entry of `flows`, its analysis taken from the flow's tap.
fn flow_summary(fin: &Finished<'_>, i: usize, analysis: crate::metrics::FlowAnalysis) -> FlowSummary {
    let sc = fin.sc;
    let f = &fin.flows[i];
    let spec = &sc.flows[i];
    let snd = &fin.eps[f.client as usize];
    let rcv = &fin.eps[f.server as usize];
    let st = snd.stats();
    let rst = rcv.stats();
    let response = f.response_time();
    let goodput_time = match response {
        Some(r) => crate::secs(r.0),
        None => crate::secs(fin.end.saturating_since(f.start).0),
    };
    let goodput = if goodput_time > 0.0 { f.recv.delivered as f64 * 8.0 / goodput_time } else { 0.0 };
    let (rtt_min, rtt_mean) = if st.rtt_samples > 0 {
        (Some(st.rtt_min_us as f64 * 1e-6), Some(st.rtt_sum_us as f64 / st.rtt_samples as f64 * 1e-6))
    } else {
        (None, None)
    };
    FlowSummary {
        name: spec.name.clone(),
        from: sc.nodes[spec.from].name.clone(),
        to: sc.nodes[spec.to].name.clone(),
        app: match spec.app { AppSpec::Bulk => "bulk", AppSpec::Transfer { .. } => "transfer" }.to_string(),
        start_s: crate::secs(f.start.0),
        goodput_bps: goodput,
        goodput_time_s: goodput_time,
        bytes_delivered: f.recv.delivered,
        retransmissions: st.retransmissions,
        timeouts: st.timeouts,
        fast_retransmits: st.fast_retransmits,
        fast_recoveries: f.fast_recoveries,
        spurious_rtos_detected: st.spurious_rtos_detected,
        tlp_probes_sent: st.tlp_probes_sent,
        tlp_recoveries: st.tlp_recoveries,
        rack_reo_timeouts: st.rack_reo_timeouts,
        loss_undos: st.loss_undos,
        recovery_undos: st.recovery_undos,
        dsack_undos: st.dsack_undos,
        dsacks_received: st.dsacks_received,
        ecn: snd.ecn_enabled(),
        ecn_ece_received: st.ecn_ece_received,
        cwr_reductions: st.cwr_reductions,
        loss_state_entries: f.loss_entries,
        response_time_s: response.map(|r| crate::secs(r.0)),
        srtt_min_s: rtt_min,
        srtt_mean_s: rtt_mean,
        rtt_samples: st.rtt_samples,
        zero_window_events: f.zero_windows,
        window_probes: st.window_probes,
        recv_order_errors: f.recv.order_errors,
        closed: f.closed.iter().all(|c| matches!(c, Some((_, false)))),
        client_state: format!("{:?}", snd.state()),
        server_state: format!("{:?}", rcv.state()),
        analysis,
        sender: SenderCounters {
            segs_sent: st.segs_sent,
            data_segs_sent: st.data_segs_sent,
            segs_received: st.segs_received,
            bytes_acked: st.bytes_acked,
            dup_acks_received: st.dup_acks_received,
            sndbuf_max: st.sndbuf_max,
            nagle_deferrals: st.nagle_deferrals,
            cwnd_restarts: st.cwnd_restarts,
        },
        receiver: ReceiverCounters {
            segs_sent: rst.segs_sent,
            segs_received: rst.segs_received,
            bytes_delivered: rst.bytes_delivered,
            dsacks_sent: rst.dsacks_sent,
            acks_compressed: rst.acks_compressed,
            dup_data_segs_received: rst.dup_data_segs_received,
            ecn_ce_received: rst.ecn_ce_received,
            rcv_wnd_max: rst.rcv_wnd_max,
            rcvbuf_grows: rst.rcvbuf_grows,
            rcvbuf_max: rst.rcvbuf_max,
        },
        // Freeze-TCP (either side may sit on a station): warnings that
        // froze it and TR-ACKs sent on reconnection.
        freeze: spec.tcp.freeze.then(|| FreezeCounters { zwas: st.freeze_zwas + rst.freeze_zwas, tr_acks: st.freeze_tr_acks + rst.freeze_tr_acks }),
        // Seed 001's sender: freezes on EHO-ACK, resumptions on EHC-ACK
        // (or the witcp_max_freeze guard), and the time spent frozen.
        witcp: spec.tcp.witcp.then(|| WitcpCounters {
            freezes: st.witcp_freezes,
            resumes: st.witcp_resumes,
            forced_thaws: st.witcp_forced_thaws,
            ignored: st.witcp_ignored,
            frozen_s: crate::secs(st.witcp_frozen_ns),
        }),
        ehn: spec.tcp.ehn.then(|| EhnCounters { notifications: st.ehn_received }),
    }
}

pub(crate) fn output(mut fin: Finished<'_>, run_wall_s: f64) -> RunOutput {
    let sc = fin.sc;
    let analyses: Vec<_> = fin.flows.iter_mut().map(|f| f.tap.finish()).collect();
    let flows = analyses.into_iter().enumerate().map(|(i, a)| flow_summary(&fin, i, a)).collect();
    let links = sc
        .links
        .iter()
        .zip(&fin.links)
        .map(|(l, dirs)| {
            let trace = |d: usize| l.trace[d].as_ref().map(|t| trace_report(t, fin.end));
            LinkSummary {
                name: l.name.clone(),
                a: sc.nodes[l.a].name.clone(),
                b: sc.nodes[l.b].name.clone(),
                ab: dirs[0].stats.clone(),
                ba: dirs[1].stats.clone(),
                trace_ab: trace(0),
                trace_ba: trace(1),
            }
        })
        .collect();
    let mut scenario = sc.resolved();
    scenario.sim["seed"] = json!(fin.seed);
    let summary = Summary {
        scenario,
        seed: fin.seed,
        versions: Versions { airtcp: env!("CARGO_PKG_VERSION").to_string() },
        flows,
        links,
        agents: agent_summaries(&fin),
        radios: radio_summaries(&fin),
        sdn: fin.sdn.take(),
        mesh: fin.mesh.take(),
        udp_flows: crate::udp::report::udp_summaries(sc, &fin.udp, fin.end),
        run: RunSummary {
            events_executed: fin.events_executed,
            events_by_kind: EVENT_KINDS.iter().zip(fin.by_kind).map(|(k, n)| (k.to_string(), n)).collect(),
            sim_duration_s: crate::secs(fin.end.0),
            misrouted_packets: fin.net_stats.no_route + fin.net_stats.ttl_expired + fin.unmatched,
            no_route_drops: fin.net_stats.no_route,
            ttl_expired_drops: fin.net_stats.ttl_expired,
            unmatched_packets: fin.unmatched,
            echo_replies: fin.net_stats.echo_replies,
            hosts_learned: fin.net_stats.hosts_learned,
            run_wall_s,
        },
    };
    let events = fin.log.iter().map(|&(t, raw)| log_event(&fin, crate::secs(t.0), raw)).collect();
    // Moved, not cloned: the series and segment logs are the largest data of
    // a run, and a copy would double the peak memory.
    let series = fin.flows.iter_mut().map(|f| std::mem::take(&mut f.series)).collect();
    let segments = fin.flows.iter_mut().map(|f| f.take_segments()).collect();
    let udp_series = fin.udp.iter_mut().map(|f| std::mem::take(&mut f.series)).collect();
    RunOutput {
        summary: summary.to_value(),
        series,
        udp_series,
        segments,
        events,
        events_executed: fin.events_executed,
        run_wall_s,
    }
}

/// What a traced direction looked like during the run. For a drive log: its
/// handoffs and a step series of signal and capacity (one point per change of
/// the log's state, each holding until the next), so plots can draw the
/// signal and the handoff markers without re-reading the log.
fn trace_report(t: &TraceSpec, end: Instant) -> TraceReport {
    match &t.model {
        TraceModel::Mahimahi(m) => TraceReport::Mahimahi {
            file: t.file.clone(),
            mean_capacity_bps: m.capacity_bps(),
            period_s: m.period_ms() as f64 / 1000.0,
            opportunities: m.opportunities() as u64,
        },
        TraceModel::Drive(d) => {
            let link = &d.link;
            let times: Vec<Instant> = d.change_times.iter().copied().filter(|&x| x <= end).collect();
            let handoff_times: Vec<HandoffTime> = link
                .handoffs()
                .iter()
                .filter(|h| h.t <= end)
                .map(|h| HandoffTime { t_s: crate::secs(h.t.0), from: h.from.clone(), to: h.to.clone() })
                .collect();
            TraceReport::Drive {
                file: t.file.clone(),
                format: d.format.name().to_string(),
                handoffs: handoff_times.len() as u64,
                handoff_times,
                handoff_outage_s: crate::secs(d.config.handoff_outage.0),
                handoff_drops: d.handoff_drops,
                mean_capacity_bps: link.mean_capacity_bps(Instant::ZERO, end.max(Instant(1))),
                series: DriveSeries {
                    t_s: times.iter().map(|x| crate::secs(x.0)).collect(),
                    signal_dbm: times.iter().map(|&x| link.signal_at(x)).collect(),
                    // With handoff_drops the rate stays up during outages; the
                    // series shows what frames can use either way.
                    capacity_bps: times.iter().map(|&x| if d.drop_windows.iter().any(|w| w.0 <= x && x < w.1) { 0 } else { link.capacity_at(x) }).collect(),
                    loss_prob: times.iter().map(|&x| link.loss_prob(x)).collect(),
                },
            }
        }
    }
}

/// One management step as a log line: `kind` wifi_*, `detail` the radio's
/// node and the AP or station involved.
fn wifi_event(sc: &crate::scenario::Scenario, t_s: f64, radio: u32, event: MgmtEvent) -> LogEvent {
    let w = sc.wifi.as_ref().expect("wifi events come from a scenario with radios");
    let name = |r: u32| sc.nodes[w.radios[r as usize].node].name.as_str();
    let trig = |t: Trigger| match t {
        Trigger::Startup => "startup",
        Trigger::Signal => "signal",
        Trigger::BeaconLoss => "beacon_loss",
        Trigger::Scripted => "scripted",
        Trigger::Kicked => "deauthenticated",
        Trigger::Failed => "failed",
    };
    let me = name(radio);
    let (kind, detail) = match event {
        MgmtEvent::LinkLost { ap, trigger } => ("wifi_link_lost", format!("sta={me} ap={} trigger={}", name(ap), trig(trigger))),
        MgmtEvent::ScanStart { trigger } => ("wifi_scan_start", format!("sta={me} trigger={}", trig(trigger))),
        MgmtEvent::ScanEnd { best: Some((ap, dbm)) } => ("wifi_scan_end", format!("sta={me} best={} signal_dbm={dbm:.1}", name(ap))),
        MgmtEvent::ScanEnd { best: None } => ("wifi_scan_end", format!("sta={me} best=none")),
        MgmtEvent::AuthStart { ap } => ("wifi_auth_start", format!("sta={me} ap={}", name(ap))),
        MgmtEvent::Authenticated { ap } => ("wifi_authenticated", format!("sta={me} ap={}", name(ap))),
        MgmtEvent::AssocStart { ap, reassoc } => ("wifi_assoc_start", format!("sta={me} ap={} reassoc={reassoc}", name(ap))),
        MgmtEvent::Associated { ap, aid, reassoc } => ("wifi_associated", format!("sta={me} ap={} aid={aid} reassoc={reassoc}", name(ap))),
        MgmtEvent::HandoffWarning { ap, trigger } => ("wifi_handoff_warning", format!("sta={me} ap={} trigger={}", name(ap), trig(trigger))),
        MgmtEvent::Stayed { ap } => ("wifi_stayed", format!("sta={me} ap={}", name(ap))),
        MgmtEvent::ApAssociated { sta, aid } => ("wifi_ap_station_joined", format!("ap={me} sta={} aid={aid}", name(sta))),
        MgmtEvent::ApDisassociated { sta } => ("wifi_ap_station_left", format!("ap={me} sta={}", name(sta))),
    };
    LogEvent { t_s, kind: kind.to_string(), flow: None, link: None, detail }
}

/// Per radio: its node, mode, address, channel and MAC counters.
fn radio_summaries(fin: &Finished<'_>) -> Vec<RadioSummary> {
    let Some(w) = &fin.sc.wifi else { return Vec::new() };
    w.radios
        .iter()
        .zip(&fin.radios)
        .enumerate()
        .map(|(i, (r, c))| {
            let mode = match r.mode {
                crate::scenario::wifi::RadioMode::Ap { .. } => "ap",
                crate::scenario::wifi::RadioMode::Station { .. } => "station",
                crate::scenario::wifi::RadioMode::AdHoc => "adhoc",
            };
            RadioSummary {
                node: fin.sc.nodes[r.node].name.clone(),
                mode: mode.to_string(),
                addr: crate::network::addr::fmt_addr(r.addr),
                channel: r.spec.channel,
                counters: c.clone(),
                associated_ap: fin.radio_ap[i].map(|a| fin.sc.nodes[w.radios[a as usize].node].name.clone()),
                signal: SignalSeries {
                    t_s: fin.radio_signal[i].iter().map(|s| crate::secs(s.0 .0)).collect(),
                    dbm: fin.radio_signal[i].iter().map(|s| s.1 as f64).collect(),
                },
            }
        })
        .collect()
}

/// Per agent: where it ran, its counters, the packets it dropped, and its
/// gauge sampled every series interval (empty without one).
fn agent_summaries(fin: &Finished<'_>) -> Vec<AgentSummary> {
    let sc = fin.sc;
    fin.agents
        .iter()
        .enumerate()
        .map(|(i, a)| AgentSummary {
            name: sc.agents[i].name.clone(),
            node: sc.nodes[a.node].name.clone(),
            kind: a.kind.to_string(),
            counters: a.counters.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
            dropped_packets: a.drops,
            series: Gauge { t_s: a.series.t_s.clone(), value: a.series.value.clone() },
        })
        .collect()
}

fn log_event(fin: &Finished<'_>, t_s: f64, raw: Raw) -> LogEvent {
    let sc = fin.sc;
    match raw {
        Raw::Tcp { flow, client, ev, aux } => {
            let side = if client { "client" } else { "server" };
            let (kind, detail) = match ev {
                Event::Connected => ("connected", side.to_string()),
                Event::Readable => ("readable", side.to_string()),
                Event::PeerClosed => ("peer_closed", side.to_string()),
                Event::SendComplete => ("send_complete", side.to_string()),
                Event::Closed { aborted } => ("closed", if aborted { format!("{side} aborted") } else { side.to_string() }),
                Event::Timeout { rto, backoff } => ("timeout", format!("{side} rto={rto} backoff={backoff}")),
                Event::FastRetransmit { .. } => ("fast_retransmit", format!("{side} seq={aux}")),
                Event::CaStateChanged { from, to } => ("ca_state", format!("{side} {}->{}", from.name(), to.name())),
                Event::ZeroWindow => ("zero_window", side.to_string()),
                Event::WindowProbe => ("window_probe", side.to_string()),
                Event::WindowOpened => ("window_opened", side.to_string()),
                Event::WindowShrunk { usable } => ("window_shrunk", format!("{side} usable={usable}")),
                Event::WiTcpFreeze { cwnd, ssthresh } => ("witcp_freeze", format!("{side} cwnd={cwnd} ssthresh={ssthresh}")),
                Event::WiTcpResume { cwnd, ssthresh, frozen, forced } => {
                    ("witcp_resume", format!("{side} cwnd={cwnd} ssthresh={ssthresh} frozen_s={} forced={forced}", crate::secs(frozen.as_nanos())))
                }
                Event::HandoverNotified { lost } => ("handover_notified", format!("{side} lost={lost}")),
            };
            LogEvent { t_s, kind: kind.to_string(), flow: Some(flow), link: None, detail }
        }
        Raw::Outage { link, dir, start } => {
            let l = &sc.links[link as usize];
            let (from, to) = if dir == 0 { (l.a, l.b) } else { (l.b, l.a) };
            LogEvent {
                t_s,
                kind: if start { "outage_start" } else { "outage_end" }.to_string(),
                flow: None,
                link: Some(link),
                detail: format!("{} {}->{}", DIR_NAMES[dir as usize], sc.nodes[from].name, sc.nodes[to].name),
            }
        }
        Raw::Handoff { link, dir, idx } => {
            let detail = match &sc.links[link as usize].trace[dir as usize] {
                Some(TraceSpec { model: TraceModel::Drive(d), .. }) => {
                    let h = &d.link.handoffs()[idx as usize];
                    let mode = if d.handoff_drops { "drop" } else { "stall" };
                    format!(
                        "{}->{} {} outage={} {mode}",
                        h.from,
                        h.to,
                        DIR_NAMES[dir as usize],
                        crate::scenario::units::format_duration(d.config.handoff_outage)
                    )
                }
                _ => String::new(),
            };
            LogEvent { t_s, kind: "handoff".to_string(), flow: None, link: Some(link), detail }
        }
        Raw::Agent { agent, kind, value } => LogEvent {
            t_s,
            kind: kind.to_string(),
            flow: None,
            link: None,
            detail: format!("agent={agent} {} value={value}", sc.agents[agent as usize].name),
        },
        Raw::RouteChange { idx } => {
            let failed = idx & 1 << 31 != 0;
            let r = &sc.route_changes[(idx & !(1 << 31)) as usize];
            let what = crate::scenario::route_change_text(r, &sc.nodes, &sc.links);
            LogEvent {
                t_s,
                kind: "route_change".to_string(),
                flow: None,
                link: None,
                detail: if failed { format!("{what} (no such route: nothing changed)") } else { what },
            }
        }
        Raw::Wifi { radio, event } => wifi_event(sc, t_s, radio, event),
        Raw::Sdn { kind, dp, host, value } => {
            let sw = sc.sdn.as_ref().and_then(|s| s.switches.get(dp as usize)).map_or("?", |s| sc.nodes[s.node].name.as_str());
            let [a, b, c, d] = host;
            let v = if value == u64::MAX { "none".to_string() } else { value.to_string() };
            LogEvent { t_s, kind: kind.to_string(), flow: None, link: None, detail: format!("switch={sw} host={a}.{b}.{c}.{d} value={v}") }
        }
        Raw::Freeze { flow, client, on } => LogEvent {
            t_s,
            kind: if on { "freeze_zwa" } else { "freeze_tr_acks" }.to_string(),
            flow: Some(flow),
            link: None,
            detail: if client { "client" } else { "server" }.to_string(),
        },
        Raw::TransferComplete { flow, response } => LogEvent {
            t_s,
            kind: "transfer_complete".to_string(),
            flow: Some(flow),
            link: None,
            detail: format!("response_time={}s", crate::secs(response.0)),
        },
    }
}
