"""Plots of the wi-tcp study (matplotlib, Agg backend, imported here only):

- ``fig12_throughput_vs_delay.png``: goodput against the home agent -
  foreign agent delay, one line per (arm, variant), 95 % intervals;
- ``seq_<variant>.png``: the sequence number of every data segment sent
  (retransmissions in red) for every arm, seed 1, with the handoffs,
  Wi-TCP's EHO/EHC and the EHN marked (the seed's Figs. 6-10);
- ``seq_fafa_<variant>.png``: the same around the FA->FA handoff;
- ``cwnd_<variant>.png``: cwnd around the handoffs (the seed's Fig. 11).

Over 802.11 at 2 Mb/s the names are as above; the p2p link's plots carry
``_p2p`` and the 1 Mb/s runs' ``_1mbps`` before ``.png``.
"""

from __future__ import annotations

from pathlib import Path

from ...plot import unwrap_seq
from ..reporting import is_missing
from .setup import ARM_LABELS as LABELS, LINK_LABELS, MODES, MSS, handoffs
from ..plotting import pyplot as _plt, save as _save

COLORS = {"mip": "tab:red", "romip": "tab:orange", "witcp": "tab:blue", "ehn": "tab:green", "freeze": "tab:purple"}
DASH = {"tahoe": ":", "reno": "--", "newreno": "-"}


def _suffix(link: str, rate=2) -> str:
    return ("" if link == "wlan" else f"_{link}") + ("" if rate == 2 else f"_{rate:g}mbps")


def _marks(ax, events, schedule="seed"):
    for t, _, _ in handoffs(schedule):
        ax.axvline(t, color="0.6", lw=0.8, ls="--")
    for e in events or []:
        if e["kind"] == "witcp_eho":
            ax.axvline(e["t_s"], color="tab:purple", lw=0.6, ls=":")
        elif e["kind"] == "witcp_ehc":
            ax.axvline(e["t_s"], color="tab:green", lw=0.6, ls=":")
        elif e["kind"] == "handover_notified":
            ax.axvline(e["t_s"], color="tab:olive", lw=0.6, ls="-.")


def plot_fig12(out: Path, table: list[dict], link: str, rate=2) -> Path:
    table = [r for r in table if r["link"] == link and r["rate_mbps"] == rate]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for mode in MODES:
        for variant in sorted({r["variant"] for r in table}):
            rows = sorted((r for r in table if r["mode"] == mode and r["variant"] == variant), key=lambda r: r["hafa_ms"])
            if not rows:
                continue
            x = [r["hafa_ms"] for r in rows]
            y = [r["goodput_mean_bps"] / 1e6 for r in rows]
            err = [0 if is_missing(r["goodput_ci95_lo"]) else (r["goodput_mean_bps"] - r["goodput_ci95_lo"]) / 1e6 for r in rows]
            ax.errorbar(x, y, yerr=err, color=COLORS[mode], ls=DASH.get(variant, "-"), marker="o", capsize=3, label=f"{LABELS[mode]}, {variant}")
    ax.set_xlabel("home agent - foreign agent delay (ms)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title(f"Throughput vs HA-FA delay (seed 001 Fig. 12), {LINK_LABELS[link]} {rate:g} Mb/s")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
    return _save(plt, fig, out / f"fig12_throughput_vs_delay{_suffix(link, rate)}.png")


def _runs(kept, variant, link, rate):
    return [k for k in kept if k["labels"]["variant"] == variant and k["labels"]["link"] == link and k["labels"].get("rate_mbps", 2) == rate]


def plot_seq(out: Path, kept: list, variant: str, link: str, window=None, name="seq", rate=2) -> Path | None:
    runs = _runs(kept, variant, link, rate)
    if not runs:
        return None
    plt = _plt()
    fig, axes = plt.subplots(len(runs), 1, figsize=(7.5, 2.6 * len(runs)), sharex=True, squeeze=False)
    for ax, k in zip(axes[:, 0], sorted(runs, key=lambda k: MODES.index(k["labels"]["mode"]))):
        seg = k["segments"]
        if len(seg):
            import numpy as np

            t = np.asarray(seg["t_s"], dtype=float)
            pk = np.asarray(unwrap_seq(list(seg["seq"])), dtype=float) / MSS
            rx = np.asarray(seg["retransmission"], dtype=bool)
            sel = (t >= window[0]) & (t <= window[1]) if window else np.ones(len(t), dtype=bool)
            ax.plot(t[sel & ~rx], pk[sel & ~rx], ".", ms=1, color=COLORS[k["labels"]["mode"]])
            ax.plot(t[sel & rx], pk[sel & rx], "x", ms=3, color="red", label="retransmission")
        _marks(ax, k["events"], k["labels"].get("schedule", "seed"))
        ax.set_ylabel("packet")
        ax.set_title(f"{LABELS[k['labels']['mode']]} ({variant}, {LINK_LABELS[link]}, seed 1)", fontsize=9)
        if window:
            ax.set_xlim(*window)
    axes[-1, 0].set_xlabel("time (s)  [grey: moves; purple: EHO-ACK; green: EHC-ACK; olive: EHN obeyed]")
    return _save(plt, fig, out / f"{name}_{variant}{_suffix(link, rate)}.png")


def cwnd_lines(kept: list, variant: str, link: str, rate=2) -> list[tuple]:
    """What the cwnd plot draws: `(mode, t_s, cwnd)` per run. The flow
    series counts cwnd in packets (segments), as the plot's axis does."""
    runs = _runs(kept, variant, link, rate)
    return [(k["labels"]["mode"], list(k["series"]["t_s"]), list(k["series"]["cwnd"])) for k in sorted(runs, key=lambda k: MODES.index(k["labels"]["mode"]))]


def plot_cwnd(out: Path, kept: list, variant: str, link: str, rate=2) -> Path | None:
    lines = cwnd_lines(kept, variant, link, rate)
    if not lines:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for mode, t, cwnd in lines:
        ax.plot(t, cwnd, color=COLORS[mode], lw=0.9, label=LABELS[mode])
    _marks(ax, None, _runs(kept, variant, link, rate)[0]["labels"].get("schedule", "seed"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"cwnd during handovers ({variant}, {LINK_LABELS[link]} {rate:g} Mb/s, seed 1; seed 001 Fig. 11)", fontsize=9)
    ax.legend(fontsize=7)
    return _save(plt, fig, out / f"cwnd_{variant}{_suffix(link, rate)}.png")


def plot_all(out: Path, table: list[dict], kept: list) -> list[Path]:
    """The seed's figures, on the seed's stack (runs are kept for it only)."""
    table = [r for r in table if r.get("stack", "ns2") == "ns2"]
    paths = []
    for rate in sorted({r["rate_mbps"] for r in table}):
        for link in sorted({r["link"] for r in table}, key=lambda k: k != "wlan"):
            paths.append(plot_fig12(out, table, link, rate))
            for variant in sorted({k["labels"]["variant"] for k in kept if k["labels"]["link"] == link}):
                for p in (
                    plot_seq(out, kept, variant, link, rate=rate),
                    plot_seq(out, kept, variant, link, window=(40.0, 48.0), name="seq_fafa", rate=rate),
                    plot_cwnd(out, kept, variant, link, rate),
                ):
                    if p is not None:
                        paths.append(p)
    return paths
