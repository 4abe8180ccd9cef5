"""report.md of ``airtcp reproduce sdn-zwa``: the setup and its wiring, the
seed's claims beside the measured values, the per-figure tables and the
explanations of the differences."""

from __future__ import annotations

from .report import Claim, Stats, claims_table, fmt, md_table, summarize, summarize_counts
from .sdn_zwa_setup import ARM_LABELS, ATTACH, DEFAULTS, FREEZE_WARNING_RTTS, MTCP_INITIAL_CWND

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


#: Per-run counts: pooled with a bootstrap interval (never below 0).
COUNTS = ("retransmissions", "timeouts", "handoff_timeouts")


def _pool(runs, fig, arm, key, hops=None):
    xs = [r[key] for r in runs if r["fig"] == fig and r["arm"] == arm and (hops is None or r["hops"] == hops)]
    return summarize_counts(xs) if key in COUNTS else summarize(xs)


def report_md(sr, table, *, seeds: int, quick: bool, plots: bool) -> str:
    runs = sr.runs
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
    z7_after = summarize_counts([r["handoff_timeouts"] for r in z7])
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
        f"{len(runs)} runs, {seeds} seeds per point{' (--quick)' if quick else ''}, wall time {sr.wall_s:.1f} s with {sr.jobs} job(s).",
        "",
        "## Setup",
        "",
        WIRING,
        "",
        f"Every wired link 10 Mb/s with {DEFAULTS['delay_ms']:g} ms delay; 802.11g at 12 Mb/s, APs 30 m apart, the MN "
        "between AP1 and AP2 (in range of both). The MN leaves AP1 at 10 s plus a seeded offset in [0, 1) s (so the "
        "disassociation meets the sender's bursts at a different phase in every run), stays away for the disconnection "
        "period (radio silent, no scan), scans and reassociates to AP2. Hop count = links from CN to AP2 "
        f"({', '.join(f'{h} hops: CN on {s.upper()}' for h, s in ATTACH.items())}). TCP: Linux Reno, SACK off, "
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
        "station is away: no timeout, no cwnd collapse. After reassociation the controller replays the stored segments "
        "to the station and the station's own ACK reopens the window; the idle time left is that ACK's trip to the "
        "sender (about the one-way delay of the path), not a backed-off RTO.",
        "- **Bare TCP idles after reassociation** because its RTO backed off while the station was away: the next "
        "retransmission is due up to one backed-off RTO after the station is back, growing with the disconnection "
        "period and with the path's RTT (hop count), as the seed's Fig. 8 shows.",
        f"- **The statistics module's fallback is {how_often} here.** It disabled ZWA in {n_dis} of {len(zwa7)} Fig. 7 ZWA "
        f"runs ({n_zwa_phase} independent roam phases: each seed, period and hop count draws its own) when a segment reached the old AP between T0 and T2 (T0->T2 is about 17 ms here: notice 6 ms, delete 5 ms, "
        "flow-removed 6 ms). A window-limited sender at an 80 ms-per-link RTT sends its window in a burst; whether "
        "the burst crosses the old AP in those milliseconds decides the handoff. Those handoffs behave as bare TCP, "
        "which pulls the ZWA means towards bare TCP; the seed's 40,000-byte window was chosen for the same reason.",
        f"- **Fig. 6(b): a stall, not a reset.** Without the statistics module, {n_stall} of {len(ns)} Fig. 7 runs "
        "stalled for good (no byte delivered after reassociation): the segment dropped at the old AP lies behind what "
        "the ZWA acknowledged, the sender freed it and never resends it; the station's duplicate ACKs are older than "
        "SND.UNA and are ignored, so the sender stays in persist with exponentially spaced probes. Linux aborts such a "
        "connection after tcp_retries2 (15) unanswered probes (tcp_probe_timer), which at a backed-off probe interval "
        "takes minutes; the simulator's persist timer does not abort, so the reset the seed shows is counted here as a "
        "stall.",
        "- **Bare TCP's interruption is a lottery on one run** (Fig. 6(a) here): new data reaches the station only after "
        "the next backed-off RTO after T3, anywhere between 0 and one RTO (1, 2, 4, 8 s...) after it, so a single run may resume "
        "quickly; the means over seeds show the effect, and even a quick resume restarts from SND.UNA with cwnd 1 "
        "(about 28 retransmissions per handoff) where ZWA resumes with new data and its window intact.",
        "- Intervals: means with a 95 % t interval; counts (retransmissions, timeouts) with a percentile bootstrap "
        "interval of the mean (scipy.stats.bootstrap), which stays within the counts' range.",
        "- *stalled* counts runs with no byte delivered in the 10 s after T3: for ZWA without statistics the Fig. 6(b) "
        "hole; for bare TCP (and the ZWA handoffs left to it) with long disconnections, a backed-off RTO that falls "
        "after the end of the run.",
        "- Utilisation is relative to a no-roam run of the same length rather than to a link capacity: the transfer "
        "is window-limited (40,000 bytes per RTT of at least 0.32 s), far below 10 Mb/s. The CUBIC + SACK arms are "
        "measured against the same (Reno) no-roam runs.",
        f"- **The 7-hop RTOs with the gate open** ({z7_syn} of {len(z7)} ZWA runs at 7 hops have an RTO before any "
        f"handoff; RTOs after T0: {fmt(z7_after.mean, '{:.2f}')} per run). Two causes, both real behaviour rather than "
        "a model bug: (1) the SYN's first RTO: the initial RTO is 1 s (RFC 6298) and a 7-hop path's RTT is 1.12 s "
        "plus the reactive flow set-up, so every 7-hop run of every arm retransmits its SYN at 2.0 s (it is in "
        "*timeouts (all)*, not in *handoff RTOs*); (2) after the window reopens, the first new segment's RTO fires "
        "1.0 s later, before its ACK can return over the 1.12-s path: during the freeze the sender took an RTT sample "
        "from every zero-window ACK, and those come from the datapath nearest the sender that lost the station's "
        "flow (S8 at 7 hops, 2 x 80 ms + the control channel away, about 0.17 s), so SRTT fell and the RTO sat at "
        "its 1-s floor. The sender restarts from cwnd 1 (Loss) and leaves Loss within about 0.4 s. Freeze-TCP, whose zero windows come from "
        "the MN over the whole path, keeps an honest SRTT and has no such RTO; neither does ZWA at 3 or 5 hops, "
        "where the path RTT (0.48 / 0.8 s) is below the 1-s floor.",
        f"- **Freeze-TCP** (Goff et al. 2000; the MN's radio announces the scripted roam {FREEZE_WARNING_RTTS:g} RTT "
        "of the pre-roam path ahead, the MN advertises a zero window from then on and sends three TR-ACKs on "
        "reassociation): with the controller only routing, it matches ZWA's utilisation and beats its idle time "
        "(the TR-ACK leaves the MN at T3, while ZWA's reopening waits for the replay and the station's ACK), with no "
        "retransmission and no controller logic. It needs a warning of about an RTT: a Linux sender accepts the "
        "zero window only from an ACK of new data and keeps its retransmission timer while data is outstanding, so "
        "data sent after the last ACK that leaves before the MN does is lost with it "
        "(crates/sim/tests/freeze.rs, warned 0.1 s ahead: 2 RTOs). The cost: the window closes a warning period "
        "early. The TR-ACKs reopen the window, but only the first counts as a window update; the other two are "
        "duplicate ACKs, not enough for a fast retransmit.",
        f"- **Legacy L2 roaming** (no controller: the switches learn where the MN is from the new AP's IAPP "
        "ADD-notify, which floods across them) behaves as bare TCP: the handoff's cost is the sender's RTO backoff, "
        "not the routing, which is fixed as soon as the MN reassociates.",
        f"- **M-TCP** (Brown and Singh 1997; a supervisor on each AP withholds the last byte of the MN's ACKs, "
        "acknowledges it with a zero window when the AP loses the MN, reopens on the new AP's move notice) does "
        "*not* freeze a Linux sender: with data outstanding under a zero window Linux keeps retransmitting on its "
        "timer (tcp_retransmit_timer: \"receiver dastardly shrinks window\"), so the RTO backoff happens anyway, "
        "and byte withholding costs throughput before the roam: a partial ACK delivers one whole packet fewer, so "
        "cwnd grows more slowly, and with the seed's initial window of 1 the first segment's ACK, a byte short, "
        f"leaves the sender waiting for an RTO (hence IW {MTCP_INITIAL_CWND} for this arm). M-TCP was designed "
        "against BSD senders that enter persist on a zero window whatever is outstanding "
        "(`ShrinkPolicy::Rfc` here); its utilisation below bare TCP is the Linux sender's, not a model fault.",
        "- **CUBIC with SACK** (Linux's defaults, which the seed turned off): bare TCP loses less (fewer handoff "
        "RTOs at short disconnections: the tail loss probe and RACK repair part of the window lost with the MN, and "
        "CUBIC's window after the loss is larger than Reno's), so its utilisation is higher than with Reno, but it "
        "still waits for backed-off RTOs at long disconnections; with ZWA the handoff is the same as with Reno "
        "(nothing is lost while the gate is open) and ZWA stays ahead.",
        "",
    ]
    if plots:
        out += ["## Plots", "", "![Fig. 6](plots/fig6_sequence.png)", "", "![Fig. 7](plots/fig7_utilisation_retransmissions.png)", "", "![Fig. 8](plots/fig8_idle.png)", ""]
    return "\n".join(out)
