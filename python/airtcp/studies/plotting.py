"""Matplotlib set-up shared by the studies' plot modules: a headless
backend imported only when a study draws, and one way to write a figure."""

from pathlib import Path


def pyplot():
    """`matplotlib.pyplot` on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(plt, fig, path: Path) -> Path:
    """Lay out, write at 110 dpi and close `fig`; returns `path`."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
