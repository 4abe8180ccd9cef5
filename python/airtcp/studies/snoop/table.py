"""The snoop study's table.csv as the report reads it: rows indexed by
scenario, arm, mobile and drop rate, and the cell formats every section
of the report shares."""

from __future__ import annotations

from ..reporting import NAN, Stats, fmt, fmt_ci, is_missing

def of_mac(rows: list[dict], mac: str) -> list[dict]:
    """The rows of one wireless variant (rows without a mac label are p2p)."""
    return [r for r in rows if r.get("mac", "p2p") == mac]


MAC_NAMES = {"p2p": "point-to-point", "80211": "802.11 DCF"}


class Table:
    """table.csv rows indexed by (scenario, arm, mobile, drop rate), of one
    wireless variant when `mac` is given."""

    def __init__(self, rows: list[dict], mac: str | None = None):
        self.rows_all = rows
        rows = rows if mac is None else of_mac(rows, mac)
        self.rows = rows
        self.ix = {(r["scenario"], r["arm"], r["mobile"], r["drop_rate"]): r for r in rows}

    def get(self, sid, arm, mobile, rate) -> dict | None:
        return self.ix.get((sid, arm, mobile, rate))

    def stats(self, sid, arm, mobile, rate) -> Stats:
        r = self.get(sid, arm, mobile, rate)
        if r is None or is_missing(r["response_time_mean"]):
            return Stats(0, NAN, NAN, NAN, NAN)
        lo, hi = r["response_time_ci95_lo"], r["response_time_ci95_hi"]
        return Stats(
            r["finished"],
            r["response_time_mean"],
            r["response_time_sd"],
            NAN if lo is None else lo,
            NAN if hi is None else hi,
        )

    def val(self, sid, arm, mobile, rate, col):
        r = self.get(sid, arm, mobile, rate)
        return None if r is None else r.get(col)


def _cell(t: Table, sid, arm, mobile, rate) -> str:
    r = t.get(sid, arm, mobile, rate)
    if r is None:
        return "-"
    s = fmt_ci(t.stats(sid, arm, mobile, rate), "{:.3g}")
    if r["unfinished"]:
        s += f" ({r['unfinished']}/{r['n']} unfinished)"
    return s


def _x(v, spec="{:.1f}") -> str:
    return fmt(v, spec)


def _verdict(r: Stats) -> str:
    """Whether a ratio's 95 % interval excludes 1."""
    if is_missing(r.lo):
        return "no interval"
    if r.lo > 1 or r.hi < 1:
        return f"95 % CI [{r.lo:.2f}, {r.hi:.2f}] excludes 1"
    return f"95 % CI [{r.lo:.2f}, {r.hi:.2f}] includes 1: no clear difference with {r.n} seeds"
