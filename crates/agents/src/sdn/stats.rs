//! Seed 000's statistics module (§2.2 "Tackling limitations"): the AP's
//! disassociation notice carries the counters of its entries towards the
//! station at T0; the flow-removed message of the deletion (T2) carries
//! them again. Equal counters: no segment reached the old AP in between,
//! the ZWA module may act. Different: a segment was dropped at the old AP
//! and acknowledging later data would leave the station a hole the sender
//! never fills, so this handoff falls back to bare TCP.
//!
//! Runs after the mobility manager (which records the handoff) and before
//! the ZWA module (which reads the gate).

use super::app::{App, Ctx};
use super::devices::ZwaGate;
use super::msg::{FlowRemoved, RemovedReason, StationEvent, StationNotice};
use super::types::Dpid;

/// Seed 000's statistics module (see the module docs): compares T0 and T2
/// counters and sets the ZWA gate.
#[derive(Default)]
pub struct StatsModule {
    /// Handoffs where the counters matched: ZWA enabled.
    pub enabled: u64,
    /// Handoffs where they differed: bare TCP.
    pub disabled: u64,
}

impl App for StatsModule {
    fn name(&self) -> &'static str {
        "stats"
    }

    fn on_station(&mut self, ctx: &mut Ctx, _dpid: Dpid, n: &StationNotice) {
        if n.event != StationEvent::Disassociated {
            return;
        }
        // No entry towards the station at the AP at T0: nothing can slip
        // through it and no flow-removed will come, so ZWA acts at once.
        if n.counters.is_some() {
            ctx.devices.set_gate(n.station_ip, ZwaGate::Pending);
        } else {
            self.enabled += 1;
        }
    }

    fn on_flow_removed(&mut self, ctx: &mut Ctx, dpid: Dpid, fr: &FlowRemoved) {
        if fr.reason != RemovedReason::Delete {
            return;
        }
        let Some(dst) = fr.r#match.ipv4_dst.filter(|m| m.mask == [255; 4]).map(|m| m.addr) else { return };
        let Some(h) = ctx.devices.handoff(dst) else { return };
        if h.gate != ZwaGate::Pending || h.from.0 != dpid {
            return;
        }
        let same = h.t0_counters.is_none_or(|c| c == fr.counters);
        if same {
            self.enabled += 1;
            ctx.devices.set_gate(dst, ZwaGate::Enabled);
        } else {
            self.disabled += 1;
            ctx.devices.set_gate(dst, ZwaGate::Disabled);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("stats_zwa_enabled", self.enabled), ("stats_zwa_disabled", self.disabled)]
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
