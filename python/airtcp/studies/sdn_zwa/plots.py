"""Plots of ``airtcp reproduce sdn-zwa``: Fig. 6 (sender sequence traces),
Fig. 7 (utilisation and retransmissions vs disconnection), Fig. 8 (idle
period after reassociation vs disconnection per hop count)."""

from __future__ import annotations

from pathlib import Path

from .setup import ARM_COLORS, ARM_LABELS, SEED_STACK

#: Line style per TCP stack: one colour per arm, the stack in the dash.
STACK_STYLES = {SEED_STACK: "-", "linux": "--", "linux-4.4-rto1s": ":"}


def plot_all(d: Path, table: list[dict], kept: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    d.mkdir(parents=True, exist_ok=True)
    # Fig. 6
    fig, axes = plt.subplots(1, len(kept), figsize=(4.2 * max(1, len(kept)), 3.6), sharey=False, squeeze=False)
    for ax, k in zip(axes[0], kept):
        if k["t_s"]:
            s0 = min(k["seq"])
            # The arm's colour; retransmissions hollow.
            col = ARM_COLORS[k.get("arm", "bare")]
            new = [i for i, r in enumerate(k["retx"]) if not r]
            old = [i for i, r in enumerate(k["retx"]) if r]
            ax.scatter([k["t_s"][i] for i in new], [(k["seq"][i] - s0) / 1e3 for i in new], s=2, color=col, label="new data")
            ax.scatter([k["t_s"][i] for i in old], [(k["seq"][i] - s0) / 1e3 for i in old], s=8, facecolors="none", edgecolors=col, label="retransmission")
        for t, name in ((k["t0"], "T0"), (k["t3"], "T3")):
            if t is not None:
                ax.axvline(t, color="grey", ls="--", lw=0.8)
                ax.text(t, ax.get_ylim()[1] * 0.95, name, fontsize=8)
        ax.set_title(k["label"], fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence (kB, relative)")
        if k["t0"] is not None:
            ax.set_xlim(k["t0"] - 3, k["t0"] + 10)
    fig.tight_layout()
    fig.savefig(d / "fig6_sequence.png", dpi=120)
    plt.close(fig)

    def series(fig_id, arm, hops, key, stack=SEED_STACK):
        rows = sorted((r for r in table if r.get("stack", SEED_STACK) == stack and r["fig"] == fig_id and r["arm"] == arm and r["hops"] == hops), key=lambda r: r["disconnect_s"])
        return [r["disconnect_s"] for r in rows], [r[f"{key}_mean"] for r in rows], [r[f"{key}_lo"] for r in rows], [r[f"{key}_hi"] for r in rows]

    def errbar(ax, xs, m, lo, hi, arm, stack=SEED_STACK):
        import math

        def gone(v):
            return v is None or math.isnan(v)

        pts = [(x, y, a, b) for x, y, a, b in zip(xs, m, lo, hi) if not gone(y)]
        if not pts:
            return
        xs, m, lo, hi = (list(c) for c in zip(*pts))
        yerr = [[0 if gone(a) else y - a for y, a in zip(m, lo)], [0 if gone(b) else b - y for y, b in zip(m, hi)]]
        label = ARM_LABELS[arm] + ("" if stack == SEED_STACK else f" [{stack}]")
        ax.errorbar(xs, m, yerr=yerr, marker="o" if stack == SEED_STACK else "x", capsize=3, label=label, color=ARM_COLORS[arm], ls=STACK_STYLES.get(stack, "-."))

    # Fig. 7
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for arm in ("bare", "zwa", "zwa-nostats", "freeze", "legacy", "mtcp"):
        for ax, key in zip(axes, ("utilisation", "retransmissions")):
            xs, m, lo, hi = series("7", arm, 2, key)
            if xs:
                errbar(ax, xs, m, lo, hi, arm)
    # The sensitivity arm (today's kernel), bare and ZWA, dashed.
    for arm in ("bare", "zwa"):
        for ax, key in zip(axes, ("utilisation", "retransmissions")):
            xs, m, lo, hi = series("7", arm, 2, key, "linux")
            if xs:
                errbar(ax, xs, m, lo, hi, arm, "linux")
    axes[0].set_ylabel("utilisation (delivered / no-roam run)")
    axes[1].set_ylabel("retransmissions per run")
    for ax in axes:
        ax.set_xlabel("disconnection period (s)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(d / "fig7_utilisation_retransmissions.png", dpi=120)
    plt.close(fig)

    # Fig. 8
    hops = sorted({r["hops"] for r in table if r["fig"] == "8"})
    fig, axes = plt.subplots(1, max(1, len(hops)), figsize=(4 * max(1, len(hops)), 3.6), squeeze=False)
    for ax, h in zip(axes[0], hops):
        for arm in ("bare", "zwa", "freeze", "legacy", "mtcp"):
            xs, m, lo, hi = series("8", arm, h, "idle_s")
            if xs:
                errbar(ax, xs, m, lo, hi, arm)
        for arm in ("bare", "zwa"):
            xs, m, lo, hi = series("8", arm, h, "idle_s", "linux")
            if xs:
                errbar(ax, xs, m, lo, hi, arm, "linux")
        ax.set_title(f"hop count {h}", fontsize=9)
        ax.set_xlabel("disconnection period (s)")
        ax.set_ylabel("first new delivery after T3 (s)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(d / "fig8_idle.png", dpi=120)
    plt.close(fig)
