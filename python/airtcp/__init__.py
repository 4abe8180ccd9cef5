"""airtcp: a deterministic packet-level simulator for TCP over wireless and
mobile links.

    >>> import airtcp
    >>> r = airtcp.run("scenarios/bulk-lossy.toml", seed=1,
    ...                overrides={"sim.duration": "5s"})
    >>> r.summary["flows"][0]["goodput_bps"]
    >>> r.timeseries(0)          # pandas DataFrame
    >>> airtcp.validate("scenarios/bulk-lossy.toml")   # parsed and built, not run
    >>> df = airtcp.sweep("scenarios/bulk-lossy.toml",
    ...                   {"flows.0.tcp.cc": ["reno", "cubic"]}, seeds=5, out="out/sw")

Importing this package loads no compiled code and no pandas/numpy: the
simulator is loaded by the first ``run`` and pandas by the first DataFrame.
"""

__version__ = "0.1.0"

from ._errors import AnalyzeError, ScenarioError, SimError
from ._api import Result, run, validate


def analyze(path, **kwargs):
    """TCP analysis of a pcap/pcapng capture or of a run directory's
    captures (see :func:`airtcp.capture_analysis.analyze` and docs/analyze.md)."""
    from .capture_analysis import analyze as _analyze

    return _analyze(path, **kwargs)


def sweep(scenario, grid=None, *, out, **kwargs):
    """Run `scenario` over the cartesian product of `grid` and the seeds, on
    a local Dask cluster (default), a thread pool or an existing Dask
    scheduler, and return the runs as a pandas DataFrame; resumable (runs
    already in `out` are skipped). See :func:`airtcp.runner.sweep.sweep`."""
    from .runner.sweep import sweep as _sweep

    return _sweep(scenario, grid, out=out, **kwargs)


__all__ = ["run", "validate", "sweep", "analyze", "Result", "ScenarioError", "SimError", "AnalyzeError", "__version__"]
