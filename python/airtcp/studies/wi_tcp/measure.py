"""What the wi-tcp study measures: the metrics of one run (goodput, the
seed's timeline of the first handoff, the delivery at the seed's instant,
the agents' counters), what a plotted run keeps, the progress line of a
run, and the per-point table (means over seeds)."""

from __future__ import annotations

from ...metrics import delivered_at, first_retransmission_after, goodput_between, interruption, timeouts_after
from ..reporting import present, summarize
from .delays import DELAY_COLUMNS, delay_analysis
from .setup import FAFA_S, MSS, handoffs

#: The seed's instant of the FA1->FA2 handoff ("packets loss occurs at
#: 42.524 second"), at which it compares cumulative packets (2850 vs 2768).
SEED_FAFA_S = 42.52


def _counters(result, kind: str, node: str) -> dict:
    for a in result.summary.get("agents", []):
        if a.get("kind") == kind and a.get("node") == node:
            return a.get("counters", {})
    return {}


def _delivered_at(ts, t: float) -> float | None:
    """Segments the receiver had read by time `t` (the last sample before)."""
    got = delivered_at(ts, t)
    return got / MSS if got is not None else None


def _fafa_move(task, events) -> float:
    """When the FA->FA move happened: the shipped time over 802.11 (the
    station notices only after its beacon loss), the cell's loss on p2p."""
    if task.labels["link"] == "p2p":
        lost = [e["t_s"] for e in events if e["kind"] == "wifi_link_lost"]
        if len(lost) == len(handoffs(task.labels["schedule"])):
            return lost[-1]
    return FAFA_S


def timeline(task, result) -> dict:
    """The seed's timeline of the first handoff (HA->FA): the sender's
    first timeout after the move, every transmission of the first packet
    it retransmits (the seed: 759 at 11.91 s ... 17.65 s), when delivery
    resumes (the delivery interruption's end, airtcp_analyze's
    interruption_around at the mobile's loss of its link), and the goodput in the second before
    the move (the seed: about 0.6 Mb/s around 11.5 s)."""
    move = handoffs(task.labels["schedule"])[0][0]
    ev = result.events
    _, rto = timeouts_after([e["t_s"] for e in ev if e["kind"] == "timeout" and e["detail"].startswith("client")], move)
    first = first_retransmission_after(result.segments(0), move)
    first_lost, sends = first if first is not None else (None, [])
    ts = result.timeseries(0)
    # Anchored where the mobile noticed the loss of its link (after the
    # frames in flight at the move were delivered, before any new one);
    # airtcp.metrics.interruption anchors at the first sample at or after it.
    lost = next((e["t_s"] for e in ev if e["kind"] == "wifi_link_lost" and e["t_s"] >= move), move)
    start, end = interruption(ts, lost)
    rate = goodput_between(ts, move - 1.0, move)
    return {
        "first_rto_s": rto,
        # ns-2 numbers packets from 0: offset // MSS.
        "first_lost_pkt": first_lost // MSS if first_lost is not None else None,
        "first_lost_sends_s": ";".join(f"{t:.3f}" for t in sends),
        "resume_s": end,
        "interruption_s": (end - start) if start is not None and end is not None else None,
        "rate_before_move_mbps": rate / 1e6 if rate is not None else None,
    }


def measure(task, result) -> dict:
    f = result.flows[0]
    ha = _counters(result, "home_agent", "ha")
    cn = _counters(result, "correspondent", "fh")
    w = f.get("witcp") or {}
    ev = result.events
    ts = result.timeseries(0)
    move = _fafa_move(task, ev)
    at, after = _delivered_at(ts, move), _delivered_at(ts, move + 5.0)
    row = {
        "goodput_bps": f.get("goodput_bps"),
        "timeouts": f.get("timeouts"),
        "retransmissions": f.get("retransmissions"),
        "ha_tunnelled": ha.get("tunnelled"),
        "cn_tunnelled": cn.get("tunnelled"),
        "freezes": w.get("freezes"),
        "frozen_s": w.get("frozen_s"),
        "forced_thaws": w.get("forced_thaws"),
        "ehn_notifications": (f.get("ehn") or {}).get("notifications"),
        "pkts_at_fafa": at,
        # The seed's own comparison: packets delivered in order by 42.52 s.
        "pkts_at_42_52": _delivered_at(ts, SEED_FAFA_S),
        "pkts_after_fafa": after,
        "pkts_fafa_window": after - at if at is not None and after is not None else None,
        "pkts_total": (f.get("bytes_delivered") or 0) / MSS,
        "run_wall_s": result.run_wall_s,
    }
    departures = None if task.labels["link"] == "p2p" else [t for t, _, _ in handoffs(task.labels["schedule"])]
    row.update(delay_analysis(ev, departures))
    row.update(timeline(task, result))
    return row


KEY = ["stack", "schedule", "rate_mbps", "link", "mode", "variant", "hafa_ms"]


MEANS = [
    "timeouts",
    "retransmissions",
    "ha_tunnelled",
    "cn_tunnelled",
    "freezes",
    "frozen_s",
    "ehn_notifications",
    "pkts_after_fafa",
    "pkts_at_42_52",
    "first_rto_s",
    "resume_s",
    "interruption_s",
    "rate_before_move_mbps",
    "pkts_fafa_window",
    "pkts_total",
] + DELAY_COLUMNS


def _mean(xs):
    xs = present(xs)
    return sum(xs) / len(xs) if xs else None


def aggregate(runs: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault(tuple(r[k] for k in KEY), []).append(r)
    table = []
    for key, rs in groups.items():
        st = summarize([r["goodput_bps"] for r in rs])
        row = dict(zip(KEY, key))
        row.update(
            {
                "n": len(rs),
                "goodput_mean_bps": st.mean,
                "goodput_sd_bps": st.sd,
                "goodput_ci95_lo": st.lo if st.n > 1 else None,
                "goodput_ci95_hi": st.hi if st.n > 1 else None,
            }
        )
        for c in MEANS:
            row[f"{c}_mean"] = _mean(r.get(c) for r in rs)
        table.append(row)
    return table


def keep_run(task, result, _dir) -> dict:
    return {
        "labels": dict(task.labels),
        "series": result.timeseries(0),
        "segments": result.segments(0),
        "events": [
            e
            for e in result.events
            if e["kind"].startswith(("witcp", "mip_registered", "wifi_associated", "wifi_link_lost", "timeout", "ehn_sent", "handover_notified"))
        ],
    }


def describe(row: dict) -> str:
    return f"{row['stack']} {row['rate_mbps']:g} Mb/s {row['link']} {row['mode']} {row['variant']} {row['hafa_ms']} ms seed {row['seed']}: {row['goodput_bps'] / 1e6:.3f} Mb/s"
