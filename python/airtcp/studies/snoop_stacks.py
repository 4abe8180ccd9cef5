"""The snoop report's comparison of TCP stacks: each claim on the seed's
stack (the `opnet-2003` profile, the default), on the seed's table set key
by key over `linux`, and on today's Linux (with and without SACK), changes
first; every value in which the profile and the key-by-key table differ;
and the one mechanism that separates the stacks."""

from __future__ import annotations

from .report import Stats, fmt, fmt_ci, is_missing, md_table, ratio_stats
from .snoop_setup import PROFILE_VS_TABLE, SETUPS, STACK_PAIRS
from .snoop_table import Table

def _stack_claims(t: Table, plan: dict, rate: float) -> list[tuple[str, str, str, str]]:
    """(claim, scenario, numerator arm-role, denominator arm-role, mobiles) of
    the seed's direction claims, as (TCP arm, Snoop arm) roles."""
    out = []
    if "s1" in plan:
        out.append(("s1: upload, TCP / Snoop > 1 (seed ~68)", "s1", "m1", "tcp/snoop"))
    if "s2" in plan:
        out += [(f"s2: {m}'s download, TCP / Snoop > 1", "s2", m, "tcp/snoop") for m in SETUPS["s2"].mobiles]
    if "s3" in plan:
        out.append(("s3: m1 (no Snoop) / m2 (Snoop) > 1", "s3", "m1/m2", "snoop"))
    return out


def _stack_ratio(t: Table, sid: str, mobile: str, kind: str, tcp_arm: str, snoop_arm: str, rate: float) -> Stats | None:
    arms = set(t.rows and {r["arm"] for r in t.rows if r["scenario"] == sid})
    if kind == "snoop":
        if snoop_arm not in arms:
            return None
        return ratio_stats(t.stats(sid, snoop_arm, "m1", rate), t.stats(sid, snoop_arm, "m2", rate))
    if not {tcp_arm, snoop_arm} <= arms:
        return None
    return ratio_stats(t.stats(sid, tcp_arm, mobile, rate), t.stats(sid, snoop_arm, mobile, rate))


def _change(da: str, db: str, where_b: str) -> str:
    """The verdict when two stacks' directions differ: a reversal only when
    one interval is above 1 and the other below."""
    if {da, db} == {"above", "below"}:
        return "**reverses**"
    say = {"above": "above 1", "below": "below 1", "tie": "interval includes 1"}
    return f"**changes: {say[da]} on the default, {say[db]} on {where_b}**"


def _dir(r: Stats) -> str:
    if not is_missing(r.lo) and r.lo > 1:
        return "above"
    if not is_missing(r.hi) and r.hi < 1:
        return "below"
    return "tie"


def _stack_section(t: Table, plan: dict, rate: float) -> list[str]:
    """The seed's claims on every stack that was run, against the default
    (`opnet-2003`): changes of direction and moves beyond its interval first."""
    first, rest = [], []
    base = STACK_PAIRS[0]
    others = [p for p in STACK_PAIRS[1:] if "SACK off" not in p[2]]
    probe = next((p for p in STACK_PAIRS if "SACK off" in p[2]), None)
    for claim, sid, mobile, kind in _stack_claims(t, plan, rate):
        a = _stack_ratio(t, sid, mobile, kind, base[0], base[1], rate)
        if a is None or is_missing(a.mean):
            continue
        cells, moved, flipped = [], False, None
        for tcp_arm, snoop_arm, what in others:
            b = _stack_ratio(t, sid, mobile, kind, tcp_arm, snoop_arm, rate)
            if b is None or is_missing(b.mean):
                cells.append("-")
                continue
            cells.append(fmt_ci(b))
            if _dir(a) != _dir(b):
                flipped = flipped or _change(_dir(a), _dir(b), what)
            elif not is_missing(a.lo) and not (a.lo <= b.mean <= a.hi):
                moved = True
        if all(c == "-" for c in cells):
            continue
        if probe:
            c = _stack_ratio(t, sid, mobile, kind, probe[0], probe[1], rate)
            cells.append("-" if c is None or is_missing(c.mean) else fmt_ci(c))
        where = {"above": "above 1", "below": "below 1", "tie": "interval includes 1"}[_dir(a)]
        verdict = (
            flipped
            if flipped
            else f"same direction ({where}), **moves beyond the interval**"
            if moved
            else f"holds on every stack ({where})"
        )
        (first if flipped or moved else rest).append([claim, fmt_ci(a)] + cells + [verdict])
    if not first and not rest:
        return []
    L = ["## The TCP stack: OPNET's TCP (default), the seed's table key by key, today's Linux\n"]
    L.append(
        "The study's TCP is the `opnet-2003` profile: the seed's table with OPNET's 0.5-s timer tick applied as "
        "OPNET does (RTT samples and the RTO in whole ticks). The seed's table set key by key over `linux` (the "
        "study's former default) reads the tick as RFC 6298's G instead; `linux` is today's "
        "kernel carrying the seed's MSS, receive buffer and no timestamps. Ratios at "
        f"{rate:.0%} drop, mean [95 % interval]; rows where a stack changes the direction or moves the ratio outside "
        "the default's interval come first.\n"
    )
    L.extend(md_table(["claim", base[2]] + [w for _, _, w in others] + ([probe[2]] if probe else []) + ["on every stack?"], first + rest))
    L.append("")
    L.extend(_stack_mechanism(t, rate))
    L.extend(profile_vs_table())
    return L


def profile_vs_table() -> list[str]:
    """Every resolved value in which the default (`opnet-2003`) and the seed's
    table set key by key differ, with the seed's sentence and the reading
    the default follows."""
    L = ["### Where the `opnet-2003` profile and the seed's table set key by key differ\n"]
    L.append(
        "Every [flows.tcp] value, as the simulator resolves both, that is not the same (a test checks that this is "
        "the whole list):\n"
    )
    L.extend(
        md_table(
            ["key", "opnet-2003 (default)", "seed's table, key by key", "the seed", "the default follows"],
            [[f"`{k}`", f"`{a}`", f"`{b}`", seed, why] for k, (a, b, seed, why) in PROFILE_VS_TABLE.items()],
        )
    )
    L.append("")
    return L


def _stack_mechanism(t: Table, rate: float) -> list[str]:
    """Plain TCP's upload time (s1) on each stack: what the stacks change is how
    TCP repairs the PEG's losses, and SACK is the switch that decides it."""
    cells = []
    for tcp_arm, snoop_arm, what in STACK_PAIRS:
        a, b = t.stats("s1", tcp_arm, "m1", rate), t.stats("s1", snoop_arm, "m1", rate)
        to = t.val("s1", tcp_arm, "m1", rate, "timeouts_mean")
        if is_missing(a.mean):
            continue
        cells.append(f"{what}: TCP {fmt(a.mean, '{:.3g}')} s ({fmt(to, '{:.1f}')} timeouts), Snoop {fmt(b.mean, '{:.3g}')} s")
    if len(cells) < 2:
        return []
    lin = ratio_stats(t.stats("s1", "tcp-linux", "m1", rate), t.stats("s1", "snoop-linux", "m1", rate))
    off = ratio_stats(t.stats("s1", "tcp-linux-nosack", "m1", rate), t.stats("s1", "snoop-linux-nosack", "m1", rate))
    out = f"- s1 at {rate:.0%}: " + "; ".join(cells) + "."
    if not is_missing(lin.mean) and not is_missing(off.mean):
        out += (
            f" On today's kernel TCP / Snoop is {lin.mean:.2f}; with SACK switched off (and with it RACK's and the "
            f"loss probe's SACK-based detection) it is {off.mean:.2f}"
            + (", so SACK is what separates the stacks: it repairs the PEG's losses without the timeouts Snoop saves. "
               if off.mean > lin.mean * 1.5 else ". ")
            + "The seed's stack had no SACK (its table: Selective ACK disabled), so the default arm is the comparison with the seed."
        )
    return [out, ""]
