"""The snoop report's comparison of TCP stacks: each claim on the seed's
stack (the `opnet-2003` profile, the default), on the seed's table set key
by key over `linux`, and on today's Linux (with and without SACK), changes
first; every value in which the profile and the key-by-key table differ;
and the one mechanism that separates the stacks."""

from __future__ import annotations

from ..reporting import Stats, fmt, fmt_ci, is_missing, md_table, ratio_stats
from .setup import PROBE_MECHANISMS, PROFILE_VS_TABLE, SETUPS, STACK_PAIRS
from .table import Table

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
    others = [p for p in STACK_PAIRS[1:] if p[0] not in PROBE_MECHANISMS]
    probes = [p for p in STACK_PAIRS if p[0] in PROBE_MECHANISMS]
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
        for probe in probes:
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
        "the default's interval come first. The last columns switch one mechanism off on today's kernel to find "
        "what separates it from OPNET's stack; they do not count in the verdict.\n"
    )
    L.extend(md_table(["claim", base[2]] + [w for _, _, w in others] + [w for _, _, w in probes] + ["on every stack?"], first + rest))
    L.append("")
    L.extend(_stack_mechanism(t, plan, rate))
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
            [[f"`{k}`", f"`{_toml(a)}`", f"`{_toml(b)}`", seed, why] for k, (a, b, seed, why) in PROFILE_VS_TABLE.items()],
        )
    )
    L.append("")
    return L


def _stack_mechanism(t: Table, plan: dict, rate: float) -> list[str]:
    """Plain TCP's upload time (s1) on each stack, and which single switch on
    today's kernel brings every claim back to the default's direction."""
    cells = []
    for tcp_arm, snoop_arm, what in STACK_PAIRS:
        a, b = t.stats("s1", tcp_arm, "m1", rate), t.stats("s1", snoop_arm, "m1", rate)
        to = t.val("s1", tcp_arm, "m1", rate, "timeouts_mean")
        if is_missing(a.mean):
            continue
        cells.append(f"{what}: TCP {fmt(a.mean, '{:.3g}')} s ({fmt(to, '{:.1f}')} timeouts), Snoop {fmt(b.mean, '{:.3g}')} s")
    if len(cells) < 2:
        return []
    out = [f"- s1 at {rate:.0%}: " + "; ".join(cells) + "."]
    base, lin = STACK_PAIRS[0], next((p for p in STACK_PAIRS if p[0] == "tcp-linux"), None)
    claims = _stack_claims(t, plan, rate)

    def dirs(pair):
        rs = [_stack_ratio(t, sid, m, kind, pair[0], pair[1], rate) for _, sid, m, kind in claims]
        return [None if r is None or is_missing(r.mean) else _dir(r) for r in rs]

    want = dirs(base)
    if lin and dirs(lin) != want:
        for arm, mechanism in PROBE_MECHANISMS.items():
            pair = next((p for p in STACK_PAIRS if p[0] == arm), None)
            got = dirs(pair) if pair else []
            if not got or None in got:
                continue
            same = sum(1 for x, y in zip(got, want) if x == y)
            tcp = t.stats("s1", arm, "m1", rate)
            out.append(
                f"- Today's kernel with {mechanism} switched off (`{arm}`): plain TCP uploads in "
                f"{fmt(tcp.mean, '{:.3g}')} s with {fmt(t.val('s1', arm, 'm1', rate, 'timeouts_mean'), '{:.1f}')} "
                f"timeouts per run (default {fmt(t.stats('s1', base[0], 'm1', rate).mean, '{:.3g}')} s and "
                f"{fmt(t.val('s1', base[0], 'm1', rate, 'timeouts_mean'), '{:.1f}')}; `linux` "
                f"{fmt(t.stats('s1', lin[0], 'm1', rate).mean, '{:.3g}')} s and "
                f"{fmt(t.val('s1', lin[0], 'm1', rate, 'timeouts_mean'), '{:.1f}')}), and {same} of {len(want)} claims "
                "have the default's direction again."
            )
        g = lambda arm, c: fmt(t.val("s1", arm, "m1", rate, c), "{:.1f}")  # noqa: E731
        out.append(
            "- What separates the stacks is how plain TCP repairs the PEG's losses: on OPNET's stack a loss ends in "
            f"a retransmission timeout (s1: {g(base[0], 'timeouts_mean')} timeouts and "
            f"{g(base[0], 'fast_retransmits_mean')} fast retransmits per run; under 4 segments in flight seldom give "
            "three duplicate ACKs), which is what Snoop saves; today's kernel repairs many without one "
            f"({g(lin[0], 'timeouts_mean')} timeouts, {g(lin[0], 'fast_retransmits_mean')} fast retransmits). "
            "The seed's table disables "
            "SACK (\"Selective Ack (SACK) Disabled\"), and RACK did not exist in 2003, so the default is the "
            "comparison with the seed."
        )
    return out + [""]


def _toml(v) -> str:
    """A resolved value as [flows.tcp] spells it (true, not True)."""
    return str(v).lower() if isinstance(v, bool) else str(v)
