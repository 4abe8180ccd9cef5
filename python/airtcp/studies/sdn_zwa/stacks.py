"""The seed's headline claims on each TCP stack of ``airtcp reproduce
sdn-zwa`` (:data:`.setup.STACKS`): whether each holds, its value with a
95 % interval, and whether it moves between two stacks by more than its
interval. Shared by the report; nothing here runs a simulation.

A claim is a quantity measured from the per-run rows of one stack plus a
rule that says whether the seed's statement holds for it. Two stacks'
values *move* when their 95 % intervals do not overlap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..reporting import Stats, fmt_ci, is_missing
from ..reporting import summarize_counts as summarize_nonnegative


@dataclass(frozen=True)
class StackClaim:
    """One headline claim: `measure(runs of one stack) -> Stats`, `holds(Stats)
    -> bool`, the seed's statement and how the value is measured."""

    key: str
    what: str
    seed_text: str
    measure: Callable[[list[dict]], Stats]
    holds: Callable[[Stats], bool]
    how: str
    spec: str = "{:.2f}"


def _vals(runs, fig, arm, key, **where):
    return [r[key] for r in runs if r["fig"] == fig and r["arm"] == arm and all(r[k] == v for k, v in where.items())]


def _stat(xs) -> Stats:
    return summarize_nonnegative(xs)


def _diff_stat(a: list[float], b: list[float]) -> Stats:
    """Mean of a minus mean of b, with a bootstrap interval of each mean
    combined conservatively (the difference of the far ends)."""
    sa, sb = _stat(a), _stat(b)
    if is_missing(sa.mean) or is_missing(sb.mean):
        return Stats(0, float("nan"), float("nan"), float("nan"), float("nan"))
    return Stats(min(sa.n, sb.n), sa.mean - sb.mean, float("nan"), sa.lo - sb.hi, sa.hi - sb.lo)


def _gate_open_handoff_rtos(runs, hops):
    return [r["handoff_timeouts"] for r in runs if r["fig"] == "8" and r["arm"] == "zwa" and r["hops"] == hops and r["stats_zwa_enabled"]]


def _bare_minus_zwa_idle(runs):
    """Per Fig. 8 point (hops, period): bare's mean idle minus ZWA's; the
    claim's value is the smallest of them (ZWA ahead everywhere when > 0)."""
    pts = sorted({(r["hops"], r["disconnect_s"]) for r in runs if r["fig"] == "8"})
    worst = None
    for h, d in pts:
        s = _diff_stat(_vals(runs, "8", "bare", "idle_after_reassoc_s", hops=h, disconnect_s=d), _vals(runs, "8", "zwa", "idle_after_reassoc_s", hops=h, disconnect_s=d))
        if not is_missing(s.mean) and (worst is None or s.mean < worst.mean):
            worst = s
    return worst or Stats(0, float("nan"), float("nan"), float("nan"), float("nan"))


def _growth(runs, hops):
    """Bare TCP's Fig. 8 idle at the longest period minus at the shortest."""
    ds = sorted({r["disconnect_s"] for r in runs if r["fig"] == "8" and r["hops"] == hops})
    if len(ds) < 2:
        return Stats(0, float("nan"), float("nan"), float("nan"), float("nan"))
    return _diff_stat(_vals(runs, "8", "bare", "idle_after_reassoc_s", hops=hops, disconnect_s=ds[-1]), _vals(runs, "8", "bare", "idle_after_reassoc_s", hops=hops, disconnect_s=ds[0]))


def _stalled_share(runs):
    xs = [r["stalled"] for r in runs if r["fig"] == "7" and r["arm"] == "zwa-nostats"]
    return _stat(xs)


def claims(hops: list[int], short_period: float) -> list[StackClaim]:
    """The headline claims, for the Fig. 8 hop counts `hops` and the
    shortest disconnection period `short_period` (the seed's Fig. 6)."""
    at = {"disconnect_s": short_period}
    out = [
        StackClaim(
            "bare_interruption",
            f"Fig. 6(a) bare TCP: interruption ({short_period:g} s away, 2 hops)",
            "3-5 s",
            lambda rs: _stat(_vals(rs, "7", "bare", "interruption_s", **at)),
            lambda s: 3.0 <= s.mean <= 5.0,
            "last in-order delivery before T0 to the first new one after it; holds: mean within 3-5 s",
        ),
        StackClaim(
            "zwa_interruption",
            f"Fig. 6(c) ZWA: interrupted only while disconnected ({short_period:g} s away)",
            "1-2 s",
            lambda rs: _stat(_vals(rs, "7", "zwa", "interruption_s", **at)),
            lambda s: s.mean <= 2.0,
            "same metric; holds: mean within the seed's 1-2 s",
        ),
        StackClaim(
            "nostats_stall",
            "Fig. 6(b) ZWA without the statistics module: the connection is not revived",
            "in few runs",
            _stalled_share,
            lambda s: s.mean > 0,
            "share of Fig. 7 runs with no byte delivered after T3; holds: above 0",
        ),
        StackClaim(
            "utilisation_gain",
            "Fig. 7(a): ZWA's utilisation above bare TCP's (2 hops, every period)",
            "ZWA higher",
            lambda rs: _diff_stat(_vals(rs, "7", "zwa", "utilisation"), _vals(rs, "7", "bare", "utilisation")),
            lambda s: s.mean > 0,
            "ZWA minus bare, pooled over periods and seeds; holds: above 0",
            "{:.3f}",
        ),
        StackClaim(
            "retx_bare",
            "Fig. 7(b): retransmissions per handoff, bare TCP",
            "high",
            lambda rs: _stat(_vals(rs, "7", "bare", "retransmissions")),
            lambda s: s.mean >= 5,
            "the sender's data segments below its highest sent; holds: at least 5",
            "{:.1f}",
        ),
        StackClaim(
            "retx_zwa",
            "Fig. 7(b): retransmissions per handoff, ZWA",
            "minimum",
            lambda rs: _stat(_vals(rs, "7", "zwa", "retransmissions")),
            lambda s: s.mean < 5,
            "includes the handoffs the statistics module left to bare TCP; holds: below 5",
            "{:.1f}",
        ),
        StackClaim(
            "fig8_zwa_ahead",
            "Fig. 8: ZWA idles less than bare TCP after reassociation (every hop count and period)",
            "ZWA lower",
            _bare_minus_zwa_idle,
            lambda s: s.lo > 0,
            "bare minus ZWA idle after reassociation at the Fig. 8 point where ZWA's lead is least; holds: interval above 0",
        ),
    ]
    for h in hops:
        out.append(
            StackClaim(
                f"fig8_growth_{h}",
                f"Fig. 8 ({h} hops): bare TCP's idle grows with the disconnection period",
                "grows",
                lambda rs, h=h: _growth(rs, h),
                lambda s: s.lo > 0,
                "idle at 6 s minus idle at 1.5 s; holds: interval above 0",
            )
        )
    for h in hops:
        out.append(
            StackClaim(
                f"zwa_rto_{h}",
                f"ZWA freezes the sender ({h} hops): no RTO in a handoff with the gate open",
                "no RTO",
                lambda rs, h=h: _stat(_gate_open_handoff_rtos(rs, h)),
                lambda s: s.mean == 0,
                "sender timeouts after T0 per Fig. 8 ZWA run whose statistics module kept ZWA on; holds: 0",
            )
        )
    return out


@dataclass(frozen=True)
class Verdict:
    claim: StackClaim
    values: dict  # stack -> Stats
    holds: dict  # stack -> bool | None

    def flips(self, a: str, b: str) -> bool:
        ha, hb = self.holds.get(a), self.holds.get(b)
        return ha is not None and hb is not None and ha != hb

    def moves(self, a: str, b: str) -> bool:
        """The two stacks' intervals do not overlap."""
        sa, sb = self.values.get(a), self.values.get(b)
        if sa is None or sb is None or any(is_missing(x) for x in (sa.lo, sa.hi, sb.lo, sb.hi)):
            return False
        return sa.hi < sb.lo or sb.hi < sa.lo

    def text(self, stack: str) -> str:
        s = self.values.get(stack)
        if s is None or is_missing(s.mean):
            return "-"
        h = self.holds.get(stack)
        return f"{fmt_ci(s, self.claim.spec)} ({'holds' if h else 'does not hold'})"


def with_utilisation(runs: list[dict]) -> list[dict]:
    """The Fig. 7 rows with `utilisation`: bytes delivered over the no-roam
    run's of the same stack, period and seed (None without one)."""
    ref = {(r["stack"], r["hops"], r["disconnect_s"], r["seed"]): r["bytes_delivered"] for r in runs if r["fig"] == "7" and r["arm"] == "noroam"}
    out = []
    for r in runs:
        b = ref.get((r["stack"], r["hops"], r["disconnect_s"], r["seed"]))
        out.append({**r, "utilisation": r["bytes_delivered"] / b if b else None})
    return out


def verdicts(runs: list[dict], stacks: list[str], hops: list[int], short_period: float) -> list[Verdict]:
    """Every claim on every stack that has runs."""
    runs = with_utilisation(runs)
    out = []
    for c in claims(hops, short_period):
        values, holds = {}, {}
        for st in stacks:
            rs = [r for r in runs if r["stack"] == st]
            if not rs:
                continue
            v = c.measure(rs)
            values[st] = v
            holds[st] = None if is_missing(v.mean) else bool(c.holds(v))
        out.append(Verdict(c, values, holds))
    return out


#: The mechanism behind a move between the seed's stack and another, when
#: that stack is the seed's with one behaviour switched back: stack -> text.
MECHANISMS = {
    "linux-4.4-rto1s": "the one behaviour that differs is the minimum RTO (200 ms, TCP_RTO_MIN, against 1 s)",
    "linux": "with Reno, SACK off and IW 1 set beside both, the two profiles differ only in the default of `tcp_rmem` (87380 against 131072 bytes), the timestamp clock (`ts_granularity`: 4 ms jiffies against 1 ms), RACK (`rack`) and SACK compression (`comp_sack_nr`, 44 against 0), both on in `linux` and inactive without SACK, Linux 4.17's guard against F-RTO undos on SACK-less ACKs (`frto_nonsack_guard`, on in `linux`), the receiver's immediate ACK of a pushed full-sized segment (`push_ack`, Linux 6.6) and where the sender sets PSH (`push_tso`: on the last segment of every multi-segment TSO chunk, Linux 4.11, against the end of each two-segment skb the writer pushed on 4.4)",
}


def _gate_open_rtos(runs, stack):
    """Handoff RTOs per gate-open ZWA run (Fig. 8, every hop count)."""
    return _stat([r["handoff_timeouts"] for r in runs if r["stack"] == stack and r["fig"] == "8" and r["arm"] == "zwa" and r["stats_zwa_enabled"]])


def section(runs: list[dict], seed_stack: str, stacks: list[str], labels: dict, hops: list[int], short_period: float) -> list[str]:
    """The report's first section: every headline claim on every stack,
    flips and moves first, each with its mechanism where a stack isolates
    one."""
    from ..reporting import md_table

    have = [s for s in stacks if any(r["stack"] == s for r in runs)]
    vs = verdicts(runs, have, hops, short_period)
    others = [s for s in have if s != seed_stack]
    lines = []
    for other in others:
        changed = [v for v in vs if v.flips(seed_stack, other) or v.moves(seed_stack, other)]
        why = MECHANISMS.get(other)
        head = f"`{seed_stack}` against `{other}` ({labels.get(other, other)})"
        if not changed:
            lines.append(f"- {head}: " + (why + "; " if why else "") + "every headline claim holds or fails alike, and no value moves by more than its interval.")
            continue
        lines.append(f"- {head}: " + (why + "; " if why else "") + f"{len(changed)} claim(s) change:")
        for v in changed:
            kind = "flips" if v.flips(seed_stack, other) else "moves beyond its interval"
            if v.flips(seed_stack, other) and not v.moves(seed_stack, other):
                kind += " (but the two intervals overlap: a difference within the spread of the seeds, not a stack effect)"
            lines.append(f"    - **{v.claim.what}** {kind}: {v.text(seed_stack)} on `{seed_stack}`, {v.text(other)} on `{other}`.")
    table = md_table(
        ["claim", "seed", *[f"`{s}`" for s in have], "how measured"],
        [[v.claim.what, v.claim.seed_text, *[v.text(s) for s in have], v.claim.how] for v in vs],
    )
    return lines + [""] + table
