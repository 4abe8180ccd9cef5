"""airtcp: a deterministic packet-level simulator for TCP over wireless and
mobile links.

    >>> import airtcp
    >>> r = airtcp.run("scenarios/bulk-lossy.toml", seed=1,
    ...                overrides={"sim.duration": "5s"})
    >>> r.summary["flows"][0]["goodput_bps"]
    >>> r.timeseries(0)          # pandas DataFrame

Importing this package loads no compiled code and no pandas/numpy: the
simulator is loaded by the first ``run`` and pandas by the first DataFrame.
"""

__version__ = "0.1.0"

from ._errors import ScenarioError, SimError
from ._api import Result, run

__all__ = ["run", "Result", "ScenarioError", "SimError", "__version__"]
