"""Scenarios of the tcpfender study (seed 002): the shipped
``scenarios/mesh-tcpfender.toml`` (an 8-node 802.11 mesh at 1 Mb/s with
per-link loss rates, one bulk TCP flow S -> D) with the arm and the run
length set per run.

Arms:

- ``tcpip``: TCP over IP, ETX shortest-path routing, 802.11 unicast with
  ARQ: the seed's baseline.
- ``tcpfender``: the TCPFender modules under TCP at S and D over MORE
  (802.11 broadcast), β = 50, 4 batches in flight, with MORE's source: the
  sender module keeps sending the oldest batch the receiver's ACKs do not
  cover whenever the MAC takes a frame (MORE §4), early release and
  pipelining on top (the seed's two changes).
- ``tcpfender-literal``: the same modules with the literal reading of the
  seed's §III.B: z_src coded packets per TCP segment and nothing more.
- ``more``: plain MORE (β = 32, one batch at a time) carrying the same TCP
  without the modules; a batch closes at 32 segments or 100 ms after its
  first one (our rule where MORE is silent), whichever comes first.

The MAC is ns-2's ``Mac/802_11`` as the seed ran it (ns-2 2.35 prints
``RTSThreshold_ 0``, ``ShortRetryLimit_ 7``, ``LongRetryLimit_ 4``,
``dataRate_``/``basicRate_ 1Mb``): RTS/CTS before every unicast frame by
default; ``rts=False`` is the sensitivity arm without.

Credits (MORE's z and TX_credit, TCPFender's redundancy per segment) come,
as in the seed, from link loss rates measured with the PHY and the MAC at
work: a preliminary TCP/IP run (:func:`measured_delivery`) counts, per
link, the data frames sent and decoded, collisions included.
"""

from __future__ import annotations

import copy
import tomllib

from ...runner.study import StudyError, repo_root

SCENARIO_FILE = "scenarios/mesh-tcpfender.toml"
#: arm -> one-line description (report and --help)
ARMS = {
    "tcpip": "TCP/IP: ETX shortest path, 802.11 unicast with ARQ",
    "tcpfender": "TCPFender with MORE's source (sends the oldest uncovered batch whenever the MAC is free), MORE forwarding with coding, 802.11 broadcast",
    "tcpfender-literal": "TCPFender, literal reading: z_src coded packets per TCP segment and nothing more",
    "more": "plain MORE carrying TCP (no modules; a batch closes at 32 segments or after 100 ms)",
}
#: (batch β, batches in flight) of each coded arm (the seed: β = 50 for TCPFender; MORE's own K = 32, one batch).
CODED_DEFAULTS = {"tcpfender": (50, 4), "tcpfender-literal": (50, 4), "more": (32, 1)}
#: arm -> ([mesh] protocol, TCPFender source)
PROTOCOL = {"tcpfender": ("tcpfender", "more"), "tcpfender-literal": ("tcpfender", "per-segment"), "more": ("more", None)}
#: The TCP stacks the study runs, as ``[flows.tcp]`` tables that replace
#: the scenario file's. The seed says only "we investigate the performance
#: of TCPFender by running computer simulation using Network Simulator ns-2
#: (version 2-25)" and "We compare our protocol against TCP/IP": it names
#: neither the TCP agent nor the sink. ``ns2`` (the default) is our reading:
#: ns-2's ``Agent/TCP/Newreno`` (the one-way agents of ns-2 2.35, the
#: version packaged and validated here; 2.25 is not available) with the
#: plain ``Agent/TCPSink`` (one ACK per packet; ``TCPSink/DelAck`` must be
#: asked for in ns-2), ns-default.tcl's ``packetSize_ 1000`` and
#: ``window_ 20``. ``linux``: today's kernel (the sensitivity arm) with the
#: same 1000-byte segments and 20-packet window, SACK off (the TCPFender
#: modules' ACKs carry no SACK blocks; off on TCP/IP too so the arms differ
#: only in the path).
STACKS = {
    "ns2": {"profile": "ns2-newreno", "sink": "ns2-tcpsink", "packet_size": 1000, "window": 20},
    "linux": {"profile": "linux", "mss": 1000, "rcv_buf": 20000, "sack": False},
}
DEFAULT_STACK = "ns2"
#: The default stack's profile (the report opens with it).
TCP_PROFILE = STACKS[DEFAULT_STACK]["profile"]
#: TCP's window in packets (the scenario's rcv_buf / mss: ns-2's window_ 20).
WINDOW_PACKETS = 20
#: Seed of the preliminary run that measures link delivery (not one of the study's seeds).
MEASURE_SEED = 1001
#: Links with fewer data frames than this in the preliminary run keep the PHY estimate.
MEASURE_MIN_FRAMES = 50
FULL_DURATION_S = 100.0
QUICK_DURATION_S = 30.0
MSS = 1000
#: Positions (m) and undirected links with their loss rate, read from the
#: scenario file (for the report's drawing and table).
NODE_ORDER = ("S", "A", "B", "C", "E", "F", "G", "D")


def base() -> dict:
    path = repo_root() / SCENARIO_FILE
    if not path.is_file():
        raise StudyError(f"{path}: the study's scenario is missing (run from the source tree)")
    with open(path, "rb") as f:
        return tomllib.load(f)


_BASE: dict | None = None


def _base() -> dict:
    global _BASE
    if _BASE is None:
        _BASE = base()
    return _BASE


def scenario(arm: str, duration_s: float, *, delivery=None, beta=None, pipeline=None, rts: bool = True, loss_scale: float = 1.0, series: bool = True, stack: str = DEFAULT_STACK, tcp_extra: dict | None = None) -> dict:
    """The scenario dict of one run of `arm`; for a coded arm `delivery`
    ([from, to, p] rows) sets the credits and `beta` / `pipeline` override
    the arm's batch size and depth; `rts` puts RTS/CTS before every
    unicast frame (ns-2's default RTSThreshold_ 0; False for the
    sensitivity arm); `loss_scale` multiplies every link's loss rate;
    `stack` names the TCP (:data:`STACKS`) and `tcp_extra` sets keys
    beside its profile (one behaviour switched off to measure it)."""
    if arm not in ARMS:
        raise StudyError(f"unknown arm {arm!r} (known: {', '.join(ARMS)})")
    if stack not in STACKS:
        raise StudyError(f"unknown TCP stack {stack!r} (known: {', '.join(STACKS)})")
    if not duration_s > 0:
        raise StudyError(f"run length {duration_s} s must be positive")
    if not 0 <= loss_scale <= 1:
        raise StudyError(f"loss scale {loss_scale} must be within [0, 1]")
    sc = copy.deepcopy(_base())
    sc["sim"]["duration"] = f"{duration_s:g}s"
    if not series:
        sc["sim"]["series_interval"] = "1s"
    # ns-2 2.35 Mac/802_11: RTSThreshold_ 0, ShortRetryLimit_ 7, LongRetryLimit_ 4.
    sc["wifi"]["rts_threshold"] = 0 if rts else 65535
    sc["wifi"]["short_retry_limit"] = 7
    sc["wifi"]["long_retry_limit"] = 4
    sc["flows"][0]["tcp"] = {**STACKS[stack], **(tcp_extra or {})}
    if loss_scale != 1.0:
        for e in sc.get("wifi_errors", []):
            e["fer"] = round(float(e["fer"]) * loss_scale, 6)
    if arm in CODED_DEFAULTS:
        b, p = CODED_DEFAULTS[arm]
        protocol, source = PROTOCOL[arm]
        sc["mesh"].update({"protocol": protocol, "batch": beta or b, "pipeline": pipeline or p})
        if source:
            sc["mesh"]["source"] = source
        if delivery:
            sc["mesh"]["delivery"] = [list(d) for d in delivery]
    return sc


def batches_spanned(beta: int, window: int = WINDOW_PACKETS) -> int:
    """The most batches of β a window of `window` consecutive packets can
    touch: a depth beyond this never holds more, so runs at greater depths
    are the same simulation."""
    return -(-(window - 1) // beta) + 1


def measured_delivery(duration_s: float) -> list[list]:
    """Per-link delivery of data frames (PHY + MAC: losses and collisions)
    in a TCP/IP run of `duration_s` with seed :data:`MEASURE_SEED`, as
    [from, to, p] rows for links that carried at least
    :data:`MEASURE_MIN_FRAMES` frames (the others keep the PHY estimate).
    The run is without RTS/CTS: the credits are for broadcasts, which 802.11
    never protects with RTS/CTS, so their data frames must meet the hidden
    terminals' collisions as broadcasts do."""
    from ... import run

    sc = scenario("tcpip", duration_s, rts=False, series=False)
    r = run(sc, seed=MEASURE_SEED, name=f"tcpfender delivery-measurement arm=tcpip rts=False seed={MEASURE_SEED}")
    rows = []
    for m in r.summary["mesh"]["measured"]:
        if m["sent"] >= MEASURE_MIN_FRAMES and m["delivery"]:
            rows.append([m["from"], m["to"], round(float(m["delivery"]), 4)])
    return rows


def topology() -> tuple[dict, list[tuple[str, str, float]]]:
    """Node positions {name: (x, y)} and links [(a, b, loss rate)] of the scenario."""
    sc = _base()
    pos = {r["node"]: (float(r.get("x", 0.0)), float(r.get("y", 0.0))) for r in sc["radios"]}
    links = [(e["from"], e["to"], float(e["fer"])) for e in sc.get("wifi_errors", [])]
    return pos, links
