"""What the sdn-zwa study measures: the metrics of one run (the delivery
interruption around the roam, the seed's t0 and t3, the controller's and
agents' counters), what a plotted run keeps, the progress line of a run,
and the per-arm table (mean and 95 % interval over seeds)."""

from __future__ import annotations

from ... import metrics
from ..reporting import summarize_counts as summarize_nonnegative

def interruption(ts, t0: float | None) -> tuple[float | None, float | None]:
    """`(start, end)` of the delivery interruption around the disconnection
    at `t0` on the flow's sampled series (`airtcp.metrics.interruption`:
    anchored at the first sample at or after T0, which still holds
    deliveries from before the disconnection)."""
    if t0 is None:
        return (None, None)
    return metrics.interruption(ts, t0)


def _first(events, kind: str, after: float) -> float | None:
    for e in events:
        if e["kind"] == kind and e["t_s"] > after:
            return e["t_s"]
    return None


def _t0_t3(ev) -> tuple[float | None, float | None]:
    """T0 (the old AP loses the MN) and T3 (the new AP has it): the SDN
    timeline's events, or the APs' own for the arms without a controller
    (the same instants: the SDN notices are made of them)."""
    t0 = _first(ev, "sdn_t0_disassociated", 1.0)
    if t0 is None:
        t0 = _first(ev, "wifi_ap_station_left", 1.0)
    if t0 is None:
        return None, None
    t3 = _first(ev, "sdn_t3_associated", t0)
    if t3 is None:
        t3 = _first(ev, "wifi_ap_station_joined", t0)
    return t0, t3


def _agent_sum(s: dict, kind: str, key: str) -> int:
    return sum(a["counters"].get(key, 0) for a in s.get("agents", []) if a.get("kind") == kind)


def measure(task, result) -> dict:
    """Metrics of one run (see the report for definitions)."""
    s = result.summary
    f = s["flows"][0]
    ctl = (s.get("sdn") or {}).get("controller", {}) or {}
    ev = result.events
    t0, t3 = _t0_t3(ev)
    sender_idle = None
    delivered_after = None
    gap = (None, None)
    if t3 is not None:
        first = metrics.first_data_after(result.segments(0), t3)
        sender_idle = first - t3 if first is not None else None
        ts = result.timeseries(0)
        delivered_after = metrics.delivered_after(ts, t3)
        gap = interruption(ts, t0)
    client_timeouts = [e["t_s"] for e in ev if e["kind"] == "timeout" and e["detail"].startswith("client")]
    return {
        "bytes_delivered": f["bytes_delivered"],
        "retransmissions": f["retransmissions"],
        "timeouts": f["timeouts"],
        "loss_undos": f["loss_undos"],
        # RTOs of the handoff: the sender's timeouts after T0 (at 7 hops the
        # SYN's first RTO, before any handoff, is in `timeouts` of every arm).
        "handoff_timeouts": metrics.timeouts_after(client_timeouts, t0)[0] if t0 is not None else 0,
        "window_probes": f["window_probes"],
        "zero_window_events": f["zero_window_events"],
        "t0_s": t0,
        "t3_s": t3,
        # The seed's "interruption in data transfer": last in-order delivery
        # before T0 to the first new one after it (airtcp_analyze's
        # interruption_around, on the 10 ms series); None if delivery never
        # resumed in the run.
        "interruption_s": (gap[1] - gap[0]) if gap[0] is not None and gap[1] is not None else None,
        # Fig. 8's idle period after reassociation, delivery-based: the first
        # new in-order delivery after T0 minus T3.
        "idle_after_reassoc_s": (gap[1] - t3) if gap[1] is not None else None,
        # The sender's first data segment after T3 minus T3 (counts segments
        # sent beyond a hole that deliver nothing): a second, named metric.
        "sender_idle_s": sender_idle,
        "bytes_after_reassoc": delivered_after,
        "stalled": int(delivered_after is not None and delivered_after == 0),
        "zwa_acks": (s.get("sdn") or {}).get("zwa_acks", 0),
        "stats_zwa_enabled": ctl.get("stats_zwa_enabled", 0),
        "stats_zwa_disabled": ctl.get("stats_zwa_disabled", 0),
        "freeze_zwas": (f.get("freeze") or {}).get("zwas", 0),
        "mtcp_zwas": _agent_sum(s, "mtcp", "zwa_sent"),
        "mtcp_reopens": _agent_sum(s, "mtcp", "reopen_sent"),
        "t0t2_s": (_first(ev, "sdn_t2_flow_removed", t0) - t0) if t0 is not None and _first(ev, "sdn_t2_flow_removed", t0) is not None else None,
    }


def keep_run(task, result, _dir) -> dict:
    """Fig. 6 data: the sender's segments and the handoff instants."""
    seg = result.segments(0)
    ev = result.events
    t0, t3 = _t0_t3(ev)
    return {
        "label": task.labels["case"],
        "arm": task.labels["arm"],
        "t_s": seg["t_s"].tolist(),
        "seq": seg["seq"].tolist(),
        "retx": seg["retransmission"].tolist(),
        "t0": t0,
        "t3": t3,
    }


def aggregate(runs: list[dict]) -> list[dict]:
    """Mean and 95 % interval per (stack, fig, arm, hops, disconnection).
    Every quantity here is a count, a duration or a ratio of byte counts,
    none below 0: the interval is a percentile bootstrap of the mean, which
    stays within the data's range (a t interval on a few skewed values
    reaches below 0)."""
    ref = {(r["stack"], r["hops"], r["disconnect_s"], r["seed"]): r["bytes_delivered"] for r in runs if r["fig"] == "7" and r["arm"] == "noroam"}
    keyf = lambda r: (r["stack"], r["fig"], r["arm"], r["hops"], r["disconnect_s"], r.get("t0t2_ms"))
    groups: dict = {}
    for r in runs:
        if r["fig"] != "6":
            groups.setdefault(keyf(r), []).append(r)
    table = []
    for (stack, fig, arm, h, d, ms), rs in groups.items():
        util = [r["bytes_delivered"] / ref[(stack, h, d, r["seed"])] for r in rs if ref.get((stack, h, d, r["seed"]))]
        row = {"stack": stack, "fig": fig, "arm": arm, "hops": h, "disconnect_s": d, "t0t2_ms": ms, "n": len(rs)}
        for name, xs in (
            ("utilisation", util),
            ("idle_s", [r["idle_after_reassoc_s"] for r in rs]),
            ("interruption_s", [r["interruption_s"] for r in rs]),
            ("sender_idle_s", [r["sender_idle_s"] for r in rs]),
            ("t0t2_s", [r.get("t0t2_s") for r in rs]),
            ("retransmissions", [r["retransmissions"] for r in rs]),
            ("timeouts", [r["timeouts"] for r in rs]),
            ("handoff_timeouts", [r["handoff_timeouts"] for r in rs]),
        ):
            st = summarize_nonnegative(xs)
            row[f"{name}_mean"], row[f"{name}_lo"], row[f"{name}_hi"] = st.mean, st.lo, st.hi
        row["zwa_enabled"] = sum(r["stats_zwa_enabled"] for r in rs)
        row["zwa_disabled"] = sum(r["stats_zwa_disabled"] for r in rs)
        row["stalled"] = sum(r["stalled"] for r in rs)
        table.append(row)
    return table


def describe(row: dict) -> str:
    return f"{row['stack']} fig {row['fig']} {row['arm']} {row['hops']} hops {row['disconnect_s']:g} s seed {row['seed']}"
