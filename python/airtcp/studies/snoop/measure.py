"""What the snoop study measures: the metrics of one run (response time,
retransmissions and timeouts at the sender, the Snoop agent's and the MACs'
counters, one row per mobile), what a plotted run keeps, the progress line
of a run, and the per-point table (means and 95 % intervals over seeds)."""

from __future__ import annotations

from ...metrics import sample_median
from ..reporting import present, summarize
from .setup import SETUPS

def agent_series(result, i: int) -> tuple[list, list]:
    """(t_s, value) of agent `i`'s sampled level (Snoop: cached segments).
    The one place that knows where the simulator puts it."""
    fn = getattr(result, "agent_series", None)
    if fn is not None:
        df = fn(i)
        return list(df["t_s"]), list(df["value"])
    got = result.summary.get("agents", [])
    s = (got[i].get("series") if i < len(got) else None) or {}
    return list(s.get("t_s", [])), list(s.get("value", []))


def agent_index(decl: list[dict], kind: str, mobile: str) -> tuple[int | None, str]:
    """Index of the declared agent of `kind` that serves `mobile`'s flow, and
    whether it is the mobile's own ("own") or serves every flow ("shared")."""
    for i, a in enumerate(decl):
        if a["kind"] != kind:
            continue
        if a["node"] == mobile or (kind == "itcp" and a.get("wireless") == f"ap-{mobile}"):
            return i, "own"
    for i, a in enumerate(decl):  # an agent at the server (or on the AP's radio) sees every flow
        if a["kind"] == kind and (a["node"] == "server" or (kind == "itcp" and a.get("wireless") == "radio")):
            return i, "shared"
    return None, ""


def agent_counters(result, decl: list[dict], i: int | None) -> dict:
    """Counters of declared agent `i` in the run's summary (matched by node
    and kind, so a reordering on the simulator's side is caught)."""
    if i is None:
        return {}
    got = result.summary.get("agents", [])
    if i < len(got) and got[i].get("node") == decl[i]["node"] and got[i].get("kind") == decl[i]["kind"]:
        return got[i].get("counters", {})
    same = [j for j, a in enumerate(decl) if a["node"] == decl[i]["node"] and a["kind"] == decl[i]["kind"]]
    found = [g for g in got if g.get("node") == decl[i]["node"] and g.get("kind") == decl[i]["kind"]]
    k = same.index(i)
    return found[k].get("counters", {}) if k < len(found) else {}


SNOOP_COUNTERS = ["local_retransmissions", "local_timeouts", "dupacks_suppressed", "cache_full_bypass", "max_cached"]


def measure(task, result) -> list[dict]:
    """One row per mobile: response time (None if the transfer did not
    finish), the sender's timeouts and retransmissions, and the counters of
    the agents on the flow's path."""
    setup = SETUPS[task.labels["scenario"]]
    decl = task.scenario["agents"]
    rows = []
    for m, f in zip(setup.mobiles, result.flows):
        rt = f.get("response_time_s")
        row = {
            "mobile": m,
            "finished": rt is not None,
            "response_time_s": rt,
            "timeouts": f.get("timeouts"),
            "retransmissions": f.get("retransmissions"),
            "fast_retransmits": f.get("fast_retransmits"),
            "srtt_mean_s": f.get("srtt_mean_s"),
        }
        si, scope = agent_index(decl, "snoop", m)
        sc = agent_counters(result, decl, si)
        for k in SNOOP_COUNTERS:
            row[f"snoop_{k}"] = sc.get(k) if si is not None else None
        row["snoop_scope"] = scope if si is not None else ""
        pi, _ = agent_index(decl, "peg", m)
        pc = agent_counters(result, decl, pi)
        row["peg_dropped"] = (pc.get("send_dropped", 0) + pc.get("recv_dropped", 0)) if pc else None
        ii, _ = agent_index(decl, "itcp", m)
        ic = agent_counters(result, decl, ii)
        row["itcp_acked_not_delivered"] = ic.get("acked_not_delivered") if ii is not None else None
        row["itcp_relay_max_bytes"] = ic.get("relay_max_bytes") if ii is not None else None
        mine = mac_counters(result, m)
        ap = mac_counters(result, "ap")
        row["mac_retries"] = mine.get("retries")
        row["mac_retry_drops"] = mine.get("retry_drops")
        row["ap_mac_retries"] = ap.get("retries")
        row["ap_mac_retry_drops"] = ap.get("retry_drops")
        row["run_wall_s"] = result.run_wall_s
        rows.append(row)
    return rows


def mac_counters(result, node: str) -> dict:
    """802.11 MAC counters of `node`'s radio ({} on the point-to-point variant)."""
    for r in getattr(result, "radios", None) or result.summary.get("radios", []) or []:
        if r.get("node") == node:
            return r.get("counters", {})
    return {}


KEY = ["scenario", "mac", "arm", "mobile", "drop_rate"]


MEAN_COLUMNS = [
    "timeouts",
    "retransmissions",
    "fast_retransmits",
    "srtt_mean_s",
    "snoop_local_retransmissions",
    "snoop_local_timeouts",
    "snoop_dupacks_suppressed",
    "peg_dropped",
    "itcp_acked_not_delivered",
    "mac_retries",
    "mac_retry_drops",
    "ap_mac_retries",
    "ap_mac_retry_drops",
]


def _mean(xs) -> float | None:
    xs = present(xs)
    return sum(xs) / len(xs) if xs else None


def aggregate(runs: list[dict]) -> list[dict]:
    """table.csv: one row per (scenario, arm, mobile, drop rate), in run order.
    The response time is summarised over the finished runs; `unfinished`
    counts the others (the mean is then a lower bound)."""
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        # rows without a mac label are the point-to-point variant's
        groups.setdefault(tuple(r.get(k, "p2p") if k == "mac" else r[k] for k in KEY), []).append(r)
    table = []
    for key, rs in groups.items():
        st = summarize([r["response_time_s"] for r in rs if r["finished"]])
        row = dict(zip(KEY, key))
        row.update(
            {
                "n": len(rs),
                "finished": sum(1 for r in rs if r["finished"]),
                "unfinished": sum(1 for r in rs if not r["finished"]),
                "response_time_mean": st.mean if st.n else None,
                "response_time_sd": st.sd if st.n else None,
                "response_time_ci95_lo": st.lo if st.n > 1 else None,
                "response_time_ci95_hi": st.hi if st.n > 1 else None,
            }
        )
        for c in MEAN_COLUMNS:
            row[f"{c}_mean"] = _mean(r.get(c) for r in rs)
        mx = present(r["snoop_max_cached"] for r in rs)
        row["snoop_max_cached"] = max(mx) if mx else None
        row["snoop_scope"] = rs[0]["snoop_scope"]
        table.append(row)
    return table


def keep_run(task, result, _dir) -> dict:
    """What the plots need from the plotted runs (called in the worker)."""
    decl = task.scenario["agents"]
    snoop = next((i for i, a in enumerate(decl) if a["kind"] == "snoop"), None)
    return {
        "labels": dict(task.labels),
        "series": result.timeseries(0),
        "segments": result.segments(0),
        "cache": agent_series(result, snoop) if snoop is not None else None,
        "mss": result.summary["scenario"]["flows"][0]["tcp"]["mss"],  # as the profile resolves it
        "response_time_s": result.flows[0].get("response_time_s"),
    }


def median_rto(k: dict) -> float | None:
    """Median of the sender's RTO over a kept run's transfer."""
    ts, end = k["series"], k["response_time_s"]
    if end is None or "rto_s" not in ts:
        return None
    return sample_median(ts, "rto_s", end)


def describe(row: dict) -> str:
    rt = row["response_time_s"]
    mac = "" if row.get("mac", "p2p") == "p2p" else f" {row['mac']}"
    return f"{row['scenario']}{mac} {row['arm']} drop {row['drop_rate']:g} seed {row['seed']}: " + (
        f"{rt:.2f} s" if rt is not None else "unfinished"
    )
