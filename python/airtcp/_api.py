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


def _overrides_list(overrides: dict | list[str] | None) -> list[tuple[str, str]]:
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        from .runner.values import set_text

        return [(str(k), set_text(v)) for k, v in overrides.items()]
    if isinstance(overrides, str):
        overrides = [overrides]
    pairs = []
    for item in overrides:
        path, sep, value = str(item).partition("=")
        if not sep or not path.strip():
            raise ScenarioError(f"<override>: {item}: expected path=value")
        pairs.append((path.strip(), value.strip()))
    return pairs


def dict_origin(name: str | None = None) -> str:
    """How error messages name a scenario given as a dict: ``<name>``, e.g.
    ``<snoop s1 arm=tcp>`` (``<dict>`` without a name). The angle brackets
    tell the simulator it is no file, so trace paths in the dict stay
    relative to the working directory."""
    if name is None:
        return "<dict>"
    text = " ".join(str(name).split())
    if not text:
        raise ValueError("name must not be empty")
    if text.startswith("<") and text.endswith(">"):
        return text
    return f"<{text}>"


def _source(scenario, name: str | None) -> tuple[str, str, str]:
    """(text or path, origin, format) of a scenario path or dict, as the
    native module takes them."""
    if isinstance(scenario, dict):
        import json

        return json.dumps(scenario), dict_origin(name), "json"
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: no such scenario file")
        return path, path, "path"
    raise TypeError(f"scenario must be a path or a dict, not {type(scenario).__name__}")


def validate(
    scenario: str | os.PathLike | dict,
    overrides: dict | list[str] | None = None,
    name: str | None = None,
) -> dict:
    """Check a scenario without running it: the simulator parses it and
    builds its network, agents and hosts, as a run does before its first
    event. Returns the scenario with every default filled in (the
    ``scenario`` of summary.json). Arguments as for :func:`run`.

    Raises :class:`airtcp.ScenarioError` for an invalid scenario (naming
    the file or ``name``, the line and the key) and
    :class:`airtcp.SimError` for one the simulator cannot build."""
    import json

    from . import _native

    from ._errors import SimError

    text, origin, fmt = _source(scenario, name)
    try:
        return json.loads(_native.validate(text, origin, fmt, _overrides_list(overrides)))
    except SimError as e:
        raise _named(e, scenario, origin) from None


def run(
    scenario: str | os.PathLike | dict,
    seed: int | None = None,
    overrides: dict | list[str] | None = None,
    out: str | os.PathLike | None = None,
    pcap: bool = False,
    progress: bool = False,
    name: str | None = None,
) -> "Result":
    """Run one simulation and return its :class:`Result`.

    ``scenario`` is a path to a TOML (or ``.json``) scenario file, or a dict
    with the same structure (sent to the simulator as JSON). ``seed``
    replaces the scenario's seed. ``overrides`` is a dict
    ``{"flows.0.tcp.cc": "reno"}`` or a list of ``"path=value"`` strings,
    exactly like the CLI's ``--set``. With ``out``, the run's files
    (summary.json, per-flow CSV and Parquet, events.jsonl, and with
    ``pcap=True`` one capture per link) are written there. ``progress``
    draws a bar on stderr when stderr is a terminal. ``name`` says what a
    dict scenario is in its errors, a bad scenario's and a failed run's
    alike (a study passes its name and arm:
    ``name="snoop s1 arm=tcp"`` gives ``<snoop s1 arm=tcp>: links[0].delay:
    ...``, where the default is ``<dict>: ...``); a file is always named by
    its path.

    Raises :class:`airtcp.ScenarioError` (a ``ValueError``) before anything
    runs or is written when the scenario is invalid.
    """
    pairs = _overrides_list(overrides)
    text, origin, fmt = _source(scenario, name)
    if pcap and out is None:
        raise ValueError("pcap=True needs an output directory (out=...)")
    if seed is not None and not (0 <= int(seed) < 2**64):
        raise ValueError(f"seed {seed} is outside 0..2^64-1")

    from . import _native

    out_dir = os.fspath(out) if out is not None else None
    from ._errors import SimError

    try:
        native = _native.run(
            text, origin, fmt, None if seed is None else int(seed), pairs, out_dir, bool(pcap), bool(progress)
        )
    except SimError as e:
        raise _named(e, scenario, origin) from None
    return Result(native, out_dir)


def _named(e: Exception, scenario, origin: str) -> Exception:
    """A dict scenario's :class:`airtcp.SimError` names the scenario as its
    :class:`airtcp.ScenarioError` does (``<snoop s1 arm=tcp>: ...``):
    nothing else would say which of a study's runs failed. A file's errors
    are left as they are: they name the files they concern."""
    return type(e)(f"{origin}: {e}") if isinstance(scenario, dict) else e


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

    # --- 802.11 -------------------------------------------------------------

    @property
    def radios(self) -> list:
        """Per-radio results in declaration order: node, mode (ap, station,
        adhoc), addr, channel, counters (MAC counters), associated_ap, signal
        {t_s, dbm} (a station's beacon signal samples of its current AP).
        Empty for a run without ``[[radios]]``."""
        return list(self.summary.get("radios", []) or [])

    def _radio_index(self, radio: int | str) -> int:
        got = self.radios
        if isinstance(radio, str):
            for i, r in enumerate(got):
                if r.get("node") == radio:
                    return i
            raise IndexError(f"radio {radio!r}: no radio on that node (radios: {[r.get('node') for r in got]})")
        if isinstance(radio, bool) or not isinstance(radio, int) or not 0 <= radio < len(got):
            raise IndexError(f"radio {radio!r} out of range: the run has {len(got)} radio(s)")
        return radio

    def radio_signal(self, radio: int | str = 0):
        """Beacon signal samples of station ``radio`` (index into
        :attr:`radios`, or its node's name) as a DataFrame with columns t_s,
        dbm and ap: the AP the station was associated with at that time (from
        the event log; its starting AP before the first association event).
        Empty for an AP or ad hoc radio."""
        import pandas as pd

        i = self._radio_index(radio)
        r = self.radios[i]
        s = r.get("signal") or {}
        t, dbm = list(s.get("t_s", [])), list(s.get("dbm", []))
        declared = (self.summary.get("scenario", {}).get("radios") or [{}] * (i + 1))[i]
        return pd.DataFrame({"t_s": t, "dbm": dbm, "ap": _ap_at(t, *_assoc_timeline(self.events, r, declared))})

    def wifi_events(self):
        """The 802.11 management steps of the event log (kinds ``wifi_*``:
        wifi_link_lost, wifi_scan_start/_end, wifi_auth_start,
        wifi_authenticated, wifi_assoc_start, wifi_associated, wifi_stayed,
        wifi_ap_station_joined/_left) as a DataFrame with columns t_s, kind,
        sta, ap, trigger (parsed from the ``key=value`` detail, None where
        absent) and detail."""
        import pandas as pd

        return pd.DataFrame(wifi_event_rows(self.events), columns=["t_s", "kind", "sta", "ap", "trigger", "detail"])

    def handoffs(self):
        """One row per completed handoff of a station (a new association
        after the station had one): sta, from_ap, to_ap, t0 (the
        wifi_link_lost that started it, or the scan start when no link loss
        precedes: a signal-triggered roam scans first and leaves its AP
        after the scan), link_lost, the times scan_start, scan_end, auth_start,
        authenticated, assoc_start, associated (NaN for a step that did not
        happen, e.g. the scan of a scripted handoff to a named AP), and the
        durations scan_s, auth_s, assoc_s and total_s (t0 -> associated), in
        seconds. A station's first association (joining by scanning) is not
        a handoff and is not listed."""
        import pandas as pd

        return pd.DataFrame(handoff_rows(self.events), columns=HANDOFF_COLUMNS)

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

    @property
    def n_udp_flows(self) -> int:
        return self._native.n_udp_flows

    def udp_timeseries(self, flow: int = 0):
        """Receiver state over time for UDP flow ``flow`` (``[[udp_flows]]``
        order): t_s, sent, received, bytes_received, lost, jitter_s (RFC 3550),
        delay_s (latest one-way delay)."""
        import pandas as pd

        n = self._native.n_udp_flows
        if not isinstance(flow, int) or not 0 <= flow < n:
            raise IndexError(f"UDP flow {flow!r} out of range: the run has {n} UDP flow(s)")
        return pd.DataFrame(self._native.udp_series(flow))

    @property
    def udp_flows(self) -> list:
        """summary.json's per-UDP-flow metrics (throughput, loss, jitter, delay)."""
        return self.summary.get("udp_flows", [])

    def analysis(self, flow: int = 0) -> dict:
        """summary.json's ``analysis`` of ``flow``: its segments at the
        client's socket through the capture analysis (docs/analyze.md), the
        same keys as a capture's per-direction summary."""
        return self.summary["flows"][self._check_flow(flow)]["analysis"]

    def interruptions(self, flow: int = 0):
        """Delivery interruptions of ``flow`` at the client's socket (gaps of
        at least ``analysis.min_gap_s``), the same columns as
        ``airtcp.analyze(...).interruptions()``."""
        from .capture_analysis import interruption_frame

        return interruption_frame(self.analysis(flow)["interruptions"])

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


# --- 802.11 event log parsing (shared with ``airtcp plot``) ------------------------

#: Columns of :meth:`Result.handoffs`.
HANDOFF_COLUMNS = [
    "sta",
    "from_ap",
    "to_ap",
    "t0",
    "link_lost",
    "scan_start",
    "scan_end",
    "auth_start",
    "authenticated",
    "assoc_start",
    "associated",
    "scan_s",
    "auth_s",
    "assoc_s",
    "total_s",
]

_STEP = {
    "wifi_scan_start": "scan_start",
    "wifi_scan_end": "scan_end",
    "wifi_auth_start": "auth_start",
    "wifi_authenticated": "authenticated",
    "wifi_assoc_start": "assoc_start",
}


def parse_detail(detail) -> dict:
    """``"sta=sta ap=ap2 aid=1"`` -> ``{"sta": "sta", "ap": "ap2", "aid": "1"}``
    (tokens without ``=`` are ignored)."""
    out = {}
    for tok in str(detail or "").split():
        k, sep, v = tok.partition("=")
        if sep:
            out[k] = v
    return out


def wifi_event_rows(events) -> list[dict]:
    """The ``wifi_*`` events in log order as dicts t_s, kind, sta, ap,
    trigger, detail."""
    rows = []
    for e in events:
        kind = str(e.get("kind", ""))
        if not kind.startswith("wifi_"):
            continue
        d = parse_detail(e.get("detail"))
        rows.append(
            {
                "t_s": e.get("t_s"),
                "kind": kind,
                "sta": d.get("sta"),
                "ap": d.get("ap"),
                "trigger": d.get("trigger"),
                "detail": e.get("detail"),
            }
        )
    return rows


def _nan() -> float:
    return float("nan")


def _diff(a, b) -> float:
    return b - a if a is not None and b is not None else _nan()


def handoff_rows(events) -> list[dict]:
    """Completed handoffs from the event log (see :meth:`Result.handoffs`):
    a station's steps are collected from the first of wifi_link_lost /
    wifi_scan_start / wifi_auth_start (t0) to its wifi_associated; a
    wifi_stayed (the scan found no better AP) discards them."""
    current: dict = {}
    pending: dict = {}
    rows = []
    for e in wifi_event_rows(events):
        sta, kind, t = e["sta"], e["kind"], e["t_s"]
        if sta is None:
            continue
        p = pending.get(sta)
        if kind == "wifi_link_lost":
            if p is None:
                p = pending[sta] = {"t0": t}
            p.setdefault("link_lost", t)
            p["from_ap"] = e["ap"] or p.get("from_ap") or current.get(sta)
        elif kind == "wifi_scan_start":
            if p is None:
                p = pending[sta] = {"t0": t, "from_ap": e["ap"] or current.get(sta)}
            p.setdefault("scan_start", t)
        elif kind in _STEP:
            if p is None:  # e.g. a scripted handoff to a named AP: no scan
                p = pending[sta] = {"t0": t, "from_ap": current.get(sta)}
            p.setdefault(_STEP[kind], t)
        elif kind == "wifi_stayed":
            pending.pop(sta, None)
        elif kind == "wifi_associated":
            p = pending.pop(sta, None) or {"t0": t, "from_ap": current.get(sta)}
            from_ap = p.get("from_ap") or current.get(sta)
            to_ap = e["ap"]
            if from_ap is not None or sta in current:
                g = p.get
                rows.append(
                    {
                        "sta": sta,
                        "from_ap": from_ap,
                        "to_ap": to_ap,
                        "t0": p["t0"],
                        "link_lost": g("link_lost", _nan()),
                        "scan_start": g("scan_start", _nan()),
                        "scan_end": g("scan_end", _nan()),
                        "auth_start": g("auth_start", _nan()),
                        "authenticated": g("authenticated", _nan()),
                        "assoc_start": g("assoc_start", _nan()),
                        "associated": t,
                        "scan_s": _diff(g("scan_start"), g("scan_end")),
                        "auth_s": _diff(g("auth_start"), g("authenticated")),
                        "assoc_s": _diff(g("assoc_start"), t),
                        "total_s": t - p["t0"],
                    }
                )
            current[sta] = to_ap
    return rows


def _assoc_timeline(events, radio: dict, declared: dict | None = None) -> tuple:
    """(the AP a station starts with, [(t, ap) of each association in the
    log]); the start is the declared `ap` of its radio, if any."""
    node = radio.get("node")
    changes = [
        (e["t_s"], e["ap"]) for e in wifi_event_rows(events) if e["kind"] == "wifi_associated" and e["sta"] == node
    ]
    return (declared or {}).get("ap"), changes


def _ap_at(times, start, changes) -> list:
    """The associated AP at each of `times` (sorted), given the timeline."""
    out, cur, j = [], start, 0
    for t in times:
        while j < len(changes) and changes[j][0] <= t:
            cur = changes[j][1]
            j += 1
        out.append(cur)
    return out
