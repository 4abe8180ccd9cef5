"""report.md of ``airtcp reproduce sdn-zwa``: the setup and its wiring, the
seed's claims beside the measured values, the per-figure tables and the
explanations of the differences."""

from __future__ import annotations

from ..reporting import Claim, Stats, claims_table, fmt, fmt_ci, md_table
from ..reporting import summarize_counts as summarize_nonnegative
from .setup import ARM_LABELS, ATTACH, DEFAULTS, FREEZE_WARNING_RTTS, MTCP_INITIAL_CWND, SEED_STACK, STACK_LABELS, STACKS
from .stacks import section

WIRING = """```
                 CN  (attached to S2 / S4 / S5 / S6 / S7 / S8: 2 / 3 / 4 / 5 / 6 / 7 hops to AP2)
   AP1 -- S1 --.
   AP2 -- S2 ---+-- S4 -- S5 -- S6 -- S7 -- S8
   AP3 -- S3 --'
   (ch 1)  (ch 6)  (ch 11)        controller c0: one out-of-band control channel per datapath
                                  (5 ms latency, 1 ms processing)
   MN: on AP1, leaves at the roam instant, away for the disconnection period, reassociates to AP2
```"""


def _rows(table, fig, arm=None, hops=None):
    return sorted(
        (r for r in table if r["fig"] == fig and (arm is None or r["arm"] == arm) and (hops is None or r["hops"] == hops)),
        key=lambda r: (r["arm"], r["hops"], r["disconnect_s"]),
    )


def _ci(r, key, spec="{:.2f}"):
    m, lo, hi = r[f"{key}_mean"], r[f"{key}_lo"], r[f"{key}_hi"]
    if fmt(lo) == "-":
        return fmt(m, spec)
    return f"{fmt(m, spec)} [{fmt(lo, spec)}, {fmt(hi, spec)}]"


def _pool(runs, fig, arm, key, hops=None):
    """Pooled over seeds (and periods): counts, durations and utilisation
    are never below 0, so a percentile bootstrap interval of the mean."""
    xs = [r[key] for r in runs if r["fig"] == fig and r["arm"] == arm and (hops is None or r["hops"] == hops)]
    return summarize_nonnegative(xs)


def report_md(sr, table, *, seeds: int, quick: bool, plots: bool, kernel: dict | None = None) -> str:
    all_runs = sr.runs
    # Everything below the stack section is the seed's stack.
    runs = [r for r in all_runs if r.get("stack", SEED_STACK) == SEED_STACK]
    table = [r for r in table if r.get("stack", SEED_STACK) == SEED_STACK]
    fig6 = {r["arm"]: r for r in runs if r["fig"] == "6"}
    idle_bare = _pool(runs, "7", "bare", "idle_after_reassoc_s")
    idle_zwa = _pool(runs, "7", "zwa", "idle_after_reassoc_s")
    retx_bare = _pool(runs, "7", "bare", "retransmissions")
    retx_zwa = _pool(runs, "7", "zwa", "retransmissions")
    ns = [r for r in runs if r["fig"] == "7" and r["arm"] == "zwa-nostats"]
    zwa7 = [r for r in runs if r["fig"] == "7" and r["arm"] == "zwa"]
    n_dis = sum(r["stats_zwa_disabled"] for r in zwa7)
    n_stall = sum(r["stalled"] for r in ns)
    idle8 = {arm: _pool(runs, "8", arm, "idle_after_reassoc_s") for arm in ("bare", "zwa", "freeze", "legacy", "mtcp")}
    idle7 = {arm: _pool(runs, "7", arm, "idle_after_reassoc_s") for arm in ("freeze", "legacy", "mtcp", "bare-cubic-sack", "zwa-cubic-sack")}
    hto7 = {arm: _pool(runs, "7", arm, "handoff_timeouts") for arm in ("bare", "zwa", "freeze", "legacy", "mtcp")}
    z7 = [r for r in runs if r["fig"] == "8" and r["arm"] == "zwa" and r["hops"] == 7]
    z7_syn = sum(1 for r in z7 if r["timeouts"] > r["handoff_timeouts"])
    hops8 = sorted({r["hops"] for r in runs if r["fig"] == "8"})
    short = min((r["disconnect_s"] for r in runs if r["fig"] == "7"), default=1.5)
    # Spurious RTOs of gate-open ZWA handoffs, per hop count, on each stack.
    gate_rtos = {
        (st, h): summarize_nonnegative([r["handoff_timeouts"] for r in all_runs if r.get("stack") == st and r["fig"] == "8" and r["arm"] == "zwa" and r["hops"] == h and r["stats_zwa_enabled"]])
        for st in STACKS
        for h in hops8
    }
    rto_text = lambda st: ", ".join(f"{h} hops {fmt(gate_rtos[(st, h)].mean, '{:.2f}')}" for h in hops8)
    t0t2 = summarize_nonnegative([r.get("t0t2_s") for r in zwa7])
    bare7 = [r for r in runs if r["fig"] == "7" and r["arm"] == "bare"]
    bare_stall = [r for r in runs if r["fig"] in ("7", "8") and r["arm"] == "bare" and r["stalled"]]
    bare_all = [r for r in runs if r["fig"] in ("7", "8") and r["arm"] == "bare"]
    bare_stall_undo = sum(1 for r in bare_stall if r.get("loss_undos", 0) > 0)
    util7 = {arm: summarize_nonnegative([x["utilisation_mean"] for x in table if x["fig"] == "7" and x["arm"] == arm]) for arm in ("bare", "zwa", "freeze", "legacy", "mtcp", "bare-cubic-sack", "zwa-cubic-sack")}
    one = lambda x: Stats(1, float(x), float("nan"), float("nan"), float("nan")) if x is not None else Stats(0, float("nan"), float("nan"), float("nan"), float("nan"))
    claims = [
        Claim("Fig. 6(a) bare TCP: interruption in data transfer", "3-5 s", 4.0, one(fig6.get("bare", {}).get("interruption_s")), "2 hops, 1.5 s away, one run; last in-order delivery before T0 to the first new one after it (the seed's trace gap, same metric both sides)"),
        Claim("Fig. 6(a) bare TCP: interruption, all Fig. 7 runs at 1.5 s", "3-5 s", 4.0, _pool([r for r in runs if r["disconnect_s"] == 1.5], "7", "bare", "interruption_s"), "10 seeds when the full sweep ran (the seed's 1-2 s disconnection)"),
        Claim("Fig. 6(c) ZWA: interruption only while disconnected", "1-2 s (the disconnection)", None, one(fig6.get("zwa", {}).get("interruption_s")), "same run with ZWA: the disconnection plus the replay's trip"),
        Claim("second metric: Fig. 6(a) bare TCP sender idle after T3", "-", None, one(fig6.get("bare", {}).get("sender_idle_s")), "first data segment the sender sends after T3 minus T3 (counts segments that deliver nothing)"),
        Claim("Fig. 6(b) ZWA without statistics: connection not revived", "reset", None, one(fig6.get("zwa-nostats", {}).get("bytes_after_reassoc")), "bytes delivered after T3 (0 = stalled)", "{:.0f}"),
        Claim("Fig. 7: idle after reassociation, bare TCP (2 hops, all periods)", "long (3-5 s)", None, idle_bare, "mean over every period and seed"),
        Claim("Fig. 7: idle after reassociation, ZWA", "~0", None, idle_zwa, "includes the handoffs the statistics module left to bare TCP"),
        Claim("Fig. 7(b): retransmissions, bare TCP", "high", None, retx_bare, "sender's data segments below the highest sent", "{:.1f}"),
        Claim("Fig. 7(b): retransmissions, ZWA", "minimum", None, retx_zwa, "", "{:.1f}"),
        Claim("Fig. 8: idle after reassociation, bare TCP (3/5/7 hops)", "grows with the period", None, idle8["bare"]),
        Claim("Fig. 8: idle after reassociation, ZWA (3/5/7 hops)", "small at all hop counts", None, idle8["zwa"]),
        Claim("beyond: Freeze-TCP idle after reassociation (Fig. 7, 2 hops)", "-", None, idle7["freeze"], f"MN warned {FREEZE_WARNING_RTTS:g} RTT ahead; controller routes only"),
        Claim("beyond: Freeze-TCP handoff RTOs (Fig. 7)", "-", None, hto7["freeze"], "sender timeouts after T0", "{:.2f}"),
        Claim("beyond: Freeze-TCP idle after reassociation (Fig. 8, 3/5/7 hops)", "-", None, idle8["freeze"]),
        Claim("beyond: legacy L2 roaming idle after reassociation (Fig. 7)", "-", None, idle7["legacy"], "learning switches + IAPP, no controller"),
        Claim("beyond: M-TCP idle after reassociation (Fig. 7)", "-", None, idle7["mtcp"], f"supervisor on the APs, legacy L2, sender IW {MTCP_INITIAL_CWND}"),
        Claim("beyond: M-TCP handoff RTOs (Fig. 7)", "-", None, hto7["mtcp"], "", "{:.2f}"),
        Claim("beyond: bare TCP, CUBIC + SACK: idle after reassociation (Fig. 7)", "-", None, idle7["bare-cubic-sack"]),
        Claim("beyond: ZWA, CUBIC + SACK: idle after reassociation (Fig. 7)", "-", None, idle7["zwa-cubic-sack"]),
    ]
    n_zwa_phase = len({(r["seed"], r["disconnect_s"], r["hops"]) for r in zwa7})
    share = n_dis / len(zwa7) if zwa7 else 0.0
    how_often = "frequent" if share >= 0.2 else "rare" if share < 0.05 else "occasional"
    out = [
        "# sdn-zwa: SDN-assisted TCP with zero-window advertisements (seed 000)",
        "",
        f"**TCP stack: profile `{SEED_STACK}`** ({STACK_LABELS[SEED_STACK]}; `[flows.tcp] profile = \"{SEED_STACK}\"` with "
        "`cc = \"reno\"`, `sack = false`, `initial_cwnd = 1` beside it, as the seed set its kernel: \"We changed congestion "
        "control mechanism and window growth function according to standard TCP implementation (TCP Reno) and disabled "
        "the SACK option. Further, we set initial congestion window size to 1 as specified in TCP Reno.\"). The seed "
        "names no kernel version; 4.4 is Ubuntu 16.04's, Mininet-WiFi's platform then. Sensitivity arm: `linux` (today's "
        "kernel, same keys); mechanism arm: " + ", ".join(f"`{k}` ({STACK_LABELS[k]})" for k in STACKS if k not in (SEED_STACK, "linux")) + ". "
        "Every section after the next is the seed's stack.",
        "",
        f"{len(all_runs)} runs ({len(runs)} on `{SEED_STACK}`), {seeds} seeds per point{' (--quick)' if quick else ''}, wall time {sr.wall_s:.1f} s with {sr.jobs} job(s).",
        "",
        "## The headline claims on each stack",
        "",
        "Where a claim flips or moves by more than its 95 % interval between two stacks, first:",
        "",
        *section(all_runs, SEED_STACK, list(STACKS), STACK_LABELS, hops8, short),
        "",
        f"Spurious RTOs with ZWA: handoffs with the gate open still time out once after the window reopens in a share of runs "
        f"(RTOs per gate-open Fig. 8 ZWA run: `{SEED_STACK}` {rto_text(SEED_STACK)}; `linux` {rto_text('linux')}; with the "
        f"1 s floor, `linux-4.4-rto1s`, {rto_text('linux-4.4-rto1s')}). The sender took an RTT sample from every zero-window "
        "ACK, and those come from the controller through the datapath nearest the sender that lost the station's flow "
        "(one or two 80 ms links away), so SRTT falls well below the path's RTT; Linux's RTO is SRTT plus at least "
        "TCP_RTO_MIN (tcp_set_rto), so with the 200 ms floor the first new segment after the window reopens times out "
        "before its ACK can return over the whole path. The RFC 6298 floor of 1 s this study ran with before hid it at "
        "3 and 5 hops.",
        "",
        "## Setup",
        "",
        WIRING,
        "",
        f"Every wired link 10 Mb/s with {DEFAULTS['delay_ms']:g} ms delay; 802.11g at 12 Mb/s, APs 30 m apart, the MN "
        "between AP1 and AP2 (in range of both). The MN leaves AP1 at 10 s plus a seeded offset in [0, 1) s (so the "
        "disassociation meets the sender's bursts at a different phase in every run), stays away for the disconnection "
        "period (radio silent, no scan), scans and reassociates to AP2. Hop count = links from CN to AP2 "
        f"({', '.join(f'{h} hops: CN on {s.upper()}' for h, s in ATTACH.items())}). TCP: profile `{SEED_STACK}`, Reno, SACK off, "
        "initial window 1, sender buffer 40,000 bytes, window scaling off (the controller does not see the SYNs); a bulk "
        f"CN->MN transfer from 1 s; runs end {DEFAULTS['after_s']:g} s after the station is back.",
        "",
        "Arms: " + "; ".join(f"`{k}` {v}" for k, v in ARM_LABELS.items()) + ".",
        "",
        "Metrics (the delivery-based ones defined once, `airtcp_analyze::interruption_around`, on the flow's 10 ms series "
        "of bytes delivered in order): *interruption* = the first new in-order delivery after T0 (the old AP loses the "
        "MN) minus the last in-order delivery at or before T0, what the seed's Fig. 6 traces show as a gap; *idle after "
        "reassociation* (Fig. 8) = that first new delivery minus T3 (the new AP's association); *sender idle* (a second, "
        "named metric) = the first data segment (longer than a 1-byte probe) the sender transmits after T3 minus T3, "
        "which ends early when the sender sends segments that deliver nothing; *utilisation* = bytes delivered / bytes the no-roam run with the same "
        "seed and length delivered with the MN on AP2 (the post-roam path) all along; *retransmissions* = the sender's data segments below its highest sent sequence.",
        "",
        "## The seed's claims beside the measured values",
        "",
        *claims_table(claims),
        "",
        "## Fig. 7: utilisation and retransmissions vs disconnection period (2 hops, 80 ms)",
        "",
        *md_table(
            ["arm", "period (s)", "n", "utilisation", "retransmissions", "handoff RTOs", "interruption (s)", "idle after reassoc. (s)", "sender idle (s)", "ZWA on/off", "stalled"],
            [
                [r["arm"], f"{r['disconnect_s']:g}", r["n"], _ci(r, "utilisation", "{:.3f}"), _ci(r, "retransmissions", "{:.1f}"), _ci(r, "handoff_timeouts", "{:.1f}"), _ci(r, "interruption_s"), _ci(r, "idle_s"), _ci(r, "sender_idle_s"), f"{r['zwa_enabled']}/{r['zwa_disabled']}", r["stalled"]]
                for r in _rows(table, "7")
            ],
        ),
        "",
        "## Fig. 8: idle period after reassociation vs disconnection period",
        "",
        *md_table(
            ["arm", "hops", "period (s)", "n", "idle after reassoc. (s)", "sender idle (s)", "timeouts (all)", "handoff RTOs", "ZWA on/off"],
            [[r["arm"], r["hops"], f"{r['disconnect_s']:g}", r["n"], _ci(r, "idle_s"), _ci(r, "sender_idle_s"), _ci(r, "timeouts", "{:.1f}"), _ci(r, "handoff_timeouts", "{:.1f}"), f"{r['zwa_enabled']}/{r['zwa_disabled']}"] for r in _rows(table, "8")],
        ),
        "",
        "## Beyond the seed: the statistics module's fallback as T0 -> T2 grows (ZWA, 2 hops, 2 s away)",
        "",
        "Every control channel's latency set so that notice + flow delete + flow-removed take the given time "
        "(3 latencies + 2 x 1 ms processing); *T0->T2* is measured from the event log.",
        "",
        *md_table(
            ["T0->T2 set (ms)", "n", "T0->T2 measured (s)", "ZWA on/off", "handoff RTOs", "retransmissions", "idle after reassoc. (s)", "utilisation"],
            [[f"{r['t0t2_ms']:g}", r["n"], _ci(r, "t0t2_s", "{:.3f}"), f"{r['zwa_enabled']}/{r['zwa_disabled']}", _ci(r, "handoff_timeouts", "{:.1f}"), _ci(r, "retransmissions", "{:.1f}"), _ci(r, "idle_s"), _ci(r, "utilisation", "{:.3f}")] for r in sorted((r for r in table if r["fig"] == "stats"), key=lambda r: r["t0t2_ms"])],
        ),
        "",
        "## What the numbers say, and why they differ from the seed",
        "",
        "- **ZWA keeps the sender's state.** With the gate open the controller answers every segment that reaches it "
        "with a zero-window ACK; the Linux-style sender slides SND.UNA (its usable window goes negative, as the seed's "
        "§2.2 describes), enters persist once SND.UNA reaches SND.NXT, and no retransmission timer runs while the "
        "station is away. After reassociation the controller replays the stored segments to the station at once, so "
        f"new data reaches it within tens of ms of T3 (Fig. 7 idle after reassociation: {fmt_ci(idle_zwa)} s, against "
        f"bare TCP's {fmt_ci(idle_bare)} s); the station's own ACK of the replay then reopens the sender's window. What "
        f"ZWA does not keep on this stack is a correct SRTT: see the spurious RTOs above ({rto_text(SEED_STACK)} per "
        "gate-open run).",
        "- **Bare TCP idles after reassociation** because its RTO backed off while the station was away: the next "
        "retransmission is due up to one backed-off RTO after the station is back. Whether that is long or short in a "
        "run depends on where the backed-off RTO falls relative to T3, so Fig. 8's bare TCP is not monotonic in the "
        "disconnection period on this stack (the claim table above, per hop count).",
        f"- **The statistics module's fallback is {how_often} here.** It disabled ZWA in {n_dis} of {len(zwa7)} Fig. 7 ZWA "
        f"runs ({n_zwa_phase} independent roam phases: each seed, period and hop count draws its own) when a segment "
        f"reached the old AP between T0 and T2 (T0->T2 measured: {fmt_ci(t0t2, '{:.3f}')} s: notice, flow delete and "
        "flow-removed over 5 ms control channels). A window-limited sender at an 80 ms-per-link RTT sends its window in a "
        "burst; whether the burst crosses the old AP in those milliseconds decides the handoff. Those handoffs behave as "
        "bare TCP, which pulls the ZWA means towards bare TCP.",
        f"- **Fig. 6(b): a stall within the run, a reset after minutes.** Without the statistics module, {n_stall} of "
        f"{len(ns)} Fig. 7 runs stalled (no byte delivered in the {DEFAULTS['after_s']:g} s after reassociation): the "
        "segment dropped at the old AP lies behind what the ZWA acknowledged, the sender freed it and never resends it; "
        "the station's duplicate ACKs are older than SND.UNA and are ignored, so the sender stays in persist with "
        "backed-off probes. Linux aborts such a connection after tcp_retries2 (15) unanswered probes (tcp_probe_timer), "
        "and so does the endpoint here: on this stack (probes backed off to TCP_RTO_MAX, 120 s) the Fig. 6(b) run "
        "resets at about 1350 s (crates/sim/tests/it/sdn.rs), far beyond these runs, where the reset the seed shows is a stall.",
        f"- **Bare TCP's stalls** ({len(bare_stall)} of {len(bare_all)} bare Fig. 7 and Fig. 8 runs deliver nothing in the "
        f"{DEFAULTS['after_s']:g} s after T3; {bare_stall_undo} of them undid the loss): the MN's delayed ACK of the last "
        "segments before T0 is built after it left and refused by its MAC, so its receive window's edge (rcv_wup) has "
        "moved past the data the sender retransmits. The RTO retransmission after T3 arrives as a duplicate, below "
        "rcv_wup, so the station's ACK echoes the older timestamp (Linux updates ts_recent only at or below rcv_wup, "
        "tcp_replace_ts_recent) and the sender's undo check (tcp_try_undo_loss) takes the RTO for spurious: it leaves "
        "Loss with its old window and sends new data beyond the hole, but the 40,000-byte send buffer lets it send only "
        "two segments, two duplicate ACKs are one short of a fast retransmit, and the hole waits for the next backed-off "
        "RTO. This is what Linux does with this send buffer; a larger buffer (or SACK) would repair the hole at once.",
        f"- **Bare TCP's restart**: even a quick resume restarts from SND.UNA with cwnd 1 (retransmissions per Fig. 7 "
        f"handoff: {fmt_ci(retx_bare, '{:.1f}')}) where ZWA resumes with new data and its window intact "
        f"({fmt_ci(retx_zwa, '{:.1f}')}, from the handoffs the statistics module left to bare TCP).",
        "- Intervals: every quantity here (durations, utilisation, counts) is never below 0, so every interval is a "
        "percentile bootstrap of the mean (scipy.stats.bootstrap, 2000 resamples, fixed seed), which stays within the "
        "data's range.",
        "- Utilisation is relative to a no-roam run of the same length and stack rather than to a link capacity: the "
        "transfer is window-limited (40,000 bytes per RTT of at least 0.32 s), far below 10 Mb/s. The CUBIC + SACK arms "
        "are measured against the same (Reno) no-roam runs.",
        f"- **The SYN's RTO at 7 hops** ({z7_syn} of {len(z7)} ZWA runs at 7 hops time out before any handoff): the "
        "initial RTO is 1 s (TCP_TIMEOUT_INIT) and a 7-hop path's RTT is 1.12 s plus the reactive flow set-up, so "
        "every 7-hop run retransmits its SYN (in *timeouts (all)*, not in *handoff RTOs*).",
        f"- **Freeze-TCP** (Goff et al. 2000; the MN's radio announces the scripted roam {FREEZE_WARNING_RTTS:g} RTT "
        "of the pre-roam path ahead, the MN advertises a zero window from then on and sends three TR-ACKs on "
        f"reassociation), with the controller only routing: utilisation {fmt_ci(util7['freeze'], '{:.3f}')} against "
        f"ZWA's {fmt_ci(util7['zwa'], '{:.3f}')} (means over the Fig. 7 periods), handoff RTOs "
        f"{fmt_ci(hto7['freeze'])} against ZWA's {fmt_ci(hto7['zwa'])}. Its zero windows come from the MN over the "
        "whole path, so its SRTT stays honest and no spurious RTO follows; its idle after reassociation is one RTT (the "
        f"TR-ACK's trip and the new data's: {fmt_ci(idle8['freeze'])} s over Fig. 8) where ZWA's replay is local. It "
        "needs a warning of about an RTT: a Linux sender accepts the zero window only from an ACK of new data and keeps "
        "its retransmission timer while data is outstanding (crates/sim/tests/it/freeze.rs, warned 0.1 s ahead: 2 RTOs).",
        f"- **Legacy L2 roaming** (no controller: the switches learn where the MN is from the new AP's IAPP "
        f"ADD-notify): utilisation {fmt_ci(util7['legacy'], '{:.3f}')} against bare TCP's "
        f"{fmt_ci(util7['bare'], '{:.3f}')}: the handoff's cost is the sender's RTO backoff, not the routing.",
        f"- **M-TCP** (Brown and Singh 1997; a supervisor on each AP withholds the last byte of the MN's ACKs, "
        "acknowledges it with a zero window when the AP loses the MN, reopens on the new AP's move notice) does "
        "*not* freeze a Linux sender: with data outstanding under a zero window Linux keeps retransmitting on its "
        "timer (tcp_retransmit_timer: \"receiver dastardly shrinks window\"), so the RTO backoff happens anyway "
        f"(handoff RTOs {fmt_ci(hto7['mtcp'])}), and byte withholding costs throughput before the roam (utilisation "
        f"{fmt_ci(util7['mtcp'], '{:.3f}')}): a partial ACK delivers one whole packet fewer, so cwnd grows more slowly, "
        f"and with an initial window of 1 the first segment's ACK, a byte short, leaves the sender waiting for an RTO "
        f"(hence IW {MTCP_INITIAL_CWND} for this arm). M-TCP was designed against BSD senders that enter persist on a "
        "zero window whatever is outstanding (`ShrinkPolicy::Rfc` here).",
        f"- **CUBIC with SACK** (Linux's defaults, which the seed turned off), on the same profile: bare TCP utilisation "
        f"{fmt_ci(util7['bare-cubic-sack'], '{:.3f}')} against Reno's {fmt_ci(util7['bare'], '{:.3f}')}; with ZWA "
        f"{fmt_ci(util7['zwa-cubic-sack'], '{:.3f}')} against {fmt_ci(util7['zwa'], '{:.3f}')} (nothing is lost while "
        "the gate is open, so the congestion control matters little to ZWA's handoff).",
        "",
    ]
    if kernel is not None:
        from .kernel import section as kernel_section

        out += kernel_section(kernel, all_runs)
    if plots:
        out += ["## Plots", "", "![Fig. 6](plots/fig6_sequence.png)", "", "![Fig. 7](plots/fig7_utilisation_retransmissions.png)", "", "![Fig. 8](plots/fig8_idle.png)", ""]
    return "\n".join(out)
