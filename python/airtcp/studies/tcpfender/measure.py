"""What the tcpfender study measures: the metrics of one run (goodput,
packets delivered, window, per-segment delay, MAC counters, stalls), what a
plotted run keeps, the progress line of a run, and the per-arm table
(mean and 95 % interval over seeds)."""

from __future__ import annotations

from ...metrics import delivery_steps, longest_stall
from ..reporting import summarize
from .metrics import segment_delays, time_mean
from .setup import DEFAULT_STACK, MSS


def _radio_sum(result, key: str) -> int:
    return sum(int(r.get("counters", {}).get(key, 0)) for r in result.summary.get("radios", []))


def _radio(result, node: str, key: str):
    for r in result.summary.get("radios", []):
        if r.get("node") == node:
            return r.get("counters", {}).get(key)
    return None


def measure(task, result) -> dict:
    f = result.flows[0]
    ts = result.timeseries(0)
    seg = result.segments(0)
    _, delays = segment_delays(seg, ts)
    return {
        "goodput_bps": f.get("goodput_bps"),
        "pkts_delivered": (f.get("bytes_delivered") or 0) / MSS,
        "timeouts": f.get("timeouts"),
        "retransmissions": f.get("retransmissions"),
        "fast_retransmits": f.get("fast_retransmits"),
        "cwnd_mean": time_mean(ts, "cwnd", 1.0),
        "delay_mean_s": float(delays.mean()) if len(delays) else None,
        "delay_max_s": float(delays.max()) if len(delays) else None,
        "src_data_tx": _radio(result, "S", "data_tx"),
        "src_retries": _radio(result, "S", "retries"),
        "mac_data_tx": _radio_sum(result, "data_tx"),
        "mac_broadcast_tx": _radio_sum(result, "broadcast_tx"),
        "mac_retry_drops": _radio_sum(result, "retry_drops"),
        "mac_queue_drops": _radio_sum(result, "queue_drops"),
        "delivery_steps": _steps(ts),
        "longest_stall_s": _longest_stall(ts),
        "run_wall_s": result.run_wall_s,
    }


def _longest_stall(ts) -> float | None:
    """Longest time (s) without new data at the receiving application,
    the start and the end of the run included."""
    return longest_stall(ts, 0.0)


def _steps(ts) -> str:
    """The distinct sizes (packets) of the jumps in delivered data between
    samples, most frequent first, e.g. "50" for TCPFender's whole batches."""
    return " ".join(str(k) for k, _ in delivery_steps(ts, MSS)[:3])


STATS = ["goodput_bps", "pkts_delivered", "cwnd_mean", "delay_mean_s", "timeouts", "retransmissions", "mac_data_tx", "mac_broadcast_tx", "mac_retry_drops", "mac_queue_drops", "longest_stall_s"]


def aggregate(runs: list[dict]) -> list[dict]:
    """One row per (part, stack, arm, β, pipeline, RTS/CTS, loss scale): mean and 95 % interval of each statistic."""
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault((r["part"], r["stack"], r["switch"], r["arm"], r["beta"], r["pipeline"], r["rts"], r["loss_scale"]), []).append(r)
    table = []
    for (part, stack, switch, arm, beta, pipe, rts, scale), rs in groups.items():
        row = {"part": part, "stack": stack, "switch": switch, "arm": arm, "beta": beta, "pipeline": pipe, "rts": rts, "loss_scale": scale, "n": len(rs)}
        for k in STATS:
            st = summarize([r.get(k) for r in rs])
            row[f"{k}_mean"] = st.mean
            row[f"{k}_lo"] = st.lo if st.n > 1 else None
            row[f"{k}_hi"] = st.hi if st.n > 1 else None
        table.append(row)
    return table


def keep_run(task, result, _dir=None) -> dict:
    ts = result.timeseries(0)
    return {
        "labels": dict(task.labels),
        "summary_mesh": result.summary.get("mesh", {}).get("coding") if task.labels["seed"] == 1 else None,
        "series": ts[["t_s", "cwnd", "bytes_delivered"]],
        "segments": result.segments(0) if task.labels["seed"] == 1 else None,
    }


def describe(row: dict) -> str:
    extra = {"sweep": f" β={row['beta']} depth={row['pipeline']}", "no-rts": " without RTS/CTS", "loss": f" loss x{row['loss_scale']:g}", "stack": f" on {row['stack']}", "switch": f" on {row['stack']} without {row['switch']}"}.get(row["part"], "")
    if row["part"] in ("sweep", "no-rts", "loss") and row["stack"] != DEFAULT_STACK:
        extra += f" on {row['stack']}"
    return f"{row['arm']}{extra} seed {row['seed']}: {row['goodput_bps'] / 1e3:.1f} kb/s"
