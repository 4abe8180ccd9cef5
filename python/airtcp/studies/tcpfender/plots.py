"""Plots of ``airtcp reproduce tcpfender``: the mesh (our Fig. 1), packets
delivered to TCP against time for every run (Fig. 2), the congestion window
of seed 1 of each arm (Fig. 3), per-segment delay against sequence number
(Figs. 4-5)."""

from __future__ import annotations

from pathlib import Path

from ..plotting import pyplot, save
from .metrics import delivered_packets, segment_delays
from .setup import ARMS, topology

COLORS = {"tcpip": "tab:blue", "tcpfender": "tab:red", "tcpfender-literal": "tab:purple", "more": "tab:green"}


def plot_all(d: Path, kept: list[dict]) -> list[Path]:
    plt = pyplot()
    out = [_topology(plt, d)]
    arms = [a for a in ARMS if any(k["labels"]["arm"] == a for k in kept)]
    # Fig. 2
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for k in kept:
        arm = k["labels"]["arm"]
        t, p = delivered_packets(k["series"])
        first = k["labels"]["seed"] == 1
        ax.plot(t, p, color=COLORS.get(arm, "k"), lw=0.8, alpha=0.8, label=arm if first else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets delivered to TCP")
    ax.set_title("Fig. 2: every run of every arm")
    ax.legend()
    out.append(save(plt, fig, d / "fig2_delivered.png"))
    # Fig. 3
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for k in kept:
        if k["labels"]["seed"] == 1:
            s = k["series"]
            ax.step(s["t_s"], s["cwnd"], where="post", color=COLORS.get(k["labels"]["arm"], "k"), lw=0.8, label=k["labels"]["arm"])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title("Fig. 3: congestion window at S, seed 1")
    ax.legend()
    out.append(save(plt, fig, d / "fig3_cwnd.png"))
    # Figs. 4-5
    for i, arm in enumerate(arms):
        k = next((k for k in kept if k["labels"]["arm"] == arm and k["segments"] is not None), None)
        if k is None:
            continue
        seq, delay = segment_delays(k["segments"], k["series"])
        if not len(seq):
            continue
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        ax.plot(seq, delay, ".", ms=2, color=COLORS.get(arm, "k"))
        ax.set_xlabel("TCP sequence number (packets)")
        ax.set_ylabel("delay (s)")
        ax.set_title(f"end-to-end delay per segment, {arm}, seed 1")
        out.append(save(plt, fig, d / f"fig45_delay_{arm}.png"))
    return out


def _topology(plt, d: Path) -> Path:
    pos, links = topology()
    fig, ax = plt.subplots(figsize=(6.4, 2.6))
    for a, b, p in links:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ax.plot([xa, xb], [ya, yb], color="grey", lw=1)
        ax.text((xa + xb) / 2, (ya + yb) / 2, f"{p:.0%}", fontsize=8, ha="center", va="center", backgroundcolor="white")
    for n, (x, y) in pos.items():
        ax.plot(x, y, "o", ms=14, color="tab:orange" if n in ("S", "D") else "lightsteelblue")
        ax.text(x, y, n, ha="center", va="center", fontsize=9)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title("the mesh: link loss rates (both directions)")
    ax.set_ylim(-50, 250)
    ax.invert_yaxis()
    return save(plt, fig, d / "fig1_topology.png")
