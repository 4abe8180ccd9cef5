"""report.md of the tcpfender study (seed 002): the mesh and how it is
built, the seed's claims beside the measured values (95 % intervals over
seeds), the per-arm table, and the reasons for every difference."""

from __future__ import annotations

from pathlib import Path

from .report import Claim, Stats, claims_table, fmt, fmt_ci, md_table, ratio_stats, summarize
from .tcpfender_setup import ARMS, topology

MESH = """```
             A (200,0) -- 30% -- C (400,0) -- 40% -- F (600,0)
          20%/   |                  |                  |   \\30%
  S (0,100)     10%                10%                10%    D (800,100)
          40%\\   |                  |                  |   /60%
             B (200,200) -- 50% -- E (400,200) -- 20% -- G (600,200)
```"""


def _main(runs, arm):
    return [r for r in runs if r["part"] == "main" and r["arm"] == arm]


def _vals(runs, arm, key):
    return [r.get(key) for r in _main(runs, arm)]


def _none() -> Stats:
    nan = float("nan")
    return Stats(0, nan, nan, nan, nan)


def _pct(st: Stats) -> Stats:
    return Stats(st.n, 100 * (st.mean - 1), st.sd, 100 * (st.lo - 1), 100 * (st.hi - 1))


def _ci_row(r, k, spec):
    lo = r[f"{k}_lo"] if r[f"{k}_lo"] is not None else float("nan")
    hi = r[f"{k}_hi"] if r[f"{k}_hi"] is not None else float("nan")
    return fmt_ci(Stats(r["n"], r[f"{k}_mean"], float("nan"), lo, hi), spec)


def write_report(path: Path, sr, table, *, arms, seeds, duration_s, quick, delivery, plots) -> None:
    runs = sr.runs
    have = set(arms)
    g = {a: summarize(_vals(runs, a, "goodput_bps")) for a in arms}
    cw = {a: summarize(_vals(runs, a, "cwnd_mean")) for a in arms}
    dl = {a: summarize(_vals(runs, a, "delay_mean_s")) for a in arms}
    gain = _pct(ratio_stats(g["tcpfender"], g["tcpip"])) if {"tcpfender", "tcpip"} <= have else _none()
    delay_ratio = ratio_stats(dl["tcpip"], dl["tcpfender"]) if {"tcpfender", "tcpip"} <= have else _none()
    nan = float("nan")
    more_rel = Stats(g["more"].n, g["more"].mean / g["tcpip"].mean, nan, nan, nan) if {"more", "tcpip"} <= have and g["tcpip"].mean > 0 else _none()
    steps = [r.get("delivery_steps") or "" for r in _main(runs, "tcpfender")]
    step50 = Stats(len(steps), float(sum(1 for x in steps if x.split()[:1] == ["50"])), float("nan"), float("nan"), float("nan")) if steps else _none()
    claims = [
        Claim("TCPFender throughput gain over TCP/IP", "about +80 %", 80.0, gain, "goodput ratio - 1 over seeds (delta method)", "{:.1f}"),
        Claim("TCP/IP congestion window", "about 2", 2.0, cw.get("tcpip", _none()), "time mean of cwnd (segments) at S from 1 s, per run"),
        Claim("TCPFender congestion window", "about 4", 4.0, cw.get("tcpfender", _none()), "same"),
        Claim("Fig. 2: TCPFender delivers to TCP in steps of 50", "steps of 50", None, step50, "runs whose most frequent jump in delivered packets (10 ms samples) is 50", "{:.0f}"),
        Claim("Figs. 4-5: TCP/IP's delay is a fraction of TCPFender's", "a fraction", None, delay_ratio, "mean per-segment delay TCP/IP / TCPFender"),
        Claim("plain MORE carrying TCP collapses", "collapse", None, more_rel, "goodput MORE / TCP/IP"),
    ]
    L = ["# tcpfender: TCP over opportunistic forwarding with network coding (seed 002), reproduced", ""]
    L += [
        f"{len(runs)} runs: arms {', '.join(arms)}, seeds 1..{seeds} each, {duration_s:g} s per run"
        f"{' (--quick)' if quick else ''}; wall time {sr.wall_s:.1f} s with {sr.jobs} job(s).",
        "",
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
        "100-packet interface queues, 7 transmissions per unicast frame (dot11ShortRetryLimit). A link's "
        "loss rate hits every frame on it (data, TCP ACKs and 802.11 ACKs), on top of collisions. "
        "IP forwards along ETX shortest paths (S-A-C-F-D: ETX 8.4 against 14.6 for the bottom side). "
        "One bulk TCP flow S -> D for the whole run: NewReno, 1000-byte segments, a 20-packet window, "
        "every segment ACKed, no SACK or timestamps, minimum RTO 200 ms (ns-2's FTP over TCP/Newreno "
        "with TCPSink).",
        "",
        "Arms: " + "; ".join(f"`{k}` {v}" for k, v in ARMS.items() if k in have) + ". Coded arms carry "
        "coefficients only (a coded frame is sized as a whole 1040-byte segment plus the coded header); "
        "the forwarder list and credits are MORE's (ETX order, pruning below 10 % of the transmissions).",
        "",
        "Credits, as the seed did, come from loss rates measured with the PHY and the MAC at work: a "
        f"preliminary TCP/IP run (seed 1001, {duration_s:g} s) counts per link the data frames sent and "
        "decoded (collisions included); links that carried fewer than 50 frames keep the PHY estimate "
        "(1 - loss rate). Table at the end.",
        "",
        "## The seed's claims beside the measured values",
        "",
    ]
    L += claims_table(claims)
    L += ["", "## Per arm (mean [95 % CI] over seeds)", ""]
    rows = [
        [r["arm"], r["n"], _ci_row(r, "goodput_bps", "{:.0f}"), _ci_row(r, "pkts_delivered", "{:.0f}"), _ci_row(r, "cwnd_mean", "{:.2f}"), _ci_row(r, "delay_mean_s", "{:.2f}"), _ci_row(r, "timeouts", "{:.1f}"), _ci_row(r, "mac_retry_drops", "{:.1f}")]
        for r in table
        if r["part"] == "main"
    ]
    L += md_table(["arm", "runs", "goodput (b/s)", "packets delivered", "mean cwnd", "mean segment delay (s)", "RTOs", "MAC retry-limit drops"], rows)
    sweep = [r for r in table if r["part"] == "sweep"]
    if sweep:
        L += ["", "## Beyond the seed: TCPFender's batch size β and pipelining depth (goodput b/s, mean [95 % CI])", ""]
        betas = sorted({r["beta"] for r in sweep})
        pipes = sorted({r["pipeline"] for r in sweep})
        cell = {(r["beta"], r["pipeline"]): _ci_row(r, "goodput_bps", "{:.0f}") for r in sweep}
        L += md_table(["β \\ batches in flight"] + [str(p) for p in pipes], [[str(b)] + [cell.get((b, p), "-") for p in pipes] for b in betas])
    rts = [r for r in table if r["part"] == "rts"]
    if rts:
        L += ["", "## Beyond the seed: RTS/CTS before every unicast frame (ns-2's default RTSThreshold_ 0)", ""]
        L += md_table(["arm", "runs", "goodput (b/s)", "RTOs"], [[r["arm"], r["n"], _ci_row(r, "goodput_bps", "{:.0f}"), _ci_row(r, "timeouts", "{:.1f}")] for r in rts])
    L += ["", "## Differences and their reasons", ""]
    L += _explain(g, cw, dl, have, {r["arm"]: r["goodput_bps_mean"] for r in rts})
    if sweep:
        L.append(
            "- The sweep: one batch in flight stalls TCPFender (TCP's next segments wait for the batch ACK while the "
            "batch waits for TCP's retransmission of its missing segment); beyond two batches nothing changes, because "
            "a 20-packet window never spans more than two batches of β ≥ 16 (the rows for 2, 4 and 8 are identical "
            "runs). Larger batches do better here: fewer batch boundaries at which a lost degree of freedom stops the "
            "flow."
        )
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


def _explain(g, cw, dl, have, rts) -> list[str]:
    out = []
    if "tcpip" in have:
        out.append(
            f"- TCP/IP: {fmt(g['tcpip'].mean / 1e3, '{:.1f}')} kb/s, window averaging {fmt(cw['tcpip'].mean)} segments "
            "(seed: about 2). The 802.11 ARQ hides most losses: without collisions a frame is lost after 7 "
            "transmissions with probability 0.64^7 = 4 % on the worst path link (40 % loss on data and on ACKs), "
            "far less on the others; TCP sees those and the retry-limit drops that hidden-terminal collisions add, "
            "and its window is otherwise held by the 20-packet receive window."
        )
    if "tcpfender" in have:
        out.append(
            f"- TCPFender: {fmt(g['tcpfender'].mean / 1e3, '{:.1f}')} kb/s. The modules work as described (ACKs from "
            "the rank, decoded batches handed up 50 at a time, the saw-tooth of Fig. 4), but a degree of freedom lost "
            "on the way (a coded broadcast has no ARQ; credits only match the losses on average) leaves the batch one "
            "short: the receiver's ACK stops at βb + r, TCP's window fills with segments the receiver cannot yet "
            "acknowledge, and only TCP's own recovery (a fast retransmit on duplicate ACKs with new tags, or a "
            "retransmission timeout) releases more coded packets of the batch. Each such wait costs seconds, and the "
            "RTO grows with the batch-long RTT samples. This is the design as seed 002 §III.B specifies it: after early "
            "release the source sends only when TCP pushes a segment down (one redundancy factor's worth, a "
            "retransmission no more than a new segment), MORE forwarders send only on credit from upstream, and "
            "neither module has a timer or sends more of a batch the receiver's ACK shows short; with fewer than 3 "
            "segments beyond TCP's unacknowledged point the new-tag duplicate ACKs cannot trigger a fast retransmit, "
            "so an RTO is the only refill. Meanwhile the receiver module's one ACK per coded packet, and "
            "the TCP receiver's own ACKs for every decoded segment, go back by unicast over four lossy hops and take "
            "much of the airtime."
        )
        if "tcpip" in have and g["tcpfender"].mean < g["tcpip"].mean:
            text = (
                "- So we do not reproduce the seed's 80 % gain: in our mesh TCP/IP is faster. We did not bend the model "
                "toward the claim. The seed's topology and its ns-2 802.11 settings are unknown; ns-2 puts RTS/CTS "
                "before every unicast frame by default, and with the per-link loss hitting RTS, CTS, data and ACK alike "
                "that weakens TCP/IP a lot"
            )
            if "tcpip" in rts and "tcpfender" in rts:
                text += (
                    f" (with RTS/CTS: TCP/IP {rts['tcpip'] / 1e3:.1f} kb/s, TCPFender {rts['tcpfender'] / 1e3:.1f} kb/s, "
                    "whose ACKs travel by unicast too)"
                )
            out.append(text + ".")
    if "more" in have:
        out.append(
            "- Plain MORE carrying TCP delivers (almost) nothing: MORE sends a batch only when it holds β = 32 "
            "segments and waits for its ACK before the next, while TCP's 20-packet window (and its initial window "
            "of 2) never fills a batch; TCP times out, backs off, and each retransmission adds one more segment to "
            "the batch. This is the collapse the seed's introduction describes."
        )
    out.append(
        "- Our topology is not the seed's (its Fig. 1 is missing from the text) and our TCP/IP baseline "
        "uses ETX rather than an unspecified 'shortest path'; absolute packet counts therefore differ from "
        "the seed's Fig. 2, and only the comparison between arms carries over."
    )
    return out
