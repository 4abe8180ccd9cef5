"""report.md of the wi-tcp study: the setup, the seed's claims beside the
measured values (with 95 % intervals over seeds), the Fig. 12 table and
findings computed from the data."""

from __future__ import annotations

from pathlib import Path

from .report import Claim, claims_table, fmt, fmt_ci, md_table, ratio_stats, summarize
from .wi_tcp_setup import HANDOFFS, MODES

LABELS = {"mip": "Mobile IP", "romip": "route-optimised MIP", "witcp": "Wi-TCP", "freeze": "Freeze-TCP"}


def _goodputs(runs, mode, variant, d):
    return [r["goodput_bps"] for r in runs if r["mode"] == mode and r["variant"] == variant and r["hafa_ms"] == d]


def _paired(runs, key, a, b, variant, d):
    """Per-seed difference a - b of `key` between two modes."""
    by = {}
    for r in runs:
        if r["variant"] == variant and r["hafa_ms"] == d and r["mode"] in (a, b):
            by.setdefault(r["seed"], {})[r["mode"]] = r.get(key)
    return [v[a] - v[b] for v in by.values() if v.get(a) is not None and v.get(b) is not None]


def write_report(path: Path, *, table, runs, variants, delays, seeds, wall_s, jobs, plots) -> None:
    d0 = delays[0]
    main = "newreno" if "newreno" in variants else variants[-1]
    L = ["# Wi-TCP over route-optimised Mobile IP (seed 001), reproduced", ""]
    L += [
        "Setup: `scenarios/wi-tcp-wlan.toml` — fixed host — R 10 Mb/s 10 ms; R — HA and R — FA1/FA2 10 Mb/s "
        "(HA–FA delay = 5 ms + R–FA delay); 802.11b at 2 Mb/s (DCF, retry limits 7/4, 50-packet interface "
        "queues), APs 500 m apart so cells do not overlap; DropTail 50 on the wired links; bulk download "
        "fh → mobile from 0 to 60 s, MSS 1000 B, 20-packet window, no SACK or timestamps (ns-2's agents). "
        "The mobile moves " + ", ".join(f"{a}→{b} at {t:g} s" for t, a, b in HANDOFFS) + "; it detects the "
        "loss of its AP after 7 missed beacons, scans, reassociates and registers on the next agent "
        "advertisement (every 1 s). Wi-TCP: the serving agent sends EHO-ACK when its MAC drops a frame to the "
        "host at the retry limit, EHC-ACK when the host registers (HA→FA) or the Binding Update reaches the "
        "old agent (FA→FA).",
        "",
        f"Runs: variants {', '.join(variants)}; HA–FA delays {', '.join(map(str, delays))} ms; seeds 1..{seeds} "
        f"per point; {len(runs)} runs in {wall_s:.1f} s wall ({jobs} job(s)).",
        "",
    ]
    # --- claims
    claims = []
    g = {m: summarize(_goodputs(runs, m, main, d0)) for m in MODES}
    r_ro = ratio_stats(g["witcp"], g["romip"])
    r_mip = ratio_stats(g["witcp"], g["mip"])
    r_romip = ratio_stats(g["romip"], g["mip"])

    def pct(st):
        from .report import Stats

        return Stats(st.n, 100 * (st.mean - 1), st.sd, 100 * (st.lo - 1), 100 * (st.hi - 1))

    claims.append(Claim("Wi-TCP over route-optimised MIP", "+38 %", 38.0, pct(r_ro), f"goodput ratio − 1, {main}, {d0} ms", "{:.1f}"))
    claims.append(Claim("Wi-TCP over MIP", "+44 %", 44.0, pct(r_mip), f"goodput ratio − 1, {main}, {d0} ms", "{:.1f}"))
    claims.append(Claim("route optimisation alone (traditional TCP)", "gains little", None, pct(r_romip), f"goodput ratio − 1, {main}, {d0} ms", "{:.1f}"))
    if g["freeze"].n:
        # Beyond the seed (issue 10): Freeze-TCP on the same axes.
        claims.append(Claim("Freeze-TCP over route-optimised MIP (beyond the seed)", "-", None, pct(ratio_stats(g["freeze"], g["romip"])), f"goodput ratio − 1, {main}, {d0} ms; oracle warning 0.2 s ahead", "{:.1f}"))
        claims.append(Claim("Wi-TCP over Freeze-TCP (beyond the seed)", "-", None, pct(ratio_stats(g["witcp"], g["freeze"])), f"goodput ratio − 1, {main}, {d0} ms", "{:.1f}"))
    ahead = summarize(_paired(runs, "pkts_fafa_window", "witcp", "romip", main, d0))
    claims.append(
        Claim(
            "packets ahead after the FA→FA handoff",
            "≈ 100",
            100.0,
            ahead,
            "Wi-TCP − route-optimised, packets delivered from 42.5 s to 47.5 s, same seed",
            "{:.0f}",
        )
    )
    rto = summarize([r["timeouts"] for r in runs if r["mode"] == "witcp" and r["variant"] == main and r["hafa_ms"] == d0])
    claims.append(Claim("RTOs with Wi-TCP", "none during handoff", 0.0, rto, "sender timeouts per run", "{:.2f}"))
    L += ["## The seed's claims beside the measured values", ""]
    L += claims_table(claims)
    L += [""]
    # --- Fig. 12 table
    L += ["## Throughput (Mb/s, mean [95 % CI]) against the HA–FA delay (Fig. 12)", ""]
    rows = []
    for variant in variants:
        for mode in MODES:
            row = [variant, LABELS[mode]]
            for d in delays:
                st = summarize(_goodputs(runs, mode, variant, d))
                row.append(fmt_ci(type(st)(st.n, st.mean / 1e6, st.sd / 1e6, st.lo / 1e6, st.hi / 1e6), "{:.3f}"))
            rows.append(row)
    L += md_table(["TCP", "mode"] + [f"{d} ms" for d in delays], rows)
    L += [""]
    # --- mechanics
    L += ["## Mechanics (means per run)", ""]
    mrows = []
    for t in table:
        if t["hafa_ms"] != d0:
            continue
        mrows.append(
            [
                t["variant"],
                LABELS[t["mode"]],
                fmt(t["timeouts_mean"], "{:.2f}"),
                fmt(t["retransmissions_mean"], "{:.1f}"),
                fmt(t["ha_tunnelled_mean"], "{:.0f}"),
                fmt(t["cn_tunnelled_mean"], "{:.0f}"),
                fmt(t["freezes_mean"], "{:.1f}"),
                fmt(t["frozen_s_mean"], "{:.2f}"),
                fmt(t["t_ideal_mean_s_mean"], "{:.3f}"),
            ]
        )
    L += md_table(
        ["TCP", "mode", "RTOs", "retransmissions", "tunnelled by HA", "tunnelled by fh", "freezes", "frozen (s)", "mean T_IDEAL (s)"],
        mrows,
    )
    L += [""]
    # --- findings
    L += ["## What the numbers say, and why they differ from the seed", ""]
    L += [
        f"- Wi-TCP's gain here is {fmt(pct(r_ro).mean, '{:.1f}')} % over route-optimised Mobile IP and "
        f"{fmt(pct(r_mip).mean, '{:.1f}')} % over plain Mobile IP ({main}, {d0} ms), against the seed's +38 % / +44 %. "
        "The gain comes from the RTOs and go-back-N retransmissions the frozen sender avoids: each handoff "
        "here costs the unfrozen sender one or more RTOs (the mechanics table) and the frozen one none. "
        "The seed's absolute gap depends on its handoff durations (it reports ~4 s from loss of contact to "
        "EHC-ACK in case HA→FA); here a handoff takes ~1–1.5 s (beacon loss 0.7 s, scan and reassociation "
        "~0.1 s, then up to 1 s until the next advertisement), so an RTO with backoff loses less time and "
        "the relative gain is smaller.",
        f"- Route optimisation alone changes goodput by {fmt(pct(r_romip).mean, '{:.1f}')} %: the wired path "
        "is short against the 2 Mb/s wireless hop, so the triangle through the home agent costs a few ms of RTT; "
        "the seed too finds little gain for traditional TCP. The home agent tunnels almost nothing once the "
        "correspondent holds a binding (mechanics table).",
        f"- Packets ahead after the FA→FA handoff: {fmt(ahead.mean, '{:.0f}')} more packets delivered by Wi-TCP "
        "than by route-optimised Mobile IP in the 5 s from the move (same seed). The seed reads ≈ 100 off its "
        "sequence plots at a point it does not state; the count here depends on the window chosen (5 s), so "
        "only its sign and order of magnitude compare. Without Wi-TCP the sender here is still in RTO backoff "
        "when the new foreign agent is reachable (the mechanics table: about two RTOs per handoff).",
        "- With Wi-TCP the three TCP variants give identical runs: frozen across every handoff, the sender "
        "loses nothing to it (its retransmissions are the in-flight window resent at the EHC-ACK), so the "
        "recovery algorithm that tells Tahoe, Reno and NewReno apart never runs.",
        "- T_IDEAL (eq. 4, T_EHC-ACK − T_EHO-ACK at the agents) is the MAC's failure to the registration "
        "(HA→FA) or to the Binding Update's arrival at the old agent (FA→FA): α ≈ 0 (the EHO-ACK leaves with "
        "the retry-limit drop), T_RECONNECT = beacon loss + scan + reassociation + wait for the advertisement "
        "+ registration; the sender's total frozen time matches the sum of T_IDEAL within the difference of the "
        "two signals' trips (checked in `crates/sim/tests/mobileip.rs`).",
        "- Not reproduced: the plain 2 Mb/s point-to-point wireless variant (the Mobile IP agents need a link "
        "layer that reports delivery failure and association, which only the 802.11 model does here); "
        "the explicit handover notification of the seed's [8]. Freeze-TCP (beyond the seed) runs with an oracle "
        "warning 0.2 s before each move, since the cells' signal does not fade before the scripted jumps; its "
        "TR-ACKs leave at reassociation, but the mobile is reachable only once registered (up to the next agent "
        "advertisement, 1 s), so what the sender sends on them before that is lost. The mobile's path differs from "
        "the seed's in one respect: it returns home at 15.6 s and leaves again at 30 s before the FA→FA move "
        "at 42.5 s, so all three handoff kinds occur in one run.",
        "",
    ]
    if plots:
        L += ["## Plots", ""] + [f"- `{p}`" for p in plots] + [""]
    path.write_text("\n".join(L))
