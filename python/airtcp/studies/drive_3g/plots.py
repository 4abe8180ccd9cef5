"""The seed's two plots for one run of the drive-test study (matplotlib with
the Agg backend is imported here only):

- ``<stem>_cwnd.png``: cwnd and ssthresh (segments) vs time; on a second
  axis the radio link's signal (dBm, a step line from the drive log) and a
  dashed vertical line at each handoff;
- ``<stem>_seq.png``: stream offset (MB) of every transmitted data segment
  vs time, retransmissions in red, handoffs marked the same way.
"""

from __future__ import annotations

import threading
from pathlib import Path

#: pyplot keeps global state: one figure at a time when runs use threads.
_LOCK = threading.Lock()

INFINITE_SSTHRESH = 0x7FFFFFFF
#: Cap on drawn first transmissions; a 600 s run sends ~10^5-10^6 segments.
MAX_POINTS = 20_000


def _handoffs(trace: dict) -> list[float]:
    return [h["t_s"] for h in trace.get("handoff_times", [])]


def plot_run(result, out_dir: Path, stem: str, title: str) -> list[Path]:
    with _LOCK:
        return _plot_run(result, out_dir, stem, title)


def _plot_run(result, out_dir: Path, stem: str, title: str) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    link = result.summary["links"][1]
    trace = link["trace_ab"] if "trace_ab" in link else link["trace_ba"]
    sig = trace["series"]
    hand = _handoffs(trace)
    end = result.summary["run"]["sim_duration_s"]
    written = []

    ts = result.timeseries(0)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.plot(ts["t_s"], ts["cwnd"], lw=0.8, color="tab:blue", label="cwnd")
    ss = ts["ssthresh"].where(ts["ssthresh"] < INFINITE_SSTHRESH)
    ax.plot(ts["t_s"], ss, lw=0.8, color="tab:orange", label="ssthresh")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segments")
    ax.set_xlim(0, end)
    ax2 = ax.twinx()
    ax2.step(sig["t_s"] + [end], sig["signal_dbm"] + sig["signal_dbm"][-1:], where="post", lw=0.8, color="tab:green", alpha=0.7, label="signal (dBm)")
    for i, t in enumerate(hand):
        ax2.axvline(t, color="tab:red", ls="--", lw=0.7, alpha=0.8, label="handoff" if i == 0 else None)
    ax2.set_ylabel("signal strength (dBm)")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper right", fontsize=8)
    ax.set_title(f"{title}: cwnd, ssthresh, signal and handoffs")
    fig.tight_layout()
    p = out_dir / f"{stem}_cwnd.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(p)

    seg = result.segments(0)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    first = seg[~seg["retransmission"]]
    if len(first) > MAX_POINTS:
        first = first.iloc[:: len(first) // MAX_POINTS + 1]
    rtx = seg[seg["retransmission"]]
    ax.plot(first["t_s"], first["seq"] / 1e6, ",", color="tab:blue", label="sent", rasterized=True)
    ax.plot(rtx["t_s"], rtx["seq"] / 1e6, ".", ms=2, color="tab:red", label="retransmitted", rasterized=True)
    for i, t in enumerate(hand):
        ax.axvline(t, color="tab:gray", ls="--", lw=0.6, label="handoff" if i == 0 else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence number (MB of stream)")
    ax.set_xlim(0, end)
    ax.legend(loc="upper left", fontsize=8, markerscale=6)
    ax.set_title(f"{title}: sequence number vs time")
    fig.tight_layout()
    p = out_dir / f"{stem}_seq.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    written.append(p)
    return written
