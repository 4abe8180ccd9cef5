"""Plots of the snoop study (matplotlib, Agg backend, imported here only):

- ``<scenario>_response_time.png``: response time vs drop rate on a log
  axis, one line per arm (one panel per mobile), 95 % intervals as error bars;
- ``s1_drop<r>_seed1_cwnd.png`` / ``_seq.png``: cwnd and ssthresh, and the
  sequence number of every data segment sent (retransmissions in red), over
  time for the plotted runs (scenario 1, seed 1, drop rate 0.3), TCP beside
  Snoop;
- ``s1_drop<r>_seed1_snoop_cache.png``: segments in Snoop's cache over time
  in the Snoop run.

With ``--mac 80211`` or ``both`` the same plots of the 802.11 DCF variant
carry ``_80211`` after the scenario (``s1_80211_response_time.png``,
``s1_80211_drop0.3_seed1_cwnd.png``, ...), and with ``both``
``<scenario>_mac_response_time.png`` draws each arm on both variants
(point-to-point solid, 802.11 dashed).
"""

from __future__ import annotations

from pathlib import Path

from ...plot import INFINITE_SSTHRESH, unwrap_seq
from ..reporting import is_missing
from .setup import ARMS, SEED_RCV_BUF, SETUPS
from ..plotting import pyplot as _plt, save as _save

COLORS = {
    "tcp": "tab:red",
    "snoop": "tab:blue",
    "snoop-adaptive": "tab:cyan",
    "sack": "tab:orange",
    "itcp": "tab:green",
    "tcp-allpkts": "tab:pink",
    "snoop-allpkts": "tab:purple",
    "tcp-attempts3": "tab:brown",
    "tcp-attempts8": "tab:olive",
    "tcp-seed-table": "tab:gray",
}
#: Arms that can coincide (tcp and itcp in s1) stay visible: distinct markers and dashes.
STYLES = {
    "tcp": ("o", "-"),
    "snoop": ("s", "-"),
    "snoop-adaptive": ("^", "--"),
    "sack": ("D", "-."),
    "itcp": ("v", ":"),
    "tcp-allpkts": ("o", ":"),
    "snoop-allpkts": ("s", ":"),
    "tcp-attempts3": ("x", "--"),
    "tcp-attempts8": ("+", "--"),
}




def _tag(mac: str) -> str:
    return "" if mac == "p2p" else f"_{mac}"


def plot_response(plt, table: list[dict], sid: str, out: Path, mac: str = "p2p") -> Path | None:
    rows = [r for r in table if r["scenario"] == sid and r.get("mac", "p2p") == mac]
    if not rows:
        return None
    mobiles = list(SETUPS[sid].mobiles)
    means = [r["response_time_mean"] for r in rows if not is_missing(r["response_time_mean"])]
    # A t interval of few seeds can reach below 0: clip the lower bars on the log axis.
    floor = min(means) / 2 if means else 1e-3
    fig, axes = plt.subplots(1, len(mobiles), figsize=(6.5 * len(mobiles), 4.6), squeeze=False, sharey=True)
    for ax, m in zip(axes[0], mobiles):
        for arm in ARMS:
            rs = sorted((r for r in rows if r["arm"] == arm and r["mobile"] == m), key=lambda r: r["drop_rate"])
            rs = [r for r in rs if not is_missing(r["response_time_mean"])]
            if not rs:
                continue
            x = [r["drop_rate"] * 100 for r in rs]
            y = [r["response_time_mean"] for r in rs]
            lo = [
                y_ - max(floor, r["response_time_ci95_lo"]) if not is_missing(r["response_time_ci95_lo"]) else 0
                for y_, r in zip(y, rs)
            ]
            hi = [
                r["response_time_ci95_hi"] - y_ if not is_missing(r["response_time_ci95_hi"]) else 0
                for y_, r in zip(y, rs)
            ]
            unf = sum(r["unfinished"] for r in rs)
            label = arm + (f" ({unf} unfinished)" if unf else "")
            mk, ls = STYLES.get(arm, ("o", "-"))
            ax.errorbar(
                x, y, yerr=[lo, hi], marker=mk, ms=4, ls=ls, lw=1.3, capsize=3, color=COLORS.get(arm), label=label
            )
        ax.set_yscale("log")
        ax.set_xlabel("PEG drop rate (%)")
        ax.set_title(f"{sid}: {m} ({SETUPS[sid].direction})")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("response time (s), mean and 95 % CI\n(lower bars clipped at the axis)")
    fig.suptitle(SETUPS[sid].title + ("" if mac == "p2p" else " (802.11b DCF MAC)"), fontsize=10)
    return _save(plt, fig, out / f"{sid}{_tag(mac)}_response_time.png")


def plot_mac_response(plt, table: list[dict], sid: str, out: Path, macs: list[str]) -> Path | None:
    """Mean response time vs drop rate per arm, one line style per MAC."""
    rows = [r for r in table if r["scenario"] == sid and not is_missing(r["response_time_mean"])]
    if not rows:
        return None
    mobiles = list(SETUPS[sid].mobiles)
    fig, axes = plt.subplots(1, len(mobiles), figsize=(6.5 * len(mobiles), 4.6), squeeze=False, sharey=True)
    dash = {"p2p": "-", "80211": "--"}
    name = {"p2p": "p2p", "80211": "802.11"}
    for ax, m in zip(axes[0], mobiles):
        for arm in ARMS:
            for mac in macs:
                rs = sorted(
                    (r for r in rows if r["arm"] == arm and r["mobile"] == m and r.get("mac", "p2p") == mac),
                    key=lambda r: r["drop_rate"],
                )
                if not rs:
                    continue
                mk, _ = STYLES.get(arm, ("o", "-"))
                ax.plot(
                    [r["drop_rate"] * 100 for r in rs],
                    [r["response_time_mean"] for r in rs],
                    marker=mk,
                    ms=4,
                    ls=dash.get(mac, ":"),
                    lw=1.3,
                    color=COLORS.get(arm),
                    mfc="white" if mac != "p2p" else None,
                    label=f"{arm} {name.get(mac, mac)}",
                )
        ax.set_yscale("log")
        ax.set_xlabel("PEG drop rate (%)")
        ax.set_title(f"{sid}: {m} ({SETUPS[sid].direction})")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, ncol=2)
    axes[0][0].set_ylabel("response time (s), mean over seeds")
    fig.suptitle(f"{SETUPS[sid].title}: point-to-point airtime link (solid) vs 802.11b DCF (dashed)", fontsize=10)
    return _save(plt, fig, out / f"{sid}_mac_response_time.png")


def _end(k: dict) -> float | None:
    """Where the time axis of a plotted run ends: just after its transfer
    (the series go on being sampled until the run's cap)."""
    rt = k.get("response_time_s")
    if rt is None and len(k["segments"]):
        rt = float(k["segments"]["t_s"].max())
    return None if rt is None else rt * 1.03 + 0.05


def _stem(kept: list[dict]) -> str:
    lab = kept[0]["labels"]
    return f"{lab['scenario']}{_tag(lab.get('mac', 'p2p'))}_drop{lab['drop_rate']:g}_seed{lab['seed']}"


def plot_cwnd(plt, kept: list[dict], out: Path) -> Path:
    fig, axes = plt.subplots(1, len(kept), figsize=(6.5 * len(kept), 4.3), squeeze=False)
    for ax, k in zip(axes[0], kept):
        ts = k["series"]
        end = _end(k)
        if end is not None:
            ts = ts[ts["t_s"] <= end]
        ax.plot(ts["t_s"], ts["cwnd"], drawstyle="steps-post", lw=1, label="cwnd")
        ss = ts["ssthresh"].where(ts["ssthresh"] < INFINITE_SSTHRESH)
        ax.plot(ts["t_s"], ss, drawstyle="steps-post", lw=1, ls="--", color="tab:orange", label="ssthresh")
        ax.axhline(SEED_RCV_BUF / k["mss"], color="gray", lw=0.8, ls=":", label="receive window (8760 B)")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("segments")
        ax.set_title(f"{k['labels']['arm']}: congestion window")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return _save(plt, fig, out / f"{_stem(kept)}_cwnd.png")


def plot_seq(plt, kept: list[dict], out: Path) -> Path:
    fig, axes = plt.subplots(1, len(kept), figsize=(6.5 * len(kept), 4.3), squeeze=False)
    for ax, k in zip(axes[0], kept):
        seg = k["segments"]
        if len(seg):
            off = unwrap_seq([float(s) for s in seg["seq"]])
            rtx = [bool(x) for x in seg["retransmission"]]
            t = list(seg["t_s"])
            new = [(a, b / 1e3) for a, b, r in zip(t, off, rtx) if not r]
            old = [(a, b / 1e3) for a, b, r in zip(t, off, rtx) if r]
            if new:
                ax.scatter(*zip(*new), s=6, color="black", marker=".", lw=0, label="sent")
            if old:
                ax.scatter(*zip(*old), s=16, color="red", marker="x", lw=1, label=f"retransmitted ({len(old)})")
            ax.legend(fontsize=8, loc="upper left")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number (kB of stream)")
        ax.set_title(f"{k['labels']['arm']}: sequence number")
        ax.grid(alpha=0.3)
    return _save(plt, fig, out / f"{_stem(kept)}_seq.png")


def plot_cache(plt, k: dict, out: Path) -> Path:
    t, v = k["cache"]
    end = _end(k)
    if end is not None:
        v = [y for x, y in zip(t, v) if x <= end]
        t = [x for x in t if x <= end]
    fig, ax = plt.subplots(figsize=(8, 3.8))
    if t:
        ax.plot(t, v, drawstyle="steps-post", lw=1, color="tab:blue")
        ax.set_ylim(0, max(max(v) + 1, 1))
    else:
        ax.text(0.5, 0.5, "no cache samples", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("segments in Snoop's cache")
    ax.set_title(f"snoop: cache occupancy ({_stem([k])})")
    ax.grid(alpha=0.3)
    return _save(plt, fig, out / f"{_stem([k])}_snoop_cache.png")


def plot_all(out: Path, table: list[dict], kept: list[dict], macs=("p2p",)) -> list[Path]:
    """Every plot; returns the files written."""
    plt = _plt()
    written = []
    for mac in macs:
        for sid in SETUPS:
            p = plot_response(plt, table, sid, out, mac)
            if p is not None:
                written.append(p)
    if len(macs) > 1:
        for sid in SETUPS:
            p = plot_mac_response(plt, table, sid, out, list(macs))
            if p is not None:
                written.append(p)
    for mac in macs:
        mine = [k for k in kept if k["labels"].get("mac", "p2p") == mac]
        mine = sorted(mine, key=lambda k: ARMS.index(k["labels"]["arm"]))
        if mine:
            written.append(plot_cwnd(plt, mine, out))
            written.append(plot_seq(plt, mine, out))
            for k in mine:
                if k["cache"] is not None:
                    written.append(plot_cache(plt, k, out))
    return written
