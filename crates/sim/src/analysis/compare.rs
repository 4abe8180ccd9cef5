//! Comparing a run's goodput with the PFTK model fed with the run's own
//! mean RTT and base RTO.

use std::path::Path;

use crate::{run, FlowSeries, RunOptions, RunOutput, Scenario};

use super::pftk::{q_hat, send_rate_pkts, send_rate_pkts_given_q, window_at_loss, PftkInputs};

/// One run (or the mean of several seeds) beside the model's prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct PftkComparison {
    /// Loss probability of data packets the model was given.
    pub p: f64,
    /// Mean of the sender's RTT samples (summary `srtt_mean_s`).
    pub rtt_s: f64,
    /// Typical un-backed-off RTO ([`base_rto_s`]).
    pub t0_s: f64,
    /// Packets per ACK: the receiver's `delack_count`.
    pub b: f64,
    /// Receiver window limit in packets: min(rcv_buf, snd_buf) / mss (the
    /// autotuning maxima for buffers that autotune).
    pub wmax: f64,
    /// Payload bytes per packet.
    pub mss: u32,
    /// Simulated goodput (summary `goodput_bps`).
    pub sim_bps: f64,
    /// PFTK's B(p) in packets per second (a send rate).
    pub model_send_pkts: f64,
    /// Predicted goodput: B(p)·(1-p)·mss·8.
    pub model_bps: f64,
    /// The model's Q̂ at its window: the share of loss indications it
    /// expects to be timeouts.
    pub q_hat: f64,
    /// The run's share: timeout sequences (entries into Loss) over all loss
    /// indications (those plus entries into Recovery).
    pub to_share: f64,
    /// Diagnostic: the model with Q̂ replaced by `to_share`, as goodput.
    pub model_given_q_bps: f64,
    /// Sender counters: RTO expiries (backed-off ones included) and fast retransmits.
    pub timeouts: f64,
    pub fast_retransmits: f64,
    /// Seeds averaged.
    pub runs: usize,
}

impl PftkComparison {
    /// sim / model.
    pub fn ratio(&self) -> f64 {
        self.sim_bps / self.model_bps
    }

    /// sim / (model with the run's own timeout share).
    pub fn ratio_given_q(&self) -> f64 {
        self.sim_bps / self.model_given_q_bps
    }

    /// Mean of every field over several seeds of the same p; the model is
    /// averaged too (each seed's model uses that seed's own RTT and T0).
    pub fn mean(rows: &[PftkComparison]) -> Option<PftkComparison> {
        let first = rows.first()?;
        let n = rows.len() as f64;
        let avg = |g: fn(&PftkComparison) -> f64| rows.iter().map(g).sum::<f64>() / n;
        Some(PftkComparison {
            p: first.p,
            rtt_s: avg(|r| r.rtt_s),
            t0_s: avg(|r| r.t0_s),
            b: first.b,
            wmax: first.wmax,
            mss: first.mss,
            sim_bps: avg(|r| r.sim_bps),
            model_send_pkts: avg(|r| r.model_send_pkts),
            model_bps: avg(|r| r.model_bps),
            q_hat: avg(|r| r.q_hat),
            to_share: avg(|r| r.to_share),
            model_given_q_bps: avg(|r| r.model_given_q_bps),
            timeouts: avg(|r| r.timeouts),
            fast_retransmits: avg(|r| r.fast_retransmits),
            runs: rows.iter().map(|r| r.runs).sum(),
        })
    }
}

/// The run's base RTO T0 in seconds: the median of the sender's RTO samples
/// taken in the Open state after the first RTT sample. Open excludes the
/// time after a timeout (Loss), when the series shows the backed-off timer;
/// the median ignores the few Open rows left over before the backoff resets.
pub fn base_rto_s(s: &FlowSeries) -> Option<f64> {
    let mut v: Vec<f64> = (0..s.t_s.len())
        .filter(|&i| s.ca_state[i] == 0 && s.srtt_s[i] > 0.0)
        .map(|i| s.rto_s[i])
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

fn num(out: &RunOutput, flow: usize, key: &str) -> Result<f64, String> {
    out.summary["flows"][flow][key]
        .as_f64()
        .ok_or_else(|| format!("flow {flow}: summary has no number \"{key}\""))
}

/// Compares flow `flow` of a finished run with PFTK at loss probability `p`.
///
/// PFTK's B(p) counts every packet sent, lost or not; the simulator's goodput
/// counts application bytes delivered in order. With independent loss a
/// fraction (1-p) of the packets sent arrives, so the prediction is
/// B(p)·(1-p)·mss·8 b/s. (Retransmissions of packets that had arrived — the
/// go-back-N after a timeout — are a second, smaller waste the model does not
/// separate; it shows as a ratio slightly below 1 at high p.)
pub fn pftk_compare(
    sc: &Scenario,
    out: &RunOutput,
    flow: usize,
    p: f64,
) -> Result<PftkComparison, String> {
    let spec = sc
        .flows
        .get(flow)
        .ok_or_else(|| format!("no flow {flow} in the scenario"))?;
    let tcp = &spec.tcp;
    let series = out
        .series
        .get(flow)
        .ok_or_else(|| format!("no series for flow {flow}"))?;
    let rtt_s = num(out, flow, "srtt_mean_s")?;
    let t0_s = base_rto_s(series)
        .ok_or_else(|| format!("flow {flow}: no Open-state RTO sample to take T0 from"))?;
    let b = tcp.delack_count as f64;
    // An autotuned buffer may grow to tcp_rmem[2] (half of it window) /
    // tcp_wmem[2]; a locked one is the key.
    let rcv = if tcp.rcv_buf_autotune { tcp.tcp_rmem[2] / 2 } else { tcp.rcv_buf };
    let snd = if tcp.snd_buf_autotune { tcp.tcp_wmem[2] } else { tcp.snd_buf };
    let wmax = (rcv.min(snd) / tcp.mss) as f64;
    let x = PftkInputs {
        p,
        rtt_s,
        t0_s,
        b,
        wmax,
    };
    let model_send_pkts = send_rate_pkts(x).map_err(|e| e.to_string())?;
    let to_seqs = num(out, flow, "loss_state_entries")?;
    let indications = to_seqs + num(out, flow, "fast_recoveries")?;
    let to_share = if indications > 0.0 {
        to_seqs / indications
    } else {
        0.0
    };
    let given_q = send_rate_pkts_given_q(x, to_share).map_err(|e| e.to_string())?;
    let to_bps = |pkts: f64| pkts * (1.0 - p) * tcp.mss as f64 * 8.0;
    Ok(PftkComparison {
        p,
        rtt_s,
        t0_s,
        b,
        wmax,
        mss: tcp.mss,
        sim_bps: num(out, flow, "goodput_bps")?,
        model_send_pkts,
        model_bps: to_bps(model_send_pkts),
        q_hat: q_hat(p, window_at_loss(x)),
        to_share,
        model_given_q_bps: to_bps(given_q),
        timeouts: num(out, flow, "timeouts")?,
        fast_retransmits: num(out, flow, "fast_retransmits")?,
        runs: 1,
    })
}

/// Runs the scenario at `path` for each loss probability (set through the
/// override `loss_key`, e.g. `links.1.loss_ab.p`) and seed, and returns one
/// seed-averaged comparison of flow 0 per p.
pub fn pftk_sweep(
    path: &Path,
    loss_key: &str,
    ps: &[f64],
    seeds: &[u64],
) -> Result<Vec<PftkComparison>, String> {
    let mut rows = Vec::with_capacity(ps.len());
    for &p in ps {
        let sc = Scenario::from_path(path, &[(loss_key.to_string(), p.to_string())])
            .map_err(|e| e.to_string())?;
        let mut per_seed = Vec::with_capacity(seeds.len());
        for &seed in seeds {
            let out = run(
                &sc,
                RunOptions {
                    seed: Some(seed),
                    ..Default::default()
                },
            )
            .map_err(|e| e.to_string())?;
            per_seed.push(pftk_compare(&sc, &out, 0, p)?);
        }
        rows.extend(PftkComparison::mean(&per_seed));
    }
    Ok(rows)
}

/// The table the validation test and the `pftk_table` example print.
pub fn format_table(rows: &[PftkComparison]) -> String {
    let mut s = String::from(
        "     p  rtt_ms   T0_s  sim_Mbps  pftk_Mbps  ratio    Q^  to_share  ratio|q  timeouts  fast_rtx\n",
    );
    for r in rows {
        s.push_str(&format!(
            "{:>6}  {:>6.2}  {:>5.3}  {:>8.3}  {:>9.3}  {:>5.3}  {:>5.3}  {:>8.3}  {:>7.3}  {:>8.1}  {:>8.1}\n",
            r.p,
            r.rtt_s * 1e3,
            r.t0_s,
            r.sim_bps / 1e6,
            r.model_bps / 1e6,
            r.ratio(),
            r.q_hat,
            r.to_share,
            r.ratio_given_q(),
            r.timeouts,
            r.fast_retransmits
        ));
    }
    s.push_str("ratio = sim / PFTK; Q^ = PFTK's timeout share of loss indications, to_share = the run's;\n");
    s.push_str("ratio|q = sim / PFTK with Q^ replaced by to_share (a diagnostic, not the model)\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(rows: &[(u8, f64, f64)]) -> FlowSeries {
        let mut s = FlowSeries::default();
        for (i, &(ca, srtt, rto)) in rows.iter().enumerate() {
            s.t_s.push(i as f64);
            s.ca_state.push(ca);
            s.srtt_s.push(srtt);
            s.rto_s.push(rto);
        }
        s
    }

    #[test]
    fn base_rto_skips_backoff_and_the_initial_rto() {
        // Initial RTO before a sample, then Open at 1 s, a timeout (Loss, 2 s
        // and 4 s), one Open row still backed off, then Open again.
        let s = series(&[
            (0, 0.0, 3.0),
            (0, 0.1, 1.0),
            (4, 0.1, 2.0),
            (4, 0.1, 4.0),
            (0, 0.1, 4.0),
            (0, 0.1, 1.0),
            (3, 0.1, 1.0),
            (0, 0.1, 1.0),
        ]);
        assert_eq!(base_rto_s(&s), Some(1.0));
        assert_eq!(base_rto_s(&series(&[(4, 0.1, 2.0)])), None);
    }
}
