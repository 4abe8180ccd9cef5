"""report.md of the tcpfender study (seed 002): the mesh and how it is
built, the seed's claims beside the measured values for both readings of
TCPFender's source (95 % intervals over seeds), the per-arm tables (with and
without RTS/CTS, at smaller loss rates, over β and depth), and the reasons
for every difference, every number taken from the runs."""

from __future__ import annotations

from pathlib import Path

from ..reporting import Claim, Stats, claims_table, fmt, fmt_ci, md_table, ratio_stats, summarize
from .setup import ARMS, DEFAULT_STACK, STACKS, TCP_PROFILE, WINDOW_PACKETS, batches_spanned, topology
from .stacks import stacks_section

MESH = """```
             A (200,0) -- 30% -- C (400,0) -- 40% -- F (600,0)
          20%/   |                  |                  |   \\30%
  S (0,100)     10%                10%                10%    D (800,100)
          40%\\   |                  |                  |   /60%
             B (200,200) -- 50% -- E (400,200) -- 20% -- G (600,200)
```"""


def _main(runs, arm, part="main"):
    return [r for r in runs if r["part"] == part and r["arm"] == arm]


def _vals(runs, arm, key, part="main"):
    return [r.get(key) for r in _main(runs, arm, part)]


def _none() -> Stats:
    nan = float("nan")
    return Stats(0, nan, nan, nan, nan)


def _pct(st: Stats) -> Stats:
    return Stats(st.n, 100 * (st.mean - 1), st.sd, 100 * (st.lo - 1), 100 * (st.hi - 1))


def _ci_row(r, k, spec):
    lo = r[f"{k}_lo"] if r[f"{k}_lo"] is not None else float("nan")
    hi = r[f"{k}_hi"] if r[f"{k}_hi"] is not None else float("nan")
    return fmt_ci(Stats(r["n"], r[f"{k}_mean"], float("nan"), lo, hi), spec)


READINGS = (("tcpfender", "TCPFender, MORE's source"), ("tcpfender-literal", "TCPFender, literal reading"))


def _gain(g, arm) -> Stats:
    if arm not in g or "tcpip" not in g or not g["tcpip"].n or not (g["tcpip"].mean > 0):
        return _none()
    return _pct(ratio_stats(g[arm], g["tcpip"])) if g[arm].mean > 0 else Stats(g[arm].n, -100.0, float("nan"), float("nan"), float("nan"))


def _claims(runs, have) -> list[str]:
    """The seed's claims, measured for both readings side by side."""
    g = {a: summarize(_vals(runs, a, "goodput_bps")) for a in have}
    cw = {a: summarize(_vals(runs, a, "cwnd_mean")) for a in have}
    dl = {a: summarize(_vals(runs, a, "delay_mean_s")) for a in have}
    nan = float("nan")

    def steps(arm):
        st = [r.get("delivery_steps") or "" for r in _main(runs, arm)]
        return Stats(len(st), float(sum(1 for x in st if x.split()[:1] == ["50"])), nan, nan, nan) if st else _none()

    def delay_ratio(arm):
        return ratio_stats(dl["tcpip"], dl[arm]) if {"tcpip", arm} <= have and dl[arm].n and dl[arm].mean > 0 else _none()

    rows = [
        ("TCPFender throughput gain over TCP/IP (%)", "about +80 %", lambda a: fmt_ci(_gain(g, a), "{:+.0f}"), "goodput ratio - 1 over seeds (delta method)"),
        ("TCP/IP congestion window", "about 2", None, "time mean of cwnd (segments) at S from 1 s, per run"),
        ("TCPFender congestion window", "about 4", lambda a: fmt_ci(cw.get(a, _none())), "same"),
        ("Fig. 2: TCPFender delivers to TCP in steps of 50", "steps of 50", lambda a: f"{fmt(steps(a).mean, '{:.0f}')} of {steps(a).n} runs", "runs whose most frequent jump in delivered packets (10 ms samples) is 50"),
        ("Figs. 4-5: TCP/IP's delay is a fraction of TCPFender's", "a fraction", lambda a: fmt_ci(delay_ratio(a)), "mean per-segment delay TCP/IP / TCPFender"),
    ]
    out = []
    for what, seed_text, f, how in rows:
        if f is None:
            cell = fmt_ci(cw.get("tcpip", _none()))
            out.append([what, seed_text, cell, cell, how])
        else:
            out.append([what, seed_text] + [f(a) if a in have else "-" for a, _ in READINGS] + [how])
    if "more" in have:
        rel = g["more"].mean / g["tcpip"].mean if "tcpip" in have and g["tcpip"].mean > 0 else nan
        if not g["more"].mean > 0:
            verdict = "collapse: nothing delivered"
        elif rel < 0.2:
            verdict = f"near collapse: it delivers {_k(g['more'].mean)} kb/s, {fmt(rel)} of TCP/IP's"
        else:
            verdict = f"not reproduced: {_k(g['more'].mean)} kb/s, {fmt(rel)} of TCP/IP's"
        out.append(["plain MORE carrying TCP collapses", "collapse", verdict, "(same arm)", "goodput of the `more` arm over TCP/IP's"])
    return md_table(["claim", "seed", READINGS[0][1], READINGS[1][1], "how measured"], out)


def write_report(path: Path, sr, table, *, arms, seeds, duration_s, quick, delivery, plots, switches=None) -> None:
    runs = sr.runs
    have = set(arms)
    g = {a: summarize(_vals(runs, a, "goodput_bps")) for a in arms}
    cw = {a: summarize(_vals(runs, a, "cwnd_mean")) for a in arms}
    L = ["# tcpfender: TCP over opportunistic forwarding with network coding (seed 002), reproduced", ""]
    L += [
        f"**TCP stack: `{TCP_PROFILE}`** (ns-2's one-way `Agent/TCP/Newreno` with `Agent/TCPSink`, "
        "`packetSize_ 1000`, `window_ 20`, ns-2 2.35's defaults otherwise), our reading of the seed's "
        "\"computer simulation using Network Simulator ns-2 (version 2-25)\", which names neither agent nor sink. "
        "Sensitivity stack: `linux` (today's kernel; "
        + ", ".join(f"`{k} = {v}`" for k, v in STACKS["linux"].items() if k != "profile")
        + "), every arm, same seeds; section \"The two stacks\".",
        "",
        f"{len(runs)} runs: arms {', '.join(arms)}, seeds 1..{seeds} each, {duration_s:g} s per run"
        f"{' (--quick)' if quick else ''}; wall time {sr.wall_s:.1f} s with {sr.jobs} job(s).",
        "",
    ]
    stacks = stacks_section(runs, switches or {}, TCP_PROFILE)
    if stacks:
        L += ["## The claims on both stacks (flips and moves first)", ""] + stacks + [""]
    L += [
        "## Setup",
        "",
        "The seed's Fig. 1 (topology with physical-layer loss rates) is not in its text. Our mesh "
        "(`scenarios/mesh-tcpfender.toml`): eight nodes on a ladder, S and D at opposite ends, the "
        "loss rate of each link in both directions:",
        "",
        MESH,
        "",
        "ns-2's 914 MHz WaveLAN radio (two-ray ground, 250 m reception, 550 m carrier sense: S and F, "
        "and B and D, are hidden from each other), 802.11b DSSS at 1 Mb/s for unicast and broadcast, "
        "100-packet interface queues. The MAC is ns-2's `Mac/802_11` with its defaults, which ns-2 2.35 "
        "prints as `RTSThreshold_ 0`, `ShortRetryLimit_ 7`, `LongRetryLimit_ 4`, `dataRate_ 1Mb`, "
        "`basicRate_ 1Mb`: RTS/CTS before every unicast frame, 7 attempts of an RTS, 4 of a data frame "
        "sent after a CTS. RTS/CTS is the default arm because the seed ran ns-2 and names no other "
        "setting, and its own figure agrees: it reports TCP/IP's window at about 2, which is what TCP/IP "
        "keeps here with RTS/CTS and not without (tables below). Without RTS/CTS is the sensitivity arm. "
        "A link's loss rate hits every frame on it (RTS, CTS, data, TCP ACKs and 802.11 ACKs), on top of "
        "collisions. IP forwards along ETX shortest paths (S-A-C-F-D). One bulk TCP flow S -> D for the "
        f"whole run (FTP's send-forever) on `{TCP_PROFILE}`: packets numbered from a 40-byte SYN, 1000-byte "
        "packets, a 20-packet window, windowInit_ 2, every packet ACKed, ns-2's tick-based RTO (10 ms tick, "
        "minimum 200 ms, 3 s before the first sample). The TCPFender modules translate between the agents' "
        "packet numbers and the wire's byte sequence numbers (`crates/sim/src/world/ns2_fender_tests.rs`).",
        "",
        "Arms: " + "; ".join(f"`{k}` {v}" for k, v in ARMS.items() if k in have) + ". Coded arms carry "
        "coefficients only (a coded frame is sized as a whole 1040-byte segment plus the coded header); "
        "the forwarder list and credits are MORE's (ETX order, pruning below 10 % of the transmissions).",
        "",
        "Two readings of TCPFender's source. The seed says the nodes \"run an enhanced version of MORE\" "
        "with two changes, early release (\"if k packets (k < 50) have been sent down by TCP at a point of "
        "time, a random linear combination of these k packets is created and transmitted\") and deeper "
        "pipelining; both change when the source may start a batch, not how much it sends. MORE's source "
        "(Chachulski et al., SIGCOMM 2007, §4) \"keeps transmitting coded packets from the current batch "
        "until the batch is acked\". `tcpfender` does that: after the z_src packets each TCP segment earns, "
        "the sender module sends one more coded packet of the oldest batch its receiver's ACKs do not "
        "cover whenever the MAC takes a frame; an early-released batch of k segments counts as covered once "
        "the receiver's ACK reaches βb + k. `tcpfender-literal` sends only the z_src packets per segment "
        "TCP pushes down (new or retransmitted), so a batch short of a degree of freedom is refilled only "
        "by TCP's own recovery. Forwarders that see an ACK pass flush the batches it covers; when they still "
        "hear those batches from upstream they repeat the latest ACK toward the source (MORE batch ACKs and "
        "TCPFender ACKs alike).",
        "",
        "Plain MORE: MORE's batches are K natives of a file that is all there; the paper says nothing of a "
        "source that runs short, and under TCP's 20-packet window a 32-packet batch never fills. Our rule: "
        "a batch closes at 32 segments or 100 ms after its first segment, whichever comes first, and is sent "
        "as a batch of the k it holds (code vectors of length k). The timer is ours, not MORE's.",
        "",
        "Credits, as the seed did, come from loss rates measured with the PHY and the MAC at work: a "
        f"preliminary TCP/IP run (seed 1001, {duration_s:g} s, without RTS/CTS, since broadcasts never have it and must "
        "meet the same collisions) counts per link the data frames sent and decoded (collisions included); links that carried fewer than 50 frames keep the PHY estimate "
        "(1 - loss rate). Table at the end.",
        "",
        "## The seed's claims beside the measured values (RTS/CTS, both readings)",
        "",
    ]
    L += _claims(runs, have)
    if any(r["part"] == "stack" for r in table):
        L += ["", "## Per arm on `linux`, RTS/CTS (mean [95 % CI] over seeds)", ""]
        L += _arm_table([r for r in table if r["part"] == "stack"])
    sw = [r for r in table if r["part"] == "switch"]
    if sw:
        L += ["", "## Per arm on `linux` with one behaviour switched off, RTS/CTS", ""]
        for name in sorted({r["switch"] for r in runs if r["part"] == "switch"}):
            L += ["", f"Without {(switches or {}).get(name, (name,))[0]}:", ""]
            L += _arm_table([r for r in table if r["part"] == "switch" and r.get("switch") == name])
    L += ["", f"## Per arm, RTS/CTS, `{TCP_PROFILE}` (mean [95 % CI] over seeds)", ""]
    L += _arm_table([r for r in table if r["part"] == "main"])
    base = {DEFAULT_STACK: "main", **{k: "stack" for k in STACKS if k != DEFAULT_STACK}}
    for stack, base_part in base.items():
        L += _beyond_seed(table, runs, have, arms, stack, base_part)
    gs = {a: summarize(_vals(_on(runs, DEFAULT_STACK), a, "goodput_bps", "no-rts")) for a in arms} if _on(table, DEFAULT_STACK, "no-rts") else {}
    L += ["", "## Differences and their reasons", ""]
    L += _explain(runs, table, g, gs, cw, have)
    if plots:
        L += ["", "## Plots", ""]
        L += [f"![{p}]({p})" for p in plots]
    pos, links = topology()
    meas = {(a, b): p for a, b, p in (delivery or [])}
    L += ["", "## Links: loss rate, and the delivery the credits use", ""]
    L += md_table(
        ["link", "loss rate", "distance (m)", "measured delivery a->b", "measured delivery b->a"],
        [[f"{a}-{b}", f"{p:.0%}", f"{((pos[a][0] - pos[b][0]) ** 2 + (pos[a][1] - pos[b][1]) ** 2) ** 0.5:.0f}", fmt(meas.get((a, b)), "{:.3f}"), fmt(meas.get((b, a)), "{:.3f}")] for a, b, p in links],
    )
    path.write_text("\n".join(L) + "\n")


def _on(rows, stack, part=None):
    """The rows of `stack` (and of `part`, if given)."""
    return [r for r in rows if r.get("stack") == stack and (part is None or r["part"] == part)]


def _beyond_seed(table, runs, have, arms, stack, base_part) -> list[str]:
    """The parts beyond the seed on `stack` (without RTS/CTS, loss scaled,
    β × depth); `base_part` holds the stack's runs at the study's defaults."""
    L: list[str] = []
    tag = f"`{stack}`"
    sens = _on(table, stack, "no-rts")
    if sens:
        L += ["", f"## Sensitivity on {tag}: without RTS/CTS (mean [95 % CI] over seeds)", ""]
        L += _arm_table(sens)
        L += ["", f"Claims without RTS/CTS on {tag}:", ""]
        L += _claims([dict(r, part="main") for r in _on(runs, stack, "no-rts")], have)
    loss = _on(table, stack, "loss")
    if loss:
        L += ["", f"## Beyond the seed on {tag}: every link's loss rate scaled (RTS/CTS; goodput kb/s, mean [95 % CI])", ""]
        scales = sorted({r["loss_scale"] for r in loss}) + [1.0]
        la = [a for a in ARMS if any(r["arm"] == a for r in loss)]
        kb = lambda r: _ci_row({**r, **{k: (v / 1e3 if v is not None else None) for k, v in r.items() if k.startswith("goodput_bps_")}}, "goodput_bps", "{:.1f}")
        cell = {(r["arm"], r["loss_scale"]): kb(r) for r in loss}
        for r in _on(table, stack, base_part):
            if r["arm"] in la:
                cell[(r["arm"], 1.0)] = kb(r)
        stall = {(r["arm"], r["loss_scale"]): r["longest_stall_s_mean"] for r in loss}
        stall.update({(r["arm"], 1.0): r["longest_stall_s_mean"] for r in _on(table, stack, base_part)})
        L += md_table(["arm"] + [f"loss x{k:g}" for k in scales] + [f"longest stall (s) at x{k:g}" for k in scales], [[a] + [cell.get((a, k), "-") for k in scales] + [fmt(stall.get((a, k)), "{:.1f}") for k in scales] for a in la])
        L += [""] + _loss_bullets(table, stack, base_part)
    sweep = _on(table, stack, "sweep")
    if sweep:
        L += ["", f"## Beyond the seed on {tag}: TCPFender (MORE's source) over β and pipelining depth (goodput b/s, mean [95 % CI])", ""]
        betas = sorted({r["beta"] for r in sweep})
        pipes = sorted({r["pipeline"] for r in sweep})
        cell = {(r["beta"], r["pipeline"]): _ci_row(r, "goodput_bps", "{:.0f}") for r in sweep}
        L += md_table(["β \\ batches in flight"] + [str(p) for p in pipes], [[str(b)] + [cell.get((b, p), "-") for p in pipes] for b in betas])
        L += ["", _sweep_note(_on(runs, stack))]
    return L


def _loss_bullets(table, stack, base_part) -> list[str]:
    """Whether goodput falls as every link's loss falls, per arm on `stack`."""
    out = []
    by = {(r["arm"], r["loss_scale"]): r["goodput_bps_mean"] for r in _on(table, stack, "loss")}
    by.update({(r["arm"], 1.0): r["goodput_bps_mean"] for r in _on(table, stack, base_part)})
    scales = sorted({k for _, k in by}, reverse=True)
    for arm in [a for a in ("tcpip", "tcpfender", "tcpfender-literal") if any(k[0] == a for k in by)]:
        seq = [by.get((arm, k)) for k in scales]
        mono = all(b is not None and a is not None and b >= a for a, b in zip(seq, seq[1:]))
        out.append(
            f"- `{stack}`, loss scaled x{' / x'.join(f'{k:g}' for k in scales)}, {arm}: "
            + " / ".join(_k(x) for x in seq)
            + " kb/s: "
            + ("goodput does not fall as loss falls." if mono else "goodput FALLS somewhere as loss falls: a liveness failure, not a throughput limit.")
        )
    return out


def _arm_table(rows) -> list[str]:
    return md_table(
        ["arm", "runs", "goodput (b/s)", "packets delivered", "mean cwnd", "mean segment delay (s)", "RTOs", "longest stall (s)", "broadcasts", "MAC retry-limit drops"],
        [
            [r["arm"], r["n"], _ci_row(r, "goodput_bps", "{:.0f}"), _ci_row(r, "pkts_delivered", "{:.0f}"), _ci_row(r, "cwnd_mean", "{:.2f}"), _ci_row(r, "delay_mean_s", "{:.2f}"), _ci_row(r, "timeouts", "{:.1f}"), _ci_row(r, "longest_stall_s", "{:.1f}"), _ci_row(r, "mac_broadcast_tx", "{:.0f}"), _ci_row(r, "mac_retry_drops", "{:.1f}")]
            for r in rows
        ],
    )


def _sweep_note(runs) -> str:
    """Why the sweep stops at the depth a window can span."""
    sw = [r for r in runs if r["part"] == "sweep"]
    spans = ", ".join(f"β = {b}: {batches_spanned(b)}" for b in sorted({r["beta"] for r in sw}))
    return (
        f"A {WINDOW_PACKETS}-packet window touches at most ceil({WINDOW_PACKETS - 1}/β) + 1 batches ({spans}); the sender "
        "module opens a batch only for a segment TCP sends, and TCP never has more than its window beyond the ACK, so a "
        "deeper pipeline holds no more batches and would run the same simulation under another label. The sweep runs "
        "every depth up to that span and no further." + _repeats(sw)
    )


def _repeats(sw) -> str:
    """Depths within the span whose runs repeated the depth below, seed for
    seed: TCP's window never reached the extra batch."""
    same = []
    for beta in sorted({r["beta"] for r in sw}):
        at = {(r["pipeline"], r["seed"]): r["goodput_bps"] for r in sw if r["beta"] == beta}
        for d in sorted({p for p, _ in at}):
            seeds = [s for p, s in at if p == d]
            if d > 1 and seeds and all((d - 1, s) in at and at[(d, s)] == at[(d - 1, s)] for s in seeds):
                same.append(f"β = {beta} at depth {d}")
    if not same:
        return ""
    return (
        " Measured: " + ", ".join(same) + " repeated the depth below seed for seed (the same goodput): the congestion "
        "window stayed too small to reach the extra batch, so those cells are one simulation, not two."
    )


def _k(x) -> str:
    return fmt(x / 1e3 if x is not None and x == x else None, "{:.1f}")


def _explain(runs, table, g, gs, cw, have) -> list[str]:
    out = []
    main = {r["arm"]: r for r in table if r["part"] == "main"}
    if "tcpip" in have:
        t = main["tcpip"]
        line = (
            f"- TCP/IP: {_k(g['tcpip'].mean)} kb/s with RTS/CTS, window averaging {fmt(cw['tcpip'].mean)} segments "
            f"(seed: about 2), {fmt(t['mac_retry_drops_mean'], '{:.0f}')} MAC retry-limit drops a run. With RTS/CTS a "
            "unicast exchange is four frames, each hit by the link's loss rate, so an attempt on a 40 % link "
            "succeeds with probability 0.6^4 = 13 %; the retry limits (7 RTS, 4 data) then drop frames TCP must recover."
        )
        if "tcpip" in gs:
            line += f" Without RTS/CTS: {_k(gs['tcpip'].mean)} kb/s."
        out.append(line)
    for arm, name in READINGS:
        if arm not in have:
            continue
        r = main[arm]
        gain = _gain(g, arm)
        out.append(
            f"- {name}: {_k(g[arm].mean)} kb/s ({fmt(gain.mean, '{:+.0f}')} % against TCP/IP), mean window "
            f"{fmt(cw[arm].mean)}, {fmt(r['timeouts_mean'], '{:.1f}')} RTOs, longest time without delivery "
            f"{fmt(r['longest_stall_s_mean'], '{:.1f}')} s (mean over seeds), {fmt(r['mac_broadcast_tx_mean'], '{:.0f}')} broadcasts."
            + (f" Without RTS/CTS: {_k(gs[arm].mean)} kb/s ({fmt(_gain(gs, arm).mean, '{:+.0f}')} %)." if arm in gs and "tcpip" in gs else "")
        )
    lin = {r["arm"]: r for r in table if r["part"] == "stack"}
    per_ack = {r["arm"]: r for r in table if r["part"] == "switch" and r.get("switch") == "per-packet-growth"}
    if "tcpfender" in have:
        w = cw["tcpfender"].mean
        line = (
            f"- TCPFender's window with MORE's source averages {fmt(w)} on `{TCP_PROFILE}` "
            + ("(far above the seed's 4, and above the 20-packet receive window: TCP's cwnd grows on every module ACK while the receive window caps what is in flight)." if w > 6 else "(near the seed's 4).")
        )
        if "tcpfender" in lin:
            line += (
                f" On `linux` it averages {fmt(lin['tcpfender']['cwnd_mean_mean'])} and goodput is {_k(lin['tcpfender']['goodput_bps_mean'])} kb/s "
                f"(TCP/IP {_k(lin['tcpip']['goodput_bps_mean']) if 'tcpip' in lin else '-'}): the module's ACKs cross four lossy unicast hops back and "
                "most are lost, so each one that arrives covers many packets; Linux's slow start adds one segment per packet "
                "acknowledged, ns-2's one per ACK."
            )
        if "tcpfender" in per_ack:
            line += (
                f" Linux with per-ACK growth (`cc = newreno`): window {fmt(per_ack['tcpfender']['cwnd_mean_mean'])}, "
                f"{_k(per_ack['tcpfender']['goodput_bps_mean'])} kb/s (TCP/IP {_k(per_ack['tcpip']['goodput_bps_mean']) if 'tcpip' in per_ack else '-'})."
            )
        out.append(line)
    if {"tcpfender", "tcpfender-literal"} <= have:
        out.append(
            "- Why the literal reading stalls: a coded broadcast has no ARQ and the credits only match the "
            "losses on average, so a batch often arrives one degree of freedom short. The receiver's ACK stops "
            "at βb + r; TCP's window fills with segments the receiver cannot acknowledge; and the only thing "
            "that releases more packets of the batch is a segment from TCP, i.e. a fast retransmit (which needs "
            "three duplicate ACKs with new tags, rare with fewer than 3 segments beyond the hole) or an RTO, "
            "whose back-off doubles because Karn's rule leaves no clean sample. With MORE's source the module "
            "keeps sending the short batch until the receiver's ACK covers it, so a missing degree of freedom "
            "costs one more frame time instead of an RTO."
        )
    for stack, base_part in {DEFAULT_STACK: "main", **{k: "stack" for k in STACKS if k != DEFAULT_STACK}}.items():
        out += _loss_bullets(table, stack, base_part)
    if {"tcpip", "tcpfender"} <= have:
        out.append(
            f"- Stalls: with RTS/CTS at the study's loss rates the path itself stalls: TCP/IP's longest time without "
            f"delivery is {fmt(main['tcpip']['longest_stall_s_mean'], '{:.1f}')} s on average (RTOs backing off behind "
            f"retry-limit drops), TCPFender's {fmt(main['tcpfender']['longest_stall_s_mean'], '{:.1f}')} s, the literal "
            f"reading's {fmt(main['tcpfender-literal']['longest_stall_s_mean'], '{:.1f}') if 'tcpfender-literal' in main else '-'} s. "
            "The liveness bound is checked where the path delivers steadily (without RTS/CTS, loss x0 / x0.5 / x1: "
            "`crates/sim/tests/it/mesh.rs`, a decoded batch at least every 15 s with MORE's source; the literal reading "
            "breaks it)."
        )
    if "more" in have:
        r = main["more"]
        out.append(
            f"- Plain MORE carrying TCP: {_k(g['more'].mean)} kb/s, {fmt(r['timeouts_mean'], '{:.1f}')} RTOs. With the "
            "batch timer it delivers: each batch holds the few segments TCP's window lets out in 100 ms and crosses "
            "as one unit, one batch at a time, and the source waits for the batch ACK (unicast over four lossy hops) "
            "and then for TCP's own ACKs before the next batch can form. The seed's \"decoding delay\" shows as that "
            "round trip per batch; without the timer (size only) a 32-segment batch never fills under a 20-packet "
            "window and nothing is delivered at all, which is an artefact of batching by size, not a finding."
        )
    out.append(
        "- Our topology is not the seed's (its Fig. 1 is missing from the text) and our TCP/IP baseline "
        "uses ETX rather than an unspecified 'shortest path'; absolute packet counts therefore differ from "
        "the seed's Fig. 2, and only the comparison between arms carries over."
    )
    return out
