"""PNG plots of a run's output directory (``airtcp plot DIR``).

Reads ``DIR/flow<i>.csv`` (time series) and ``DIR/flow<i>_segments.csv``
(transmitted data segments) with the csv module, and writes into
``DIR/plots``:

- ``flow<i>_cwnd.png``: cwnd and ssthresh (segments) vs time; an infinite
  ssthresh (before the first loss) is drawn clipped at the top of the axes;
- ``flow<i>_seq.png``: stream offset (sequence number relative to the
  first segment) of each transmitted segment vs time, retransmissions in red;
- ``flow<i>_throughput.png``: delivered-bytes throughput vs time, from the
  differences of ``bytes_delivered`` over fixed bins; in a run with 802.11
  radios (``summary.json`` lists ``radios``) each handoff of a station at
  either end of the flow is marked: a dashed vertical line where it starts
  (the ``wifi_scan_start`` or ``wifi_link_lost`` that led to a new
  association), a shaded span until ``wifi_associated``, and "old -> new AP"
  written above it;
- ``radio<i>_signal.png`` (802.11 runs, one per station radio ``i``): the
  beacon signal of the station's current AP vs time, one colour per AP,
  with each handoff marked as above, the scans that kept the AP
  (``wifi_stayed``) as grey ticks, and the station's roaming threshold.

The 802.11 parts read ``summary.json`` and ``events.jsonl``; a run without
radios gets exactly the three plots per flow above.

matplotlib (Agg backend, no display needed) is imported here only.
"""

from __future__ import annotations

import csv
import math
import os
import re

#: ssthresh at or above this is "infinite": Linux initialises it to
#: TCP_INFINITE_SSTHRESH = 0x7fffffff (include/net/tcp.h).
INFINITE_SSTHRESH = 0x7FFFFFFF

_SERIES_RE = re.compile(r"^flow(\d+)\.csv$")


class PlotError(Exception):
    """The directory does not hold what ``airtcp run`` writes."""


def _num(text: str) -> float:
    t = text.strip().lower()
    if t in ("true", "false"):
        return 1.0 if t == "true" else 0.0
    if t in ("", "none", "null", "nan"):
        return math.nan
    return float(t)


def read_csv(path: str) -> dict[str, list]:
    """Columns of a CSV file: numbers as floats, other text left as str."""
    with open(path, newline="") as f:
        rows = csv.reader(f)
        try:
            header = next(rows)
        except StopIteration:
            raise PlotError(f"{path}: empty file") from None
        cols: dict[str, list] = {h: [] for h in header}
        for lineno, row in enumerate(rows, start=2):
            if len(row) != len(header):
                raise PlotError(f"{path}:{lineno}: {len(row)} fields, header has {len(header)}")
            for h, v in zip(header, row):
                cols[h].append(v)
    for h, vals in cols.items():
        try:
            cols[h] = [_num(v) for v in vals]
        except ValueError:
            pass  # a text column such as ca_state
    return cols


def _need(cols: dict[str, list], names: list[str], path: str) -> None:
    missing = [n for n in names if n not in cols]
    if missing:
        raise PlotError(f"{path}: missing column(s) {', '.join(missing)}")


def unwrap_seq(seqs: list[float]) -> list[float]:
    """32-bit sequence numbers made monotone across wraps, relative to the first."""
    out, base, prev = [], 0, None
    for s in seqs:
        if prev is not None and s - prev < -(2**31):
            base += 2**32
        elif prev is not None and s - prev > 2**31:
            base -= 2**32
        prev = s
        out.append(s + base)
    first = out[0] if out else 0
    return [s - first for s in out]


def throughput(t: list[float], delivered: list[float], bins: int = 200):
    """(bin centres, bits per second) of a cumulative byte counter sampled at
    irregular times: the counter's value at each bin edge is its last sample
    at or before that edge."""
    if len(t) < 2 or t[-1] <= t[0]:
        return [], []
    t0, t1 = t[0], t[-1]
    width = (t1 - t0) / bins
    edges = [t0 + k * width for k in range(bins + 1)]
    at_edge, j = [], 0
    for e in edges:
        while j + 1 < len(t) and t[j + 1] <= e:
            j += 1
        at_edge.append(delivered[j])
    centres = [(edges[k] + edges[k + 1]) / 2 for k in range(bins)]
    rates = [(at_edge[k + 1] - at_edge[k]) * 8 / width for k in range(bins)]
    return centres, rates


def _flows(d: str) -> list[int]:
    try:
        names = os.listdir(d)
    except OSError as e:
        raise PlotError(f"{d}: {e.strerror}") from None
    ids = sorted(int(m.group(1)) for n in names if (m := _SERIES_RE.match(n)))
    if not ids:
        raise PlotError(f"{d}: no flow<i>.csv time series (is this an `airtcp run` output directory?)")
    return ids


def plot_dir(d: str) -> list[str]:
    """Draw every plot for every flow of output directory ``d``; returns the
    paths written."""
    flows = _flows(d)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = os.path.join(d, "plots")
    os.makedirs(out_dir, exist_ok=True)
    wifi = read_wifi(d)
    written = []
    for i in flows:
        series_path = os.path.join(d, f"flow{i}.csv")
        ts = read_csv(series_path)
        _need(ts, ["t_s", "cwnd", "ssthresh", "bytes_delivered"], series_path)
        seg_path = os.path.join(d, f"flow{i}_segments.csv")
        segs = read_csv(seg_path) if os.path.exists(seg_path) else None
        if segs is not None:
            _need(segs, ["t_s", "seq", "retransmission"], seg_path)
        written.append(_plot_cwnd(plt, ts, i, out_dir))
        written.append(_plot_seq(plt, segs, i, out_dir))
        marks = wifi.handoffs_of_flow(i) if wifi is not None else None
        written.append(_plot_throughput(plt, ts, i, out_dir, marks))
    if wifi is not None:
        for ri, radio in enumerate(wifi.radios):
            if radio.get("mode") == "station":
                written.append(_plot_signal(plt, wifi, ri, out_dir))
    return written


class WifiRun:
    """The 802.11 parts of an output directory: radios (summary.json), the
    declared radios, the flows' endpoints, and the ``wifi_*`` events."""

    def __init__(self, summary: dict, events: list[dict]):
        from ._api import handoff_rows, wifi_event_rows

        self.radios = list(summary.get("radios") or [])
        self.declared = list((summary.get("scenario") or {}).get("radios") or [])
        self.flows = list(summary.get("flows") or [])
        self.events = wifi_event_rows(events)
        self.handoffs = handoff_rows(events)

    def handoffs_of_flow(self, i: int) -> list[dict]:
        """Handoffs of the stations at either end of flow `i` (all of them
        when the summary does not say where the flow runs)."""
        if i >= len(self.flows) or not ("from" in self.flows[i] or "to" in self.flows[i]):
            return list(self.handoffs)
        ends = {self.flows[i].get("from"), self.flows[i].get("to")}
        return [h for h in self.handoffs if h["sta"] in ends]


def read_wifi(d: str) -> WifiRun | None:
    """The run's 802.11 parts, or None when it has no radios (or no
    summary.json)."""
    import json

    path = os.path.join(d, "summary.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        raise PlotError(f"{path}: {e}") from None
    if not summary.get("radios"):
        return None
    events = []
    ev_path = os.path.join(d, "events.jsonl")
    if os.path.exists(ev_path):
        with open(ev_path) as f:
            for lineno, line in enumerate(f, start=1):
                if line.strip():
                    try:
                        events.append(json.loads(line))
                    except ValueError:
                        raise PlotError(f"{ev_path}:{lineno}: not JSON") from None
    return WifiRun(summary, events)


def _mark_handoffs(ax, handoffs: list[dict], label: bool = True) -> None:
    """Dashed line at each handoff's start, shaded span to its association,
    "from -> to" above."""
    for k, h in enumerate(handoffs):
        t0, t1 = h["t0"], h["associated"]
        ax.axvline(t0, color="tab:purple", ls="--", lw=0.9, label="handoff start" if label and k == 0 else None)
        ax.axvspan(t0, max(t1, t0), color="tab:purple", alpha=0.2, lw=0,
                   label="until (re)associated" if label and k == 0 else None)
        ax.annotate(
            f"{h['from_ap'] or '?'} \u2192 {h['to_ap']}\n{(t1 - t0) * 1e3:.0f} ms",
            xy=(t0, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -3),
            textcoords="offset points",
            ha="left",
            va="top",
            fontsize=8,
            color="tab:purple",
        )


def _save(plt, fig, path: str) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _plot_cwnd(plt, ts: dict[str, list], i: int, out_dir: str) -> str:
    t, cwnd, ssth = ts["t_s"], ts["cwnd"], ts["ssthresh"]
    finite = [s for s in ssth if not math.isnan(s) and s < INFINITE_SSTHRESH]
    top = max([c for c in cwnd if not math.isnan(c)] + finite + [1.0]) * 1.15
    clipped = [top if (math.isnan(s) or s >= INFINITE_SSTHRESH) else s for s in ssth]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.plot(t, cwnd, drawstyle="steps-post", lw=1, label="cwnd")
    label = "ssthresh" + (" (infinite drawn at top)" if len(finite) < len(ssth) else "")
    ax.plot(t, clipped, drawstyle="steps-post", lw=1, ls="--", color="tab:orange", label=label)
    ax.set_ylim(0, top * 1.02)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segments")
    ax.set_title(f"flow {i}: congestion window")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    return _save(plt, fig, os.path.join(out_dir, f"flow{i}_cwnd.png"))


def _plot_seq(plt, segs, i: int, out_dir: str) -> str:
    fig, ax = plt.subplots(figsize=(9, 4.5))
    unit = "bytes"
    if segs is not None and segs["t_s"]:
        t, seq = segs["t_s"], unwrap_seq(segs["seq"])
        top = max(seq) if seq else 0
        unit, scale = next((u, k) for u, k in (("MB", 1e6), ("kB", 1e3), ("bytes", 1)) if top >= k or k == 1)
        seq = [x / scale for x in seq]
        rtx = [r == 1.0 for r in segs["retransmission"]]
        new = [(a, b) for a, b, r in zip(t, seq, rtx) if not r]
        old = [(a, b) for a, b, r in zip(t, seq, rtx) if r]
        if new:
            ax.scatter(*zip(*new), s=2, color="black", marker=".", lw=0, label="sent")
        if old:
            ax.scatter(*zip(*old), s=12, color="red", marker="x", lw=1, label=f"retransmitted ({len(old)})")
        ax.legend(loc="upper left", markerscale=3)
    else:
        ax.text(0.5, 0.5, "no data segments", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"stream offset ({unit})")
    ax.set_title(f"flow {i}: sequence number")
    ax.grid(alpha=0.3)
    return _save(plt, fig, os.path.join(out_dir, f"flow{i}_seq.png"))


def _plot_throughput(plt, ts: dict[str, list], i: int, out_dir: str, handoffs: list[dict] | None = None) -> str:
    centres, rates = throughput(ts["t_s"], ts["bytes_delivered"])
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if centres:
        ax.plot(centres, [r / 1e6 for r in rates], drawstyle="steps-mid", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title(f"flow {i}: delivered throughput" + (f", {len(handoffs)} handoff(s)" if handoffs else ""))
    ax.set_ylim(bottom=0)
    if handoffs:
        top = ax.get_ylim()[1]
        ax.set_ylim(0, top * 1.15)  # room for the AP names
        _mark_handoffs(ax, handoffs)
        ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    return _save(plt, fig, os.path.join(out_dir, f"flow{i}_throughput.png"))


_AP_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:brown", "tab:pink", "tab:olive", "tab:cyan"]


def _plot_signal(plt, wifi: WifiRun, ri: int, out_dir: str) -> str:
    from ._api import _ap_at, _assoc_timeline

    radio = wifi.radios[ri]
    node = radio.get("node")
    declared = wifi.declared[ri] if ri < len(wifi.declared) else {}
    sig = radio.get("signal") or {}
    t, dbm = list(sig.get("t_s", [])), list(sig.get("dbm", []))
    aps = _ap_at(t, *_assoc_timeline(wifi.events, radio, declared))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if t:
        order = list(dict.fromkeys(aps))
        for k, ap in enumerate(order):
            pts = [(a, b) for a, b, c in zip(t, dbm, aps) if c == ap]
            ax.scatter(*zip(*pts), s=6, lw=0, color=_AP_COLORS[k % len(_AP_COLORS)], label=f"{ap or 'no AP'}")
    else:
        ax.text(0.5, 0.5, "no beacon samples", ha="center", va="center", transform=ax.transAxes)
    thr = declared.get("roam_threshold_dbm")
    if isinstance(thr, (int, float)):
        ax.axhline(thr, color="gray", ls=":", lw=1, label=f"roam threshold ({thr:g} dBm)")
    stayed = [e["t_s"] for e in wifi.events if e["kind"] == "wifi_stayed" and e["sta"] == node]
    if stayed:
        ax.plot(stayed, [0.02] * len(stayed), "|", ms=10, color="gray",
                transform=ax.get_xaxis_transform(), label=f"scan, stayed ({len(stayed)})")
    hs = [h for h in wifi.handoffs if h["sta"] == node]
    if t:
        lo, hi = min(dbm), max(dbm)
        ax.set_ylim(lo - 3, hi + 0.25 * (hi - lo) + 6)  # room for the AP names
    _mark_handoffs(ax, hs)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("beacon signal of the current AP (dBm)")
    ax.set_title(f"radio {ri} ({node}): signal, {len(hs)} handoff(s)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, markerscale=2)
    ax.grid(alpha=0.3)
    return _save(plt, fig, os.path.join(out_dir, f"radio{ri}_signal.png"))
