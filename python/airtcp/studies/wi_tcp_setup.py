"""Scenarios of the wi-tcp study (seed 001): the shipped
``scenarios/wi-tcp-wlan.toml`` (the seed's Fig. 4 over the 802.11b MAC at
2 Mb/s) with the TCP variant, the Mobile IP mode and the home agent -
foreign agent delay set per run.

Mobile IP modes (agents: 0 correspondent on fh, 1 home agent, 2 fa1,
3 fa2, 4 mobile node):

- ``mip``: plain Mobile IP (triangular routing through the home agent), no
  route optimisation, no smooth handoff, no Wi-TCP;
- ``romip``: route optimisation (Binding Updates to the correspondent, which
  tunnels straight to the care-of address) and smooth handoff (the old
  foreign agent forwards what still arrives), no Wi-TCP;
- ``witcp``: ``romip`` plus Wi-TCP at the agents and the sender;
- ``freeze``: ``romip`` plus Freeze-TCP at the mobile (Goff et al., INFOCOM
  2000): its radio warns ``FREEZE_LEAD_S`` before each handoff (an oracle:
  the moves are scripted, and the cells' signal does not fade before them),
  the mobile advertises a zero window until it reassociates, then sends
  three TR-ACKs.

TCP variants: the seed's ns-2 Tahoe, Reno and NewReno, i.e. Reno congestion
control with the matching recovery, without SACK or timestamps (ns-2's
one-way agents have neither), MSS 1000 B, a 20-packet window (receive
buffer 20,000 B).
"""

from __future__ import annotations

import copy
import tomllib

from .runner import StudyError, repo_root

SCENARIO_FILE = "scenarios/wi-tcp-wlan.toml"
MODES = ("mip", "romip", "witcp", "freeze")
#: Freeze-TCP's warning lead: about one RTT of the path (fh - R - FA -
#: wireless with a 20-packet window queued at 2 Mb/s: ~0.1-0.2 s).
FREEZE_LEAD_S = 0.2
VARIANTS = ("tahoe", "reno", "newreno")
#: Home agent - foreign agent delay (ms) = R-HA (5 ms) + R-FA.
FULL_DELAYS = (10, 20, 30)
QUICK_DELAYS = (10,)
#: Handoffs of the shipped scenario: (time of the move, from, to).
HANDOFFS = ((11.5, "ha", "fa1"), (15.6, "fa1", "ha"), (30.0, "ha", "fa1"), (42.5, "fa1", "fa2"))
#: The seed's FA->FA handoff, after which it counts packets ahead.
FAFA_S = 42.5
MSS = 1000


def base() -> dict:
    path = repo_root() / SCENARIO_FILE
    if not path.is_file():
        raise StudyError(f"{path}: the study's scenario is missing (run from the source tree)")
    with open(path, "rb") as f:
        return tomllib.load(f)


_BASE: dict | None = None


def scenario(mode: str, variant: str, hafa_ms: int, *, series: bool = False) -> dict:
    """The scenario dict of one run."""
    global _BASE
    if mode not in MODES:
        raise StudyError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    if variant not in VARIANTS:
        raise StudyError(f"unknown TCP variant {variant!r} (known: {', '.join(VARIANTS)})")
    if hafa_ms <= 5:
        raise StudyError(f"home agent - foreign agent delay {hafa_ms} ms must exceed the R-HA link's 5 ms")
    if _BASE is None:
        _BASE = base()
    sc = copy.deepcopy(_BASE)
    ro = mode != "mip"
    wi = mode == "witcp"
    if mode == "freeze":
        sc["radios"][-1]["warn_at"] = [f"{t - FREEZE_LEAD_S:g}s" for t, _, _ in HANDOFFS]
    agents = sc["agents"]
    for i in (1, 2, 3):
        agents[i]["route_optimization"] = ro
        agents[i]["witcp"] = wi
    agents[4]["smooth_handoff"] = ro
    for li in (2, 3):  # r - fa1, r - fa2
        sc["links"][li]["delay"] = f"{hafa_ms - 5}ms"
    tcp = sc["flows"][0]["tcp"]
    tcp.update(
        {
            "cc": "reno",
            "recovery": variant,
            "sack": False,
            "timestamps": False,
            "mss": MSS,
            "rcv_buf": 20 * MSS,
            "witcp": wi,
            "freeze": mode == "freeze",
        }
    )
    tcp.pop("snd_buf", None)
    # From the start (the runner validates every scenario with a 1 ns run).
    sc["flows"][0]["start"] = "0s"
    if not series:
        sc["sim"]["series_interval"] = "1s"
    return sc
