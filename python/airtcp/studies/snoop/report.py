"""``report.md`` of the snoop study: the setup with its sources, the seed's
claims beside what we measured, response-time tables, and findings in which
every number is computed from the runs."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

from ..reporting import NAN, Claim, claims_table, fmt, fmt_ci, is_missing, md_table, ratio_stats, summarize
from .setup import (
    ARM_NOTES,
    DEFAULTS,
    HEADERS,
    MAC_NOTES,
    MACS,
    POSITIONS,
    SEED_S1_RATE,
    SEED_S1_RATIO,
    SETUPS,
    INITIAL_CWND,
    PROFILE_VS_TABLE,
    SEED_MSS,
    SEED_RCV_BUF,
    STACK_PAIRS,
    TCP_TABLE,
    WIFI,
    WLAN,
    arms_for,
    link_time_us,
    wlan_difs_us,
    wlan_exchange_us,
    wlan_fixed_us,
    wlan_mac_bytes,
)
from .stacks import _stack_section
from .table import MAC_NAMES, Table, _cell, _verdict, _x, of_mac


def _setup_section(nbytes: int, duration_s: float) -> list[str]:
    d, w = DEFAULTS, WLAN
    seg_ip = SEED_MSS + HEADERS
    ov = d["wireless_overhead_bytes"]
    L = ["## Setup\n"]
    L.append(
        f"`server --{d['wired_rate']}, {d['wired_delay']} (Ethernet)-- ap ==802.11b {d['wireless_rate']}, "
        f"{d['wireless_delay']}== m1 [, m2]`: the 802.11b DCF MAC (default) or one point-to-point wireless link per mobile (`--mac p2p`). Transfers of "
        f"**{nbytes:,} bytes** (app `transfer`), response time = connection start to the last byte acknowledged; "
        f"runs are capped at {duration_s:g} s of simulated time and a transfer not done by then is counted as "
        "**unfinished** (never dropped from the counts; the means are over finished runs and then a lower bound). "
        "Every loss comes from the seed's PEG agent, which drops data segments (not ACKs) leaving and arriving "
        "at its node with the scenario's drop rate; the links themselves lose nothing.\n"
    )
    L.append(
        f"**Wired**: the seed's figures put the host server on the wired side of the access point (the fixed host "
        f"- base station - mobile topology of Balakrishnan et al.'s Snoop); the slides do not give that link, so it is "
        f"a 100BASE-TX Ethernet LAN, the usual attachment of a server to an access point: {d['wired_rate']}, "
        f"{d['wired_delay']} one way "
        f"(LAN, switch and host), {d['wired_overhead_bytes']} bytes per frame (IEEE 802.3 preamble + SFD 8, "
        "header 14, FCS 4, inter-frame gap 12). It is never the bottleneck.\n"
    )
    L.append(
        "**Wireless**: an 802.11b (IEEE 802.11-2016 clause 16, HR/DSSS) station sending at 11 Mb/s. The point-to-point "
        "link has no MAC of its own, so one exchange's whole airtime is folded into the link's per-frame "
        "`overhead_bytes` at 11 Mb/s:\n"
    )
    ack_us = w["plcp_us"] + w["ack_bytes"] * 8 / (w["ack_rate_bps"] / 1e6)
    L.extend(
        md_table(
            ["part of one data exchange", "802.11b value", "time"],
            [
                ["DIFS = SIFS + 2 slots", f"{w['sifs_us']:g} + 2 x {w['slot_us']:g} us", f"{wlan_difs_us():g} us"],
                [
                    "mean backoff = CWmin/2 slots",
                    f"{w['cw_min']}/2 x {w['slot_us']:g} us",
                    f"{w['cw_min'] / 2 * w['slot_us']:g} us",
                ],
                ["long PLCP preamble + header (1 Mb/s)", "144 + 48 bits", f"{w['plcp_us']:g} us"],
                [
                    "MAC header + LLC/SNAP + FCS (11 Mb/s)",
                    f"{w['mac_header_bytes']} + {w['llc_snap_bytes']} + {w['fcs_bytes']} bytes",
                    f"{wlan_mac_bytes() * 8 / 11:.1f} us",
                ],
                ["SIFS", "", f"{w['sifs_us']:g} us"],
                ["ACK: PLCP + 14 bytes at 2 Mb/s", f"192 us + {w['ack_bytes']} bytes", f"{ack_us:g} us"],
                ["**fixed part (besides the MAC framing)**", "", f"**{wlan_fixed_us():g} us**"],
            ],
        )
    )
    L.append(
        f"\n`overhead_bytes` = {wlan_fixed_us():g} us x 11 Mb/s / 8 + {wlan_mac_bytes()} = **{ov}**. A full segment "
        f"({SEED_MSS} + {HEADERS} = {seg_ip} bytes of IP, exactly 802.11's largest MSDU) then takes "
        f"{link_time_us(seg_ip, ov, 11e6):.1f} us on the link against {wlan_exchange_us(seg_ip):.1f} us for the real "
        f"exchange, a pure ACK {link_time_us(HEADERS, ov, 11e6):.1f} us against {wlan_exchange_us(HEADERS):.1f} us "
        f"(goodput ceiling {SEED_MSS * 8 / link_time_us(seg_ip, ov, 11e6):.2f} Mb/s). Not modelled: contention "
        "and collisions: **on this point-to-point variant (`--mac p2p`) there is no contention between the two mobiles "
        "of scenarios 2 and 3 (each has its own link, and data and ACKs of one link do not share the medium either); "
        "the 802.11 DCF variant (the default, below) has it.** "
        f"Queues: {d['wireless_queue_packets']} packets; a flow never has more than its "
        f"{SEED_RCV_BUF}-byte window in flight, so none overflows.\n"
    )
    L.append("**TCP**, the seed's parameter table and how the `opnet-2003` profile (the default) sets each row:\n")
    L.extend(md_table(["seed parameter", "seed value", "here", "note"], [list(r) for r in TCP_TABLE]))
    L.append("")
    L.append("**Scenarios** (the seed's; drop rate = the PEG's send and receive rates, varied together):\n")
    L.extend(
        md_table(
            ["scenario", "what", "flows", "PEG at", "Snoop at (snoop arms)", "I-TCP arm"],
            [
                [
                    s.id,
                    s.title,
                    ", ".join(f"{m} {'->' if s.direction == 'upload' else '<-'} server" for m in s.mobiles),
                    s.peg_node,
                    ", ".join(s.snoop_nodes),
                    "yes" if s.itcp else "no",
                ]
                for s in SETUPS.values()
            ],
        )
    )
    L.append(
        "\nIn scenario 1 the mobile only receives ACKs, so with data-only drops its receive drop rate has nothing "
        "to act on: every loss is a data segment leaving the mobile. Scenario 2's transfer size is not given by "
        f"the seed; {nbytes:,} bytes is our assumption (the size of its uploads). Snoop sits above the PEG in the "
        "node's stack, as in the seed, so its local retransmissions meet the PEG again. The Snoop agent is the one "
        "of Balakrishnan et al. (MobiCom 1995) as the seed describes it: cache data leaving towards the wireless "
        "hop, retransmit locally on a duplicate ACK or when its timer expires, suppress the duplicate ACKs, free "
        "the cache on a new ACK.\n"
    )
    L.append("**Arms**:\n")
    for a, note in ARM_NOTES.items():
        L.append(f"- `{a}`: {note}.")
    L.append("")
    return L


def _tried(t: Table, plan: dict, rate: float, macs) -> str:
    """The verdict on the ~68-fold claim with every variant of this study
    that measured it: each wireless hop, and the PEG's data-only and
    all-packets options."""
    parts = []
    for mac in macs:
        tm = Table(t.rows_all, mac)
        pairs = [("tcp-allpkts", "snoop-allpkts", "PEG all packets")] + [(a, b, f"{what}, PEG data only") for a, b, what in STACK_PAIRS]
        for tcp_arm, snoop_arm, what in pairs:
            if "s1" in plan and {tcp_arm, snoop_arm} <= set(plan["s1"]):
                r = ratio_stats(tm.stats("s1", tcp_arm, "m1", rate), tm.stats("s1", snoop_arm, "m1", rate))
                if not is_missing(r.mean):
                    parts.append((f"{MAC_NAMES[mac]}, {what}: {r.mean:.1f}", r))
    if not parts:
        return ""
    far = all(not is_missing(r.hi) and r.hi < SEED_S1_RATIO / 2 for _, r in parts)
    verdict = "not reproduced" if far else "open"
    return f"{verdict} on every variant tried ({'; '.join(p for p, _ in parts)})"


def _single_runs(runs: list[dict], rate: float) -> list[str]:
    """OPNET runs one simulation per point: the TCP / Snoop ratio a single
    run (the same seed for both arms) would have given, over the seeds."""
    t = {(r["arm"], r["seed"]): r.get("response_time_s") for r in runs if r["scenario"] == "s1" and r["drop_rate"] == rate and r["mobile"] == "m1"}
    ratios = sorted(
        t[("tcp", sd)] / t[("snoop", sd)]
        for (arm, sd) in t
        if arm == "tcp" and not is_missing(t.get(("snoop", sd))) and not is_missing(t[("tcp", sd)]) and t[("snoop", sd)] > 0
    )
    if not ratios:
        return []
    med = statistics.median(ratios)
    hit = sum(1 for x in ratios if x >= SEED_S1_RATIO / 2)
    return [
        f"One run per point, as OPNET gives: the TCP / Snoop ratio of a single seed at {rate:.0%} (s1) ranges "
        f"{ratios[0]:.1f} to {ratios[-1]:.1f} over {len(ratios)} seeds (median {med:.1f}); {hit} of {len(ratios)} reach half "
        f"the seed's ~{SEED_S1_RATIO:g}. A single unlucky run "
        + ("comes within a factor of two of the seed's figure." if hit else "does not come near the seed's figure.")
        + " (OPNET's retransmission attempt limit and the reading of its timer granularity are the other "
        "candidates: the attempt-limit arms and the `*-seed-table` arms, in the table below.)",
        "",
    ]


def _attempt_arms(t: Table, plan: dict, rate: float) -> list[str]:
    """What OPNET's attempt-based retransmission threshold does to the upload."""
    arms = [a for a in plan.get("s1", []) if a.startswith("tcp-attempts")]
    if not arms or "snoop" not in plan["s1"]:
        return []
    parts = []
    for a in arms:
        row = t.get("s1", a, "m1", rate)
        if row is None:
            continue
        r = ratio_stats(t.stats("s1", a, "m1", rate), t.stats("s1", "snoop", "m1", rate))
        parts.append(
            f"{a.removeprefix('tcp-attempts')} attempts: {row['unfinished']} of {row['n']} transfers aborted, "
            f"the finished ones {fmt(r.mean, '{:.1f}')} times Snoop's time"
        )
    if not parts:
        return []
    return [
        f"OPNET's attempt-based retransmission threshold, as arms (s1, {rate:.0%}): " + "; ".join(parts) + ". "
        "An attempt limit turns the worst transfers into aborted ones rather than into longer finished ones, so "
        "by itself it does not raise the ratio of finished response times toward ~68.",
        "",
    ]


#: What in OPNET's stack (or the seed's method) could make ~68, each as
#: arms of s1: (candidate, TCP arm, Snoop arm).
CANDIDATES = [
    ("the seed's stack, `opnet-2003` (default)", "tcp", "snoop"),
    ("the seed's table key by key (RFC 6298's G instead of OPNET's tick)", "tcp-seed-table", "snoop-seed-table"),
    ("the PEG's \"all packets\" option (ACKs dropped too)", "tcp-allpkts", "snoop-allpkts"),
    *[(f"attempt limit {a.removeprefix('tcp-attempts')}", a, "snoop") for a in ("tcp-attempts3", "tcp-attempts8")],
    ("today's kernel (`linux`)", "tcp-linux", "snoop-linux"),
    ("`linux` with RACK off", "tcp-linux-norack", "snoop-linux-norack"),
    ("`linux` with the tail loss probe off", "tcp-linux-notlp", "snoop-linux-notlp"),
    ("`linux` with SACK off", "tcp-linux-nosack", "snoop-linux-nosack"),
]


def _candidates_table(t: Table, runs: list[dict], plan: dict, rate: float) -> list[str]:
    """s1 at `rate`: each candidate's TCP and Snoop response times and their
    ratio, unfinished (aborted) transfers counted, and one run per point."""
    arms = set(plan.get("s1", []))
    rows = []
    for what, a, b in CANDIDATES:
        if not {a, b} <= arms:
            continue
        ra, rb = t.get("s1", a, "m1", rate), t.get("s1", b, "m1", rate)
        if ra is None or rb is None:
            continue
        r = ratio_stats(t.stats("s1", a, "m1", rate), t.stats("s1", b, "m1", rate))
        note = ""
        if ra["unfinished"]:
            note = f" ({ra['unfinished']}/{ra['n']} TCP transfers unfinished or aborted: a lower bound)"
        rows.append([what, f"`{a}`, `{b}`", _cell(t, "s1", a, "m1", rate), _cell(t, "s1", b, "m1", rate),
                     fmt_ci(r) + note])
    pr = _paired_ratios(runs, "s1", "m1", rate, "tcp", "snoop")
    if pr:
        hit = sum(1 for x in pr if x >= SEED_S1_RATIO / 2)
        rows.append(["one run per point", "single seeds of `tcp`, `snoop`", "", "",
                     f"{pr[0]:.1f} to {pr[-1]:.1f} (median {statistics.median(pr):.1f}); {hit} of {len(pr)} reach "
                     f"{SEED_S1_RATIO / 2:g}"])
    if len(rows) < 2:
        return []
    return [
        f"### What in OPNET's stack could make ~{SEED_S1_RATIO:g}: each as an arm (s1, {rate:.0%}; s, mean [95 % CI])\n",
        *md_table(["candidate", "arms", "TCP", "Snoop", "TCP / Snoop"], rows),
        "",
    ]


def _claims(t: Table, runs: list[dict], plan: dict, rate: float, cache_final=None, macs=("80211",)) -> list[Claim]:
    out = []
    if "s1" in plan and {"tcp", "snoop"} <= set(plan["s1"]):
        r = ratio_stats(t.stats("s1", "tcp", "m1", rate), t.stats("s1", "snoop", "m1", rate))
        tried = _tried(t, plan, rate, macs) if rate == SEED_S1_RATE else ""
        out.append(
            Claim(
                f"s1: upload response time, TCP / Snoop at {rate:.0%} drop",
                f"~{SEED_S1_RATIO:g} times (at {SEED_S1_RATE:.0%})",
                SEED_S1_RATIO if rate == SEED_S1_RATE else None,
                r,
                "ratio of the mean response times over seeds; interval by the delta method"
                + (f". **{tried}**" if tried else ""),
            )
        )
    if "s1" in plan and "snoop" in plan["s1"]:
        mc = summarize(
            r["snoop_max_cached"]
            for r in runs
            if r["scenario"] == "s1" and r["arm"] == "snoop" and r["drop_rate"] == rate
        )
        out.append(
            Claim(
                f"s1: most segments in Snoop's cache at {rate:.0%}",
                "transmission window: four packets",
                4.0,
                mc,
                "per-run maximum of the cache (Snoop's max_cached counter), mean over seeds",
                "{:.1f}",
            )
        )
        if cache_final is not None:
            out.append(
                Claim(
                    "s1: segments cached at the end (plotted run)",
                    "zero",
                    None,
                    summarize([cache_final]),
                    "last sample of the cache series of seed 1",
                    "{:g}",
                )
            )
    if "s2" in plan and {"tcp", "snoop"} <= set(plan["s2"]):
        for m in SETUPS["s2"].mobiles:
            out.append(
                Claim(
                    f"s2: {m}'s download, TCP / Snoop at {rate:.0%}",
                    "Snoop at the server serves both connections (no number)",
                    None,
                    ratio_stats(t.stats("s2", "tcp", m, rate), t.stats("s2", "snoop", m, rate)),
                    "> 1: Snoop shortens this download",
                )
            )
    if "s3" in plan and "snoop" in plan["s3"]:
        out.append(
            Claim(
                f"s3: m1 (no Snoop) / m2 (Snoop) upload time at {rate:.0%}, same runs",
                "the mobile with Snoop has the shorter upload time (no number)",
                None,
                ratio_stats(t.stats("s3", "snoop", "m1", rate), t.stats("s3", "snoop", "m2", rate)),
                "> 1: the Snoop mobile is faster",
            )
        )
    return out


def _response_tables(t: Table, plan: dict, rates: list[float]) -> list[str]:
    L = ["## Response time (s), mean [95 % CI] over finished runs\n"]
    for sid, arms in plan.items():
        s = SETUPS[sid]
        arms = arms_for(s, arms)
        for m in s.mobiles:
            L.append(f"### {sid}, {m} ({s.title})\n")
            L.extend(
                md_table(["drop rate"] + arms, [[f"{r:g}"] + [_cell(t, sid, a, m, r) for a in arms] for r in rates])
            )
            L.append("")
    return L


def _counter_table(t: Table, sid: str, arms: list[str], mobile: str, rates: list[float]) -> list[str]:
    rows = []
    for r in rates:
        row = [f"{r:g}"]
        for a in arms:
            to = t.val(sid, a, mobile, r, "timeouts_mean")
            rx = t.val(sid, a, mobile, r, "retransmissions_mean")
            lr = t.val(sid, a, mobile, r, "snoop_local_retransmissions_mean")
            cell = f"{_x(to)} / {_x(rx)}"
            if not is_missing(lr):
                cell += f" / {_x(lr)}"
            row.append(cell)
        rows.append(row)
    return md_table(["drop rate"] + arms, rows)


def _paired_ratios(runs: list[dict], sid: str, mobile: str, rate: float, a: str, b: str) -> list[float]:
    """Per-seed a/b response-time ratios (both finished)."""
    by = {}
    for r in runs:
        if r["scenario"] == sid and r["mobile"] == mobile and r["drop_rate"] == rate and r["arm"] in (a, b):
            by.setdefault(r["seed"], {})[r["arm"]] = r["response_time_s"]
    return sorted(v[a] / v[b] for v in by.values() if v.get(a) and v.get(b))


def _findings(
    t: Table, runs: list[dict], plan: dict, rates: list[float], rate: float, nbytes: int, snoop_rto_s=None
) -> list[str]:
    L = []
    nseg = math.ceil(nbytes / SEED_MSS)
    zero = rates[0]
    for sid, arms in plan.items():
        arms = arms_for(SETUPS[sid], arms)
        vals = [t.stats(sid, a, m, zero).mean for a in arms for m in SETUPS[sid].mobiles]
        vals = [v for v in vals if not is_missing(v)]
        if vals and zero == 0:
            air = nseg * link_time_us(SEED_MSS + HEADERS, DEFAULTS["wireless_overhead_bytes"], 11e6) / 1e6
            gap = min(vals) - air
            delack = 0.2
            L.append(
                f"- {sid} at drop rate {zero:g}: every arm and mobile finishes in {min(vals):.3f}-{max(vals):.3f} s "
                f"(the airtime of its {nseg} segments alone is {air:.3f} s"
                + (
                    f"; most of the {gap:.3f}-s difference is the receiver's {delack * 1000:.0f}-ms delayed ACK of "
                    f"the first segment, which an initial window of {INITIAL_CWND} segment leaves alone)."
                    if zero == 0 and INITIAL_CWND == 1 and delack * 0.8 <= gap <= delack * 1.6
                    else ")."
                )
            )
    if "s1" in plan and {"tcp", "snoop"} <= set(plan["s1"]):
        tcp, sn = t.stats("s1", "tcp", "m1", rate), t.stats("s1", "snoop", "m1", rate)
        r = ratio_stats(tcp, sn)
        g = lambda arm, c: t.val("s1", arm, "m1", rate, c)  # noqa: E731
        L.append(
            f"- **s1 at {rate:.0%}: TCP takes {fmt(tcp.mean, '{:.2f}')} s, Snoop {fmt(sn.mean, '{:.2f}')} s: "
            f"ratio {fmt(r.mean, '{:.2f}')} [{fmt(r.lo, '{:.2f}')}, {fmt(r.hi, '{:.2f}')}]** against the seed's ~{SEED_S1_RATIO:g}. "
            f"Per run, plain TCP had {_x(g('tcp', 'timeouts_mean'))} retransmission timeouts and "
            f"{_x(g('tcp', 'fast_retransmits_mean'))} fast retransmits; with Snoop the sender had "
            f"{_x(g('snoop', 'timeouts_mean'))} timeouts and {_x(g('snoop', 'fast_retransmits_mean'))} fast retransmits while "
            f"Snoop retransmitted {_x(g('snoop', 'snoop_local_retransmissions_mean'))} segments locally "
            f"({_x(g('snoop', 'snoop_local_timeouts_mean'))} on its own timer) and suppressed "
            f"{_x(g('snoop', 'snoop_dupacks_suppressed_mean'))} duplicate ACKs."
        )
        to, fr = g("tcp", "timeouts_mean"), g("tcp", "fast_retransmits_mean")
        share = to / (to + fr) if not is_missing(to) and not is_missing(fr) and to + fr > 0 else NAN
        how = (
            f" Plain TCP repaired {fmt(share, '{:.0%}')} of its loss episodes by a timeout rather than a fast "
            f"retransmit: a receive window of {SEED_RCV_BUF / SEED_MSS:.2f} segments seldom leaves three "
            "segments behind a loss to produce three duplicate ACKs, and every timeout waits at least the 0.5-s minimum RTO, "
            "fires on OPNET's 0.5-s tick "
            "and doubles when the retransmission is dropped again."
        )
        if not is_missing(r.mean):
            if r.mean > 1.0:
                L.append(
                    (
                        f"  The direction of the seed's result holds ({_verdict(r)})."
                        if not is_missing(r.lo) and r.lo > 1
                        else f"  Snoop is faster on average, as in the seed, but not clearly ({_verdict(r)})."
                    )
                    + how
                    + " Snoop repairs a drop on the first "
                    "duplicate ACK or after its fixed 1-s timer, which never backs off, and keeps the duplicate "
                    "ACKs from the sender."
                )
            else:
                L.append(
                    "  **The seed's direction is not reproduced here**: Snoop did not shorten the upload."
                    + how
                    + " Snoop runs on the sending mobile itself, so its local retransmission travels the same path "
                    "as the sender's own and can only save the sender's backoff and window cuts."
                )
        if not is_missing(g("snoop", "timeouts_mean")):
            line = (
                f"- Snoop does not hide every loss: with it the sender still timed out "
                f"{_x(g('snoop', 'timeouts_mean'))} times per run."
            )
            if snoop_rto_s is not None:
                shorter = snoop_rto_s < 1.0
                line += (
                    f" In the plotted run (seed 1) the sender's RTO (SRTT + 4 RTTVAR from RTT samples counted in whole 0.5-s "
                    "ticks, at least 0.5 s; its SRTT "
                    f"also counts Snoop's hidden local repairs) had a median of {snoop_rto_s:.2f} s during the "
                    f"transfer, {'shorter' if shorter else 'not shorter'} than Snoop's fixed 1-s timer"
                    + (
                        ": when a local retransmission is itself dropped and no duplicate ACK follows, the "
                        "sender's timer expires first and backs off."
                        if shorter
                        else "."
                    )
                )
            if "snoop-adaptive" in plan["s1"]:
                line += (
                    f" The adaptive timer, which fires sooner, left {_x(g('snoop-adaptive', 'timeouts_mean'))} "
                    "sender timeouts per run."
                )
            L.append(line)
        pr = _paired_ratios(runs, "s1", "m1", rate, "tcp", "snoop")
        if pr:
            L.append(
                f"- The seed's curves show one value per point (how many runs is not stated), and single runs differ "
                f"widely: per seed, TCP / Snoop at {rate:.0%} ranged from {pr[0]:.2f} to {pr[-1]:.2f} "
                f"(median {statistics.median(pr):.2f}, {len(pr)} seeds). "
                + (
                    f"The seed's {SEED_S1_RATIO:g} is "
                    + ("inside" if pr[0] <= SEED_S1_RATIO <= pr[-1] else "outside")
                    + " that range"
                    + (
                        ": a run in which TCP's exponential backoff reached tens of seconds while Snoop's timer "
                        "stayed at 1 s produces such a factor."
                        if pr[0] <= SEED_S1_RATIO <= pr[-1]
                        else "; the gap is larger than the spread between seeds explains."
                    )
                )
            )
            if not (pr[0] <= SEED_S1_RATIO <= pr[-1]):
                tmax = max(
                    (
                        x["response_time_s"]
                        for x in runs
                        if x["scenario"] == "s1"
                        and x["arm"] == "tcp"
                        and x["drop_rate"] == rate
                        and x["response_time_s"]
                    ),
                    default=NAN,
                )
                L.append(
                    f"  What would a 68-fold gap need? With Snoop at {fmt(sn.mean, '{:.2f}')} s, TCP would need "
                    f"{fmt(SEED_S1_RATIO * sn.mean, '{:.0f}')} s, where our slowest TCP run took {fmt(tmax, '{:.1f}')} s. "
                    "Our TCP's RTO (OPNET's: RTT samples in whole 0.5-s ticks, RTO = SRTT + 4 RTTVAR, at least 0.5 s, fired "
                    "on the tick) backs off to at most 64 s. "
                    "What else in OPNET's stack or the seed's method could make the difference is run as arms: the "
                    "timer granularity read as RFC 6298's G (`*-seed-table`), the PEG dropping ACKs too (`*-allpkts`), "
                    "the retransmission-attempt limit (`tcp-attempts*`) and one run per point (single seeds); their "
                    "figures are in the table under the claims. The seed's slides give "
                    "only the ratio, not the two response times, so the baseline cannot be compared directly."
                )
        rr = [ratio_stats(t.stats("s1", "tcp", "m1", x), t.stats("s1", "snoop", "m1", x)).mean for x in rates]
        L.append(
            "- TCP / Snoop by drop rate (s1): "
            + ", ".join(f"{x:g}: {fmt(v, '{:.2f}')}" for x, v in zip(rates, rr))
            + "."
        )
    for a in ("snoop-adaptive", "sack", "itcp"):
        for sid in ("s1", "s2"):
            if sid not in plan or a not in arms_for(SETUPS[sid], plan[sid]) or "tcp" not in plan[sid]:
                continue
            for m in SETUPS[sid].mobiles:
                base = "snoop" if a == "snoop-adaptive" and "snoop" in plan[sid] else "tcp"
                x, b = t.stats(sid, a, m, rate), t.stats(sid, base, m, rate)
                rs = ratio_stats(b, x)
                line = (
                    f"- {sid} {m} at {rate:.0%}: `{a}` {fmt_ci(x, '{:.2f}')} s vs `{base}` {fmt_ci(b, '{:.2f}')} s "
                    f"({base} / {a} = {fmt(rs.mean, '{:.2f}')}, {_verdict(rs)})."
                )
                if a == "snoop-adaptive":
                    line += (
                        " The adaptive timer is set from the round-trip times Snoop measures between its node and "
                        "the receiver instead of the fixed 1 s."
                    )
                if a == "sack":
                    line += (
                        f" With under {math.ceil(SEED_RCV_BUF / SEED_MSS)} segments in flight SACK has little to "
                        "report: the losses still end in timeouts "
                        f"({_x(t.val(sid, a, m, rate, 'timeouts_mean'))} per run against "
                        f"{_x(t.val(sid, 'tcp', m, rate, 'timeouts_mean'))})."
                    )
                if a == "itcp":
                    anc = t.val(sid, a, m, rate, "itcp_acked_not_delivered_mean")
                    where = (
                        "the PEG drops on the mobile's side of the split, so the mobile's own connection to the AP "
                        "still suffers every loss and its timeouts"
                        if SETUPS[sid].peg_node in SETUPS[sid].mobiles
                        else "the PEG drops at the server, on the wired half of the split, which I-TCP cannot "
                        "shield: the server's connection to the AP sees every loss"
                    )
                    line += (
                        f" Here {where}. The sender's response time ends when the proxy has acknowledged the last "
                        f"byte; bytes acknowledged but never delivered at the end: {_x(anc)} per run."
                    )
                L.append(line)
    if "s3" in plan and "snoop" in plan["s3"]:
        m1, m2 = t.stats("s3", "snoop", "m1", rate), t.stats("s3", "snoop", "m2", rate)
        faster = not is_missing(m1.mean) and not is_missing(m2.mean) and m2.mean < m1.mean
        rs = ratio_stats(m1, m2)
        clear = not is_missing(rs.lo) and rs.lo > 1
        L.append(
            f"- s3 at {rate:.0%} (snoop arm): m1 without Snoop {fmt_ci(m1, '{:.2f}')} s, m2 with Snoop "
            f"{fmt_ci(m2, '{:.2f}')} s (m1 / m2: {_verdict(rs)}): "
            + (
                "the Snoop mobile is faster, as in the seed. "
                if faster and clear
                else "the Snoop mobile is faster on average, as in the seed, but not clearly at this sample size. "
                if faster
                else "**the Snoop mobile is not faster here**, unlike the seed. "
            )
            + f"The PEG drops at the server, after the wireless hop; m2's Snoop sees the server's duplicate ACKs "
            f"and retransmitted {_x(t.val('s3', 'snoop', 'm2', rate, 'snoop_local_retransmissions_mean'))} segments "
            "per run from its cache."
        )
    unf = [r for r in t.rows if r["unfinished"]]
    if unf:
        L.append(
            "- Unfinished transfers (not done after the cap): "
            + "; ".join(
                f"{r['scenario']} {r['arm']} {r['mobile']} at {r['drop_rate']:g}: {r['unfinished']}/{r['n']}"
                for r in unf
            )
            + ". Their means are over the finished runs only and so understate the response time."
        )
    else:
        L.append("- Every transfer finished within the cap.")
    return L


def write_report(
    path: Path,
    *,
    table: list[dict],
    runs: list[dict],
    plan: dict,
    rates: list[float],
    seeds: int,
    duration_s: float,
    nbytes: int,
    wall_s: float,
    jobs: int,
    plots: list[str],
    shown_rate: float,
    cache_final: float | None = None,
    snoop_rto_s: float | None = None,
    macs: list[str] | None = None,
    kept_facts: dict | None = None,
    tcp_set: dict | None = None,
) -> None:
    macs = list(macs or [MACS[0]])
    primary = macs[0]
    facts = (kept_facts or {}).get(primary) or {"cache_final": cache_final, "snoop_rto_s": snoop_rto_s}
    cache_final, snoop_rto_s = facts.get("cache_final"), facts.get("snoop_rto_s")
    all_table, all_runs = table, runs
    t = Table(table, primary)
    runs = of_mac(runs, primary)
    nruns = len({(r.get("mac"), r["scenario"], r["arm"], r["drop_rate"], r["seed"]) for r in all_runs})
    L = ["# snoop: seed 004 (TCP over 802.11 WLAN with the Snoop proxy) in simulation\n"]
    L.append(
        f"{nruns} runs: scenarios {', '.join(plan)}, drop rates {', '.join(f'{r:g}' for r in rates)}, "
        f"{seeds} seed(s) per point, wireless hop: {', '.join(MAC_NAMES[m] for m in macs)}. "
        f"Wall time {wall_s:.1f} s with {jobs} job(s).\n"
    )
    L.append(
        "TCP profile: `opnet-2003` (OPNET Modeler's TCP of 2003 as the seed's table sets it, with OPNET's 0.5-s "
        "timer tick), the stack the seed ran; the seed's table set key by key over `linux` (`*-seed-table`) and "
        "today's `linux` (as it is, and with RACK or SACK switched off) as arms.\n"
    )
    if tcp_set:
        L.append(
            "**A targeted run: every arm's TCP has "
            + ", ".join(f"`{k} = {json.dumps(v)}`" for k, v in tcp_set.items())
            + " set beside its profile (`--tcp-set`), so the arms' names no longer describe their whole stack.**\n"
        )
    L.extend(_stack_section(t, plan, shown_rate))
    L.extend(_setup_section(nbytes, duration_s))
    if "80211" in macs:
        L.extend(_mac_setup(macs))
    if len(macs) > 1 or primary != "p2p":
        L.append(
            f"**The sections below, up to the 802.11 comparison, are for the {MAC_NAMES[primary]} variant.**\n"
        )
    L.append("## The seed's claims beside what we measured\n")
    claims = _claims(t, runs, plan, shown_rate, cache_final, macs)
    if claims:
        L.extend(claims_table(claims))
    else:
        L.append("No scenario with both TCP and Snoop was run.")
    L.append("")
    if "s1" in plan and {"tcp", "snoop"} <= set(plan["s1"]) and shown_rate == SEED_S1_RATE:
        L.extend(_single_runs(runs, shown_rate))
        L.extend(_attempt_arms(t, plan, shown_rate))
        L.extend(_candidates_table(t, runs, plan, shown_rate))
    L.append("## What the simulation shows, and why it differs from the seed\n")
    L.extend(_findings(t, runs, plan, rates, shown_rate, nbytes, snoop_rto_s))
    L.append("")
    L.extend(_response_tables(t, plan, rates))
    L.append("## Timeouts / retransmissions (/ Snoop local retransmissions) per run\n")
    L.append(
        "Counters of the flow's sender (mean over seeds). Snoop's count is its own agent's: in s2 one agent at "
        "the server serves both downloads, so the same number appears for m1 and m2 (`snoop_scope` = shared in "
        "table.csv); `peg_dropped_mean` likewise counts every drop of a PEG that several flows cross.\n"
    )
    for sid, arms in plan.items():
        for m in SETUPS[sid].mobiles:
            L.append(f"### {sid}, {m}\n")
            L.extend(_counter_table(t, sid, arms_for(SETUPS[sid], arms), m, rates))
            L.append("")
    if len(macs) > 1:
        kf = kept_facts or {}
        L.extend(_mac_comparison(all_table, all_runs, plan, rates, shown_rate, macs, kf.get(macs[1], {})))
    if plots:
        L.append("## Plots\n")
        for p in plots:
            L.append(f"- [{p}]({p})")
        L.append("")
    path.write_text("\n".join(L) + "\n")


# --- the 802.11 DCF variant ------------------------------------------------------------


def _mac_setup(macs: list[str]) -> list[str]:
    pos = ", ".join(f"{n} at ({x:g}, {y:g}) m" for n, (x, y) in POSITIONS.items())
    return [
        "**Wireless variants** (`--mac`, the `mac` column of table.csv and runs.csv):\n",
        *[f"- `{m}`: {MAC_NOTES[m]}." for m in macs],
        "",
        f"The 802.11 variant replaces the wireless links by `[wifi] standard = \"{WIFI['standard']}\"`, "
        f"`rate = \"{WIFI['rate']}\"`, `queue_packets = {WIFI['queue_packets']}` and `[[radios]]`: the AP node's "
        "radio in mode `ap`, each mobile a station associated with it from the start (log-distance propagation, "
        f"one channel; {pos}: all in range of each other, no hidden terminal). The exchange is then the real "
        "DCF one (DIFS, a backoff drawn per attempt from the contention window, long PLCP, MAC/LLC/FCS, SIFS, "
        "ACK at the basic rate), and the medium is shared: the mobile's data segments contend with the TCP ACKs "
        "the AP sends back, and in s2/s3 the two connections contend with each other; two stations whose "
        "backoffs end in the same slot collide, and the MAC retries the frame (up to 7 attempts, doubling the "
        "window). Beacons (every 102.4 ms at 1 Mb/s) take a little airtime too. The PEG and Snoop are agents "
        "above the MAC (the mobile's agents name its `radio`; Snoop at the server keeps its wired link): a PEG "
        "drop never reaches the MAC, so the MAC never retries it, and the losses the study varies are the "
        "same as on the point-to-point link. The I-TCP arm has one proxy on the AP's radio, which splits "
        "every mobile's connection.\n",
    ]


def _both_cell(t1: Table, t2: Table, sid, arm, m, rate) -> tuple[str, str]:
    return _cell(t1, sid, arm, m, rate), _cell(t2, sid, arm, m, rate)


def _mac_comparison(
    table: list[dict], runs: list[dict], plan: dict, rates: list[float], rate: float, macs: list[str], facts: dict
) -> list[str]:
    # Tables read point-to-point | 802.11 whichever is primary; the claims
    # shown here are the other variant's (the primary's are above).
    a, b = "p2p", "80211"
    other = macs[1]
    ta, tb = Table(table, a), Table(table, b)
    na, nb = MAC_NAMES[a], MAC_NAMES[b]
    L = ["## The 802.11 DCF MAC beside the point-to-point link\n"]
    L.append(
        f"The same scenarios, arms, drop rates and seeds with the wireless hop on the 802.11b DCF MAC. "
        "What changes: the airtime of an exchange is no longer its mean but a draw (backoff), the mobile's "
        "data and the AP's ACKs share one medium (on the point-to-point link each direction had its own), the two "
        "mobiles of s2/s3 contend and can collide, and a collided frame is retried by the MAC. What does not: "
        "the PEG's drops, the study's only losses besides collisions, happen above the MAC and are not retried "
        "there, so TCP (and Snoop) still repair every one of them.\n"
    )
    claims = _claims(Table(table, other), of_mac(runs, other), plan, rate, facts.get("cache_final"), [other])
    if claims:
        L.append(f"### The seed's claims on the {MAC_NAMES[other]} variant\n")
        L.extend(claims_table(claims))
        L.append("")
    L.append(f"### Response time (s), {na} | {nb}\n")
    for sid, arms in plan.items():
        s = SETUPS[sid]
        arms = arms_for(s, arms)
        for m in s.mobiles:
            L.append(f"#### {sid}, {m}\n")
            head = ["drop rate"] + [f"{arm} {x}" for arm in arms for x in (a, b)]
            rows = [[f"{r:g}"] + [c for arm in arms for c in _both_cell(ta, tb, sid, arm, m, r)] for r in rates]
            L.extend(md_table(head, rows))
            L.append("")
    L.append(f"### 802.11 MAC retries per run at {rate:.0%} (mobile's radio / AP's radio; retry drops)\n")
    rows = []
    for sid, arms in plan.items():
        for arm in arms_for(SETUPS[sid], arms):
            for m in SETUPS[sid].mobiles:
                g = lambda c: tb.val(sid, arm, m, rate, c)  # noqa: E731
                rows.append(
                    [
                        sid,
                        arm,
                        m,
                        f"{_x(g('mac_retries_mean'))} / {_x(g('ap_mac_retries_mean'))}",
                        f"{_x(g('mac_retry_drops_mean'))} / {_x(g('ap_mac_retry_drops_mean'))}",
                    ]
                )
    L.extend(md_table(["scenario", "arm", "mobile", "MAC retries", "MAC retry drops"], rows))
    L.append("")
    L.append("### Findings\n")
    L.extend(_mac_findings(ta, tb, plan, rates, rate, na, nb))
    L.append("")
    return L


def _mac_findings(ta: Table, tb: Table, plan: dict, rates: list[float], rate: float, na: str, nb: str) -> list[str]:
    L = []
    zero = rates[0]
    for sid, arms in plan.items():
        arms = arms_for(SETUPS[sid], arms)
        pairs = [
            (ta.stats(sid, arm, m, zero).mean, tb.stats(sid, arm, m, zero).mean)
            for arm in arms
            for m in SETUPS[sid].mobiles
        ]
        pairs = [(x, y) for x, y in pairs if not is_missing(x) and not is_missing(y)]
        if pairs and zero == 0:
            d = [y / x - 1 for x, y in pairs]
            L.append(
                f"- {sid} without drops: {nb} {min(y for _, y in pairs):.3f}-{max(y for _, y in pairs):.3f} s against "
                f"{na} {min(x for x, _ in pairs):.3f}-{max(x for x, _ in pairs):.3f} s ({min(d):+.1%} to {max(d):+.1%}): "
                + (
                    "the mean-airtime link and the DCF agree when nothing is lost."
                    if max(abs(x) for x in d) < 0.05
                    else "the two transfers now share one medium's airtime (on the point-to-point model each "
                    "mobile had a link of its own), so each runs at about half the rate while both are active."
                    if len(SETUPS[sid].mobiles) > 1 and min(d) > 0
                    else "the DCF's drawn backoffs and contention make the difference."
                )
            )
    if "s1" in plan and {"tcp", "snoop"} <= set(plan["s1"]):
        ra = ratio_stats(ta.stats("s1", "tcp", "m1", rate), ta.stats("s1", "snoop", "m1", rate))
        rb = ratio_stats(tb.stats("s1", "tcp", "m1", rate), tb.stats("s1", "snoop", "m1", rate))
        L.append(
            f"- s1 at {rate:.0%}: TCP / Snoop = {fmt(ra.mean, '{:.2f}')} [{fmt(ra.lo, '{:.2f}')}, "
            f"{fmt(ra.hi, '{:.2f}')}] on the {na} link, {fmt(rb.mean, '{:.2f}')} [{fmt(rb.lo, '{:.2f}')}, "
            f"{fmt(rb.hi, '{:.2f}')}] on the {nb} MAC. With one mobile the only contention is between its data and "
            f"the AP's ACKs ({_x(tb.val('s1', 'tcp', 'm1', rate, 'mac_retries_mean'))} MAC retries per TCP run on "
            "the mobile): the response time is made by the PEG's drops and TCP's timeouts, which the MAC does "
            "not change."
        )
    for sid in ("s2", "s3"):
        if sid not in plan or "snoop" not in plan[sid]:
            continue
        for arm in arms_for(SETUPS[sid], plan[sid]):
            cells = []
            for m in SETUPS[sid].mobiles:
                x, y = ta.stats(sid, arm, m, rate), tb.stats(sid, arm, m, rate)
                cells.append(f"{m} {fmt(x.mean, '{:.2f}')} -> {fmt(y.mean, '{:.2f}')} s")
            retr = [tb.val(sid, arm, m, rate, "mac_retries_mean") for m in SETUPS[sid].mobiles]
            retr.append(tb.val(sid, arm, SETUPS[sid].mobiles[0], rate, "ap_mac_retries_mean"))
            L.append(
                f"- {sid} `{arm}` at {rate:.0%} ({na} -> {nb}): {', '.join(cells)}; MAC retries per run "
                f"m1 {_x(retr[0])}, m2 {_x(retr[1])}, AP {_x(retr[2])}."
            )
    if "s3" in plan and "snoop" in plan["s3"]:
        r1 = ratio_stats(ta.stats("s3", "snoop", "m1", rate), ta.stats("s3", "snoop", "m2", rate))
        r2 = ratio_stats(tb.stats("s3", "snoop", "m1", rate), tb.stats("s3", "snoop", "m2", rate))
        L.append(
            f"- s3's claim (the Snoop mobile m2 is faster), m1 / m2 at {rate:.0%}: {fmt(r1.mean, '{:.2f}')} on the "
            f"{na} link ({_verdict(r1)}), {fmt(r2.mean, '{:.2f}')} on the {nb} MAC ({_verdict(r2)}). The PEG "
            "at the server drops after the wireless hop on both variants; what the MAC adds is the two uploads "
            "(and the server's ACKs to both, sent by the AP) sharing the medium."
        )
    return L
