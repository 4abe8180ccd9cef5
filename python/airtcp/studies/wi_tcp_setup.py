"""Scenarios of the wi-tcp study (seed 001): the seed's Fig. 4 with the
wireless hop either over the 802.11b MAC at 2 Mb/s
(``scenarios/wi-tcp-wlan.toml``, link ``wlan``) or as a plain lossless
2 Mb/s point-to-point link per cell (``scenarios/wi-tcp-p2p.toml``, link
``p2p``), with the TCP variant, the arm and the home agent - foreign agent
delay set per run.

Arms (agents: 0 correspondent on fh, 1 home agent, 2 fa1, 3 fa2, 4 mobile
node), one entry of :data:`ARMS` each, so another arm is one more entry:

- ``mip``: plain Mobile IP (triangular routing through the home agent), no
  route optimisation, no smooth handoff, no Wi-TCP;
- ``romip``: route optimisation (Binding Updates to the correspondent, which
  tunnels straight to the care-of address) and smooth handoff (the old
  foreign agent forwards what still arrives), no Wi-TCP;
- ``witcp``: ``romip`` plus Wi-TCP at the agents and the sender;
- ``ehn``: ``romip`` plus the explicit handover notification of the seed's
  [8]: the mobile notifies the sender when it hears its new agent, the
  sender resets its retransmission timer and resends at once;
- ``freeze``: ``romip`` plus Freeze-TCP at the mobile (Goff et al., INFOCOM
  2000): its radio warns ``FREEZE_LEAD_S`` before each handoff (an oracle:
  the moves are scripted, and the cells' signal does not fade before them),
  the mobile advertises a zero window until it reassociates, then sends
  three TR-ACKs. 802.11 link only: the p2p cells give no warning.

TCP variants: the seed's ns-2 Tahoe, Reno and NewReno, i.e. Reno congestion
control with the matching recovery, without SACK or timestamps (ns-2's
one-way agents have neither), MSS 1000 B, a 20-packet window (receive
buffer 20,000 B).

On the ``p2p`` link nothing is random, so a seed draws each move's phase
against the agents' 1 s advertisement clock instead (a uniform 0-1 s
shift of every handoff; seed 1 keeps the shipped times), as the beacon
phases of a seed do over 802.11; the mobile is out of every cell for
``away`` seconds per handoff (default 1 s: the 802.11 runs lose their AP
for about 0.8 s).
"""

from __future__ import annotations

import copy
import random
import tomllib

from .runner import StudyError, repo_root

SCENARIO_FILES = {"wlan": "scenarios/wi-tcp-wlan.toml", "p2p": "scenarios/wi-tcp-p2p.toml"}
LINKS = tuple(SCENARIO_FILES)
#: What each arm turns on: route optimisation with smooth handoff, Wi-TCP
#: (agents and sender), explicit handover notification (mobile and sender).
ARMS = {
    "mip": {"ro": False, "witcp": False, "ehn": False, "freeze": False},
    "romip": {"ro": True, "witcp": False, "ehn": False, "freeze": False},
    "witcp": {"ro": True, "witcp": True, "ehn": False, "freeze": False},
    "ehn": {"ro": True, "witcp": False, "ehn": True, "freeze": False},
    "freeze": {"ro": True, "witcp": False, "ehn": False, "freeze": True},
}
MODES = tuple(ARMS)
#: How reports and plots name the arms and links.
ARM_LABELS = {"mip": "Mobile IP", "romip": "route-optimised MIP", "witcp": "Wi-TCP", "ehn": "EHN ([8])", "freeze": "Freeze-TCP"}
#: Freeze-TCP's warning lead: about one RTT of the path (fh - R - FA -
#: wireless with a 20-packet window queued at 2 Mb/s: ~0.1-0.2 s).
FREEZE_LEAD_S = 0.2


def modes_for(link: str) -> tuple:
    """The arms that run on `link` (Freeze-TCP needs the 802.11 radio's warning)."""
    return tuple(m for m in MODES if link == "wlan" or not ARMS[m]["freeze"])
LINK_LABELS = {"wlan": "802.11b", "p2p": "plain p2p"}
VARIANTS = ("tahoe", "reno", "newreno")
#: Time out of every cell per handoff on the p2p link (s).
P2P_AWAY_S = 1.0
#: Longest time away: the moves 11.5 s and 15.6 s are 4.1 s apart, and a
#: seed shifts each by up to 1 s; the next move must find the host in a cell.
MAX_AWAY_S = 3.0
#: Home agent - foreign agent delay (ms) = R-HA (5 ms) + R-FA.
FULL_DELAYS = (10, 20, 30)
QUICK_DELAYS = (10,)
#: The mobile's moves: (time it leaves its cell, from, to). ``seed`` is
#: the seed's own schedule: "packets 769-778 are dropped at home agent at
#: 11.533 seconds ... At 15.585 first handoff (point A in Fig. 6) has
#: completed" and "When MH leaves FA1 and registers with FA2, packets loss
#: occurs at 42.524 second": two handoffs, the first with the host out of
#: every cell for about 4 s (``SEED_HAFA_AWAY_S``). ``four-moves`` is the
#: study's earlier schedule (home again at 15.6 s, away again at 30 s).
SCHEDULES = {
    "seed": ((11.5, "ha", "fa1"), (42.5, "fa1", "fa2")),
    "four-moves": ((11.5, "ha", "fa1"), (15.6, "fa1", "ha"), (30.0, "ha", "fa1"), (42.5, "fa1", "fa2")),
}
DEFAULT_SCHEDULE = "seed"
HANDOFFS = SCHEDULES[DEFAULT_SCHEDULE]
#: Seed schedule: out of every cell from 11.5 s to 15.0 s on the HA->FA
#: move, so that with the beacon loss, the scan and the registration the
#: handoff ends near the seed's 15.585 s (the report gives the measured
#: instants).
SEED_HAFA_AWAY_S = 3.5
#: 802.11 data rates (Mb/s): ns-2's default (Mac/802_11 dataRate_ 1Mb) and
#: the 2 Mb/s the seed states ("a 2Mbps wireless channel").
RATES_MBPS = (1, 2)
DEFAULT_RATES_MBPS = (1, 2)


#: INTEGRATOR: the `[flows.tcp] profile` per TCP variant once the ns2
#: branch's agents land (e.g. "ns2-{variant}" for ns2-tahoe / ns2-reno /
#: ns2-newreno, the seed's agents); None keeps Reno-family flows as today.
TCP_PROFILE = None


def handoffs(schedule: str) -> tuple:
    """The moves of `schedule` (a key of :data:`SCHEDULES`)."""
    if schedule not in SCHEDULES:
        raise StudyError(f"unknown schedule {schedule!r} (known: {', '.join(SCHEDULES)})")
    return SCHEDULES[schedule]


def waypoints(schedule: str) -> list:
    """The mobile's 802.11 waypoints `[t, x, y]` for `schedule`: a jump to
    the next AP (home x = 0, fa1 500, fa2 1000 m) at each move; on the
    seed schedule's HA->FA move it waits 3 km away (out of every cell) for
    ``SEED_HAFA_AWAY_S`` first."""
    x = {"ha": 0.0, "fa1": 500.0, "fa2": 1000.0}
    pts = [[0, 0.0, 0.0]]
    for t, a, b in handoffs(schedule):
        pts.append([t, x[a], 0.0])
        if schedule == "seed" and a == "ha":
            pts.append([round(t + 0.01, 6), x[b], 3000.0])
            pts.append([round(t + SEED_HAFA_AWAY_S, 6), x[b], 3000.0])
            pts.append([round(t + SEED_HAFA_AWAY_S + 0.01, 6), x[b], 0.0])
        else:
            pts.append([round(t + 0.01, 6), x[b], 0.0])
    return pts
#: The seed's FA->FA handoff, after which it counts packets ahead.
FAFA_S = 42.5
MSS = 1000


def base(link: str) -> dict:
    path = repo_root() / SCENARIO_FILES[link]
    if not path.is_file():
        raise StudyError(f"{path}: the study's scenario is missing (run from the source tree)")
    with open(path, "rb") as f:
        return tomllib.load(f)


_BASE: dict[str, dict] = {}


def p2p_moves(seed: int, away_s: float, schedule: str = DEFAULT_SCHEDULE) -> list[list]:
    """The mobile's ``roam_at`` on the p2p link for `seed`: each handoff
    shifted by a uniform 0-1 s draw (none for seed 1), `away_s` out of
    every cell (``SEED_HAFA_AWAY_S`` on the seed schedule's HA->FA move)."""
    rng = random.Random(seed)
    out = []
    for t, frm, to in handoffs(schedule):
        shift = 0.0 if seed == 1 else round(rng.random(), 6)
        away = SEED_HAFA_AWAY_S if schedule == "seed" and frm == "ha" else away_s
        out.append([round(t + shift, 6), to, f"{away:g}s"])
    return out


def scenario(
    mode: str,
    variant: str,
    hafa_ms: int,
    *,
    link: str = "wlan",
    seed: int = 1,
    away_s: float = P2P_AWAY_S,
    series: bool = False,
    schedule: str = DEFAULT_SCHEDULE,
    rate_mbps: float = 2,
) -> dict:
    """The scenario dict of one run."""
    if mode not in ARMS:
        raise StudyError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    if variant not in VARIANTS:
        raise StudyError(f"unknown TCP variant {variant!r} (known: {', '.join(VARIANTS)})")
    if link not in SCENARIO_FILES:
        raise StudyError(f"unknown link {link!r} (known: {', '.join(LINKS)})")
    if hafa_ms <= 5:
        raise StudyError(f"home agent - foreign agent delay {hafa_ms} ms must exceed the R-HA link's 5 ms")
    moves = handoffs(schedule)
    if rate_mbps not in RATES_MBPS:
        raise StudyError(f"802.11 data rate {rate_mbps:g} Mb/s: the study runs {' or '.join(f'{r:g}' for r in RATES_MBPS)} Mb/s")
    if not 0 < away_s <= MAX_AWAY_S:
        raise StudyError(f"time away {away_s} s must be in (0, {MAX_AWAY_S:g}]")
    if link not in _BASE:
        _BASE[link] = base(link)
    sc = copy.deepcopy(_BASE[link])
    arm = ARMS[mode]
    if arm["freeze"] and link != "wlan":
        raise StudyError("the freeze arm runs on the 802.11 link only (the p2p cells give no handoff warning)")
    agents = sc["agents"]
    for i in (1, 2, 3):
        agents[i]["route_optimization"] = arm["ro"]
        agents[i]["witcp"] = arm["witcp"]
    agents[4]["smooth_handoff"] = arm["ro"]
    agents[4]["ehn"] = arm["ehn"]
    for li in (2, 3):  # r - fa1, r - fa2
        sc["links"][li]["delay"] = f"{hafa_ms - 5}ms"
    if arm["freeze"]:
        mh = next(r for r in sc["radios"] if r["node"] == "mh")
        mh["warn_at"] = [f"{t - FREEZE_LEAD_S:g}s" for t, _, _ in moves]
    mh = next(r for r in sc["radios"] if r["node"] == "mh")
    if link == "p2p":
        mh["roam_at"] = p2p_moves(seed, away_s, schedule)
    else:
        mh["waypoints"] = waypoints(schedule)
    sc["wifi"]["rate"] = f"{rate_mbps:g}Mbps"
    tcp = sc["flows"][0]["tcp"]
    tcp.update(
        {
            "cc": "reno",
            "recovery": variant,
            "sack": False,
            "timestamps": False,
            "mss": MSS,
            "rcv_buf": 20 * MSS,
            "witcp": arm["witcp"],
            "ehn": arm["ehn"],
            "freeze": arm["freeze"],
        }
    )
    tcp.pop("snd_buf", None)
    if TCP_PROFILE is not None:
        tcp["profile"] = TCP_PROFILE.format(variant=variant)
    # From the start (the runner validates every scenario with a 1 ns run).
    sc["flows"][0]["start"] = "0s"
    if not series:
        # 100 ms: the delivery interruption and the packets at 42.52 s are
        # read off this series.
        sc["sim"]["series_interval"] = "100ms"
    return sc
