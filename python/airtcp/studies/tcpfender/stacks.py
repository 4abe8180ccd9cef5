"""The tcpfender study's headline claims on both TCP stacks (the seed's
ns-2 NewReno and today's Linux): each claim's value and verdict per stack,
ordered so that a verdict that flips between the stacks, or a value that
moves beyond its interval, comes first, with the runs that switch one
Linux behaviour off beside it (the measured mechanism)."""

from __future__ import annotations

import math

from ..reporting import Stats, fmt, fmt_ci, md_table, ratio_stats, summarize

#: How near a value must be to the seed's "about X" to count as holding:
#: its 95 % interval overlaps [X / ABOUT, X * ABOUT].
ABOUT = 1.5
READINGS = (("tcpfender", "MORE's source"), ("tcpfender-literal", "literal"))


def _vals(runs, arm, key):
    return [r.get(key) for r in runs if r["arm"] == arm]


def _nan() -> Stats:
    n = float("nan")
    return Stats(0, n, n, n, n)


def _lo_hi(st: Stats) -> tuple[float, float]:
    lo = st.lo if not math.isnan(st.lo) else st.mean
    hi = st.hi if not math.isnan(st.hi) else st.mean
    return lo, hi


def _about(st: Stats, x: float) -> bool:
    lo, hi = _lo_hi(st)
    return st.n > 0 and hi >= x / ABOUT and lo <= x * ABOUT


def claim_values(runs: list[dict]) -> list[tuple[str, str, Stats, bool, str]]:
    """(claim, reading, value, holds, value as text) for the runs of one
    stack (one part), every headline claim of the seed."""
    arms = {r["arm"] for r in runs}
    g = {a: summarize(_vals(runs, a, "goodput_bps")) for a in arms}
    cw = {a: summarize(_vals(runs, a, "cwnd_mean")) for a in arms}
    dl = {a: summarize(_vals(runs, a, "delay_mean_s")) for a in arms}
    out = []
    if "tcpip" in arms:
        out.append(("TCP/IP congestion window about 2", "", cw["tcpip"], _about(cw["tcpip"], 2.0), fmt_ci(cw["tcpip"])))
    for arm, reading in READINGS:
        if arm not in arms or "tcpip" not in arms:
            continue
        if g["tcpip"].mean > 0 and g[arm].mean > 0:
            r = ratio_stats(g[arm], g["tcpip"])
            gain = Stats(r.n, 100 * (r.mean - 1), r.sd, 100 * (r.lo - 1), 100 * (r.hi - 1))
        else:
            gain = _nan()
        lo, _ = _lo_hi(gain)
        out.append(("TCPFender faster than TCP/IP (seed: about +80 %)", reading, gain, gain.n > 0 and lo > 0, fmt_ci(gain, "{:+.0f}") + " %"))
        out.append(("TCPFender congestion window about 4", reading, cw[arm], _about(cw[arm], 4.0), fmt_ci(cw[arm])))
        steps = [r.get("delivery_steps") or "" for r in runs if r["arm"] == arm]
        k = sum(1 for s in steps if s.split()[:1] == ["50"])
        st = Stats(len(steps), float(k), float("nan"), float("nan"), float("nan"))
        out.append(("delivers to TCP in steps of 50", reading, st, 2 * k > len(steps), f"{k} of {len(steps)} runs"))
        if dl["tcpip"].n and dl[arm].n and dl[arm].mean > 0:
            d = ratio_stats(dl["tcpip"], dl[arm])
            _, hi = _lo_hi(d)
            out.append(("TCP/IP's delay a fraction of TCPFender's", reading, d, hi < 1, fmt_ci(d)))
    if "more" in arms and "tcpip" in arms and g["tcpip"].mean > 0:
        rel = g["more"].mean / g["tcpip"].mean
        st = Stats(g["more"].n, rel, float("nan"), float("nan"), float("nan"))
        out.append(("plain MORE carrying TCP collapses", "", st, rel < 0.2, f"{fmt(g['more'].mean / 1e3, '{:.1f}')} kb/s, {fmt(rel)} of TCP/IP's"))
    return out


def _moved(a: Stats, b: Stats) -> bool:
    """Either mean outside the other's interval (a count of runs has no
    interval: only its verdict can change)."""
    if not a.n or not b.n or math.isnan(a.mean) or math.isnan(b.mean):
        return False
    if math.isnan(a.lo) and math.isnan(b.lo):
        return False
    alo, ahi = _lo_hi(a)
    blo, bhi = _lo_hi(b)
    return not (alo <= b.mean <= ahi) or not (blo <= a.mean <= bhi)


def compare(seed_stack: list[dict], other: list[dict]) -> list[dict]:
    """One row per claim and reading: both stacks' values and verdicts and
    how they differ ("flips", "moves beyond its interval", "same"), flips
    first, then moves."""
    o = {(c, r): (st, h, t) for c, r, st, h, t in claim_values(other)}
    rows = []
    for c, r, st, h, t in claim_values(seed_stack):
        if (c, r) not in o:
            continue
        ost, oh, ot = o[(c, r)]
        diff = "flips" if h != oh else ("moves beyond its interval" if _moved(st, ost) else "same")
        rows.append({"claim": c, "reading": r, "ns2": t, "ns2_holds": h, "linux": ot, "linux_holds": oh, "diff": diff, "ns2_stats": st, "linux_stats": ost})
    order = {"flips": 0, "moves beyond its interval": 1, "same": 2}
    return sorted(rows, key=lambda x: order[x["diff"]])


def stacks_section(runs: list[dict], switches: dict, profile: str) -> list[str]:
    """report.md's section on the two stacks, from the `main` (seed's stack),
    `stack` (linux) and `switch` (linux with one behaviour off) runs."""
    main = [r for r in runs if r["part"] == "main"]
    lin = [r for r in runs if r["part"] == "stack"]
    if not lin:
        return []
    rows = compare(main, lin)
    yn = {True: "holds", False: "does not hold"}
    L = [
        f"Every claim on the seed's stack (`{profile}`) and on today's Linux (`linux`, same 1000-byte segments, "
        f"20-packet window, SACK off), RTS/CTS, the same seeds. A claim \"about X\" holds when its 95 % interval "
        f"overlaps [X / {ABOUT:g}, X × {ABOUT:g}]; the gain claim holds when TCPFender is faster with its interval above 0. "
        "Rows where the verdict flips or the value moves beyond its interval come first.",
        "",
    ]
    L += md_table(
        ["claim", "reading", f"{profile}", "verdict", "linux", "verdict", "between the stacks"],
        [[x["claim"], x["reading"] or "-", x["ns2"], yn[x["ns2_holds"]], x["linux"], yn[x["linux_holds"]], f"**{x['diff']}**" if x["diff"] != "same" else "same"] for x in rows],
    )
    sw = [r for r in runs if r["part"] == "switch"]
    if sw and switches:
        L += ["", "Linux with one behaviour switched off (the mechanism, measured; same seeds):", ""]
        table = []
        for name, (what, keys, _) in switches.items():
            runs_off = [dict(r, part="stack") for r in sw if r["switch"] == name]
            off = {(c, rd): t for c, rd, _, _, t in claim_values(runs_off)}
            for x in rows:
                if x["diff"] != "same" and (x["claim"], x["reading"]) in off:
                    table.append([x["claim"], x["reading"] or "-", x["ns2"], x["linux"], f"{what} (`{', '.join(f'{k} = {v}' for k, v in keys.items())}`)", off[(x["claim"], x["reading"])]])
        L += md_table(["claim", "reading", profile, "linux", "linux without", "value"], table)
    return L


def goodput_by_stack(runs: list[dict]) -> dict[tuple[str, str], Stats]:
    """Goodput (b/s) per (part, arm) of the two stacks' runs."""
    out = {}
    for part in ("main", "stack"):
        for arm in {r["arm"] for r in runs if r["part"] == part}:
            out[(part, arm)] = summarize([r.get("goodput_bps") for r in runs if r["part"] == part and r["arm"] == arm])
    return out
