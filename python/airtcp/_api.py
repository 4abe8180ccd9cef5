"""``airtcp.run`` and its ``Result``.

Nothing heavy is imported here: the native module is loaded on the first
``run``, pandas only when a DataFrame is asked for, so ``import airtcp`` and
``airtcp run`` stay fast.
"""

from __future__ import annotations

import os

from ._errors import ScenarioError

# No `typing` import (it costs more than the rest of the package): the
# annotations below are never evaluated.


def _override_value(v: object) -> str:
    """Render a Python value as the text a ``--set path=value`` would carry."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _overrides_list(overrides: dict | list[str] | None) -> list[tuple[str, str]]:
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return [(str(k), _override_value(v)) for k, v in overrides.items()]
    if isinstance(overrides, str):
        overrides = [overrides]
    pairs = []
    for item in overrides:
        path, sep, value = str(item).partition("=")
        if not sep or not path.strip():
            raise ScenarioError(f"<override>: {item}: expected path=value")
        pairs.append((path.strip(), value.strip()))
    return pairs


def run(
    scenario: str | os.PathLike | dict,
    seed: int | None = None,
    overrides: dict | list[str] | None = None,
    out: str | os.PathLike | None = None,
    pcap: bool = False,
    progress: bool = False,
) -> "Result":
    """Run one simulation and return its :class:`Result`.

    ``scenario`` is a path to a TOML (or ``.json``) scenario file, or a dict
    with the same structure (sent to the simulator as JSON). ``seed``
    replaces the scenario's seed. ``overrides`` is a dict
    ``{"flows.0.tcp.cc": "reno"}`` or a list of ``"path=value"`` strings,
    exactly like the CLI's ``--set``. With ``out``, the run's files
    (summary.json, per-flow CSV and Parquet, events.jsonl, and with
    ``pcap=True`` one capture per link) are written there. ``progress``
    draws a bar on stderr when stderr is a terminal.

    Raises :class:`airtcp.ScenarioError` (a ``ValueError``) before anything
    runs or is written when the scenario is invalid.
    """
    pairs = _overrides_list(overrides)
    if isinstance(scenario, dict):
        import json

        text, origin, fmt = json.dumps(scenario), "<dict>", "json"
    elif isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such scenario file")
        text, origin, fmt = path, path, "path"
    else:
        raise TypeError(f"scenario must be a path or a dict, not {type(scenario).__name__}")
    if pcap and out is None:
        raise ValueError("pcap=True needs an output directory (out=...)")
    if seed is not None and not (0 <= int(seed) < 2**64):
        raise ValueError(f"seed {seed} is outside 0..2^64-1")

    from . import _native

    out_dir = os.fspath(out) if out is not None else None
    native = _native.run(
        text, origin, fmt, None if seed is None else int(seed), pairs, out_dir, bool(pcap), bool(progress)
    )
    return Result(native, out_dir)


class Result:
    """What one run produced. Time series are pandas DataFrames, built on
    demand (pandas is imported only then)."""

    def __init__(self, native, out: str | None):
        self._native = native
        self._summary: dict | None = None
        self._events: list | None = None
        #: Output directory, or None if the run wrote no files.
        self.out = out

    @property
    def summary(self) -> dict:
        """The same dictionary as ``summary.json``."""
        if self._summary is None:
            import json

            self._summary = json.loads(self._native.summary_json)
        return self._summary

    @property
    def flows(self) -> list:
        """Per-flow metrics (goodput_bps, retransmissions, timeouts, ...)."""
        return list(self.summary.get("flows", []))

    @property
    def agents(self) -> list:
        """Per-agent results in declaration order: name, node, kind,
        counters (dict), dropped_packets, series {t_s, value}."""
        return list(self.summary.get("agents", []))

    def agent_series(self, agent: int = 0):
        """The agent's level sampled every series interval (Snoop: segments
        cached) as a DataFrame with columns t_s, value."""
        import pandas as pd

        got = self.agents
        if not isinstance(agent, int) or not 0 <= agent < len(got):
            raise IndexError(f"agent {agent!r} out of range: the run has {len(got)} agent(s)")
        s = got[agent].get("series") or {}
        return pd.DataFrame({"t_s": s.get("t_s", []), "value": s.get("value", [])})

    @property
    def n_flows(self) -> int:
        return self._native.n_flows

    @property
    def seed(self) -> int | None:
        return self.summary.get("seed")

    @property
    def events_executed(self) -> int:
        return self._native.events_executed

    @property
    def run_wall_s(self) -> float:
        """Wall time of the simulation itself (not parsing or writing)."""
        return self._native.run_wall_s

    def _check_flow(self, flow: int) -> int:
        n = self._native.n_flows
        if not isinstance(flow, int) or not 0 <= flow < n:
            raise IndexError(f"flow {flow!r} out of range: the run has {n} flow(s)")
        return flow

    def timeseries(self, flow: int = 0):
        """Sender state over time for ``flow``: t_s, cwnd, ssthresh, srtt_s,
        rto_s, snd_una, snd_nxt, bytes_delivered, ca_state."""
        import pandas as pd

        return pd.DataFrame(self._native.series(self._check_flow(flow)))

    def segments(self, flow: int = 0):
        """Every data segment the sender of ``flow`` transmitted: t_s, seq,
        len, retransmission."""
        import pandas as pd

        return pd.DataFrame(self._native.segments(self._check_flow(flow)))

    @property
    def events(self) -> list:
        """The event log (timeouts, handoffs, outages, ...), one dict per
        event with keys t_s, kind, flow, link, detail."""
        if self._events is None:
            self._events = self._native.events()
        return self._events

    def events_df(self):
        import pandas as pd

        return pd.DataFrame(self.events)

    def __repr__(self) -> str:
        return (
            f"<airtcp.Result flows={self.n_flows} events_executed={self.events_executed} "
            f"run_wall_s={self.run_wall_s:.3f} out={self.out!r}>"
        )
