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

The TCP stack (``STACKS``): by default the seed's, ns-2 2.35's one-way
agents (``profile = "ns2-tahoe" | "ns2-reno" | "ns2-newreno"`` with
``Agent/TCPSink``), packets of 1000 B + 40 B of headers and ``window_ 20``
as the seed sets them ("The packet size is set to 1040 bytes (including
TCP + IP header) ... An end to end TCP connection is assumed with a maximum
window size of 20."); Wi-TCP and EHN run on the same agent (its handover
hooks). Freeze-TCP needs a receiver that advertises a zero window and a
sender with a persist timer, which ns-2's one-way agents do not have: on
the ns2 stack that arm runs the Linux-style endpoint set as near ns-2's
agent as its keys go (``NS2_NEAREST``). The sensitivity stack ``linux`` is
today's kernel profile as it is (CUBIC, PRR, SACK, F-RTO, RACK-TLP) with
the seed's MSS and window; ``linux-nofrto`` is it with F-RTO off alone,
the mechanism that moves the Wi-TCP gain most between the stacks.

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

from ...runner.study import StudyError, repo_root

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


#: The `[flows.tcp]` profile per TCP variant on the seed's stack.
TCP_PROFILE = "ns2-{variant}"
#: ns-2's packetSize_ (payload; 40 B of TCP/IP header on top: the seed's
#: 1040 bytes) and window_ in packets (the seed's "maximum window size of 20").
NS2_PACKET_SIZE = 1000
NS2_WINDOW = 20
#: The Linux-style endpoint as near ns-2's one-way agent as its keys go,
#: for the arm ns-2's agent cannot run (Freeze-TCP): the `rfc` profile's
#: Reno without F-RTO, undo, TLP or RACK, plus ns-2's initial window 2
#: (windowInit_), 200 ms minimum RTO (minrto_), 3 s initial RTO
#: (rtxcur_init_), 10 ms timer granularity (tcpTick_), an ACK per packet
#: (TCPSink), no SACK, timestamps or window scaling. Not ns-2: windows in
#: bytes, a handshake, RFC 6298's RTO arithmetic instead of ns-2's ticks.
NS2_NEAREST = {
    "profile": "rfc",
    "cc": "reno",
    "initial_cwnd": 2,
    "sack": False,
    "timestamps": False,
    "window_scaling": False,
    "min_rto": "200ms",
    "initial_rto": "3s",
    "max_rto": "60s",
    "clock_granularity": "10ms",
    "delack_count": 1,
}
#: The TCP stacks: ``ns2`` the seed's (default), ``linux`` today's kernel
#: profile (the sensitivity arm), ``linux-nofrto`` it with F-RTO alone off
#: (the mechanism arm, run for the claims' point only). Each maps to the
#: Linux keys it sets over the profile (None: ns-2's agents).
#: ``linux-clamprto`` is it with the RTO computed as ns-2 and RFC 6298 do,
#: max(200 ms, SRTT + 4 RTTVAR) on a 10 ms clock, instead of Linux's
#: SRTT + max(4 mdev, 200 ms) (tcp_set_rto / __tcp_set_rto): the other
#: mechanism arm; ``linux-norack`` it without RACK-TLP's loss detection
#: (the third).
STACKS = {
    "ns2": None,
    "linux": {"profile": "linux"},
    "linux-nofrto": {"profile": "linux", "frto": False},
    "linux-clamprto": {"profile": "linux", "rto_timer": "rfc6298", "min_rto": "200ms", "clock_granularity": "10ms"},
    "linux-norack": {"profile": "linux", "rack": False},
}
DEFAULT_STACKS = ("ns2", "linux")
#: Stacks that run the claims' point only (NewReno-equivalent, first delay).
MECHANISM_STACKS = ("linux-nofrto", "linux-clamprto", "linux-norack")
#: The variant label of the Linux stacks: the kernel's default CUBIC with
#: its own recovery (PRR, RACK), not a choice of ns-2 agent.
LINUX_VARIANT = "cubic"


def tcp_table(stack: str, variant: str, arm: dict) -> dict:
    """The flow's `[flows.tcp]` for `stack`, `variant` and `arm`."""
    schemes = {"witcp": arm["witcp"], "ehn": arm["ehn"]}
    if STACKS[stack] is None and not arm["freeze"]:
        return {"profile": TCP_PROFILE.format(variant=variant), "packet_size": NS2_PACKET_SIZE, "window": NS2_WINDOW, **schemes}
    keys = dict(NS2_NEAREST, recovery=variant) if STACKS[stack] is None else dict(STACKS[stack])
    # The seed's path and window: 1000-byte segments, 20 of them.
    return {**keys, "mss": MSS, "rcv_buf": NS2_WINDOW * MSS, **schemes, "freeze": arm["freeze"]}


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
    stack: str = "ns2",
) -> dict:
    """The scenario dict of one run."""
    if mode not in ARMS:
        raise StudyError(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    if stack not in STACKS:
        raise StudyError(f"unknown TCP stack {stack!r} (known: {', '.join(STACKS)})")
    known = VARIANTS if STACKS[stack] is None else (LINUX_VARIANT,)
    if variant not in known:
        raise StudyError(f"unknown TCP variant {variant!r} on stack {stack} (known: {', '.join(known)})")
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
    sc["flows"][0]["tcp"] = tcp_table(stack, variant, arm)
    # From 0 s, not the shipped files' 1 s: the runner once validated every
    # scenario with a 1-ns run, which rejected a later start. Native
    # validation accepts 1 s now; 0 s is kept so the study's figures stay
    # the same.
    sc["flows"][0]["start"] = "0s"
    if not series:
        # 100 ms: the delivery interruption and the packets at 42.52 s are
        # read off this series.
        sc["sim"]["series_interval"] = "100ms"
    return sc
