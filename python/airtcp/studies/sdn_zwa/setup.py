"""Scenarios of ``airtcp reproduce sdn-zwa`` (seed 000): the shipped
``scenarios/sdn-zwa.toml`` with the arm, the hop count, the disconnection
period and the roam instant set. Shared by the study, its report and its
plots (nothing here imports them back).

Wiring (drawn in the report): switches S1..S8, AP1..AP3 on S1..S3
(channels 1, 6, 11); S1, S2, S3 each linked to S4; S4-S5-S6-S7-S8 a chain.
The mobile node (MN) starts on AP1, leaves it at the roam instant, stays
away for the disconnection period and reassociates to AP2. The hop count
is the number of links from the correspondent node (CN) to AP2: CN on S2
gives 2, S4 3, S5 4, S6 5, S7 6, S8 7. Every wired link: 10 Mb/s, 80 ms.
"""

from __future__ import annotations

import copy
import random
import tomllib

from ...runner.study import repo_root

#: Arms: controller applications (None: no SDN, legacy L2 roaming:
#: learning switches and the APs' IAPP ADD-notify).
ARMS = {
    "bare": ["mobility", "forwarding"],
    "zwa": ["mobility", "statistics", "zwa", "forwarding"],
    "zwa-nostats": ["mobility", "zwa", "forwarding"],
    "freeze": ["mobility", "forwarding"],
    "legacy": None,
    "mtcp": None,
    "bare-cubic-sack": ["mobility", "forwarding"],
    "zwa-cubic-sack": ["mobility", "statistics", "zwa", "forwarding"],
}
ARM_LABELS = {
    "bare": "bare TCP (controller routes only)",
    "zwa": "SDN-assisted ZWA (statistics module on)",
    "zwa-nostats": "ZWA without the statistics module",
    "freeze": "Freeze-TCP at the MN (controller routes only)",
    "legacy": "legacy L2 roaming (learning switches, no SDN)",
    "mtcp": "M-TCP supervisor at the APs (legacy L2, sender IW 2)",
    "bare-cubic-sack": "bare TCP, CUBIC with SACK",
    "zwa-cubic-sack": "ZWA, CUBIC with SACK",
    "noroam": "no roam (reference)",
}
#: Freeze-TCP's warning period in RTTs of the MN's path before the roam
#: (Goff et al. advise about one RTT; a little more lets the ACKs of the
#: data in flight return with the zero window before the MN leaves).
FREEZE_WARNING_RTTS = 1.2
#: M-TCP's sender starts with 2 segments: with 1, a Linux sender deadlocks
#: on the first ACK withheld a byte short (crates/sim/tests/it/mtcp.rs).
MTCP_INITIAL_CWND = 2
#: T0 -> T2 (disassociation at the old AP -> its flow-removed at the
#: controller: notice, flow delete, flow-removed = 3 control latencies and 2
#: processing times) swept for the statistics module's fallback rate.
T0T2_MS = [10.0, 25.0, 50.0, 100.0, 200.0]
PROCESSING_MS = 1.0
#: CN attachment switch per hop count (links CN -> AP2).
ATTACH = {2: "s2", 3: "s4", 4: "s5", 5: "s6", 6: "s7", 7: "s8"}
#: Index of the CN's link and of the MN's radio in the shipped file.
CN_LINK = "cn-attach"
MN_RADIO = "mn"

#: The flow's series step: the delivery-interruption metric dates each
#: delivery by the first sample that shows it.
SERIES_INTERVAL = "10ms"
#: One colour per arm in every figure (matplotlib's tab10).
ARM_COLORS = {
    "bare": "tab:red",
    "zwa": "tab:blue",
    "zwa-nostats": "tab:purple",
    "freeze": "tab:green",
    "legacy": "tab:brown",
    "mtcp": "tab:orange",
    "bare-cubic-sack": "tab:pink",
    "zwa-cubic-sack": "tab:cyan",
    "noroam": "tab:gray",
}

#: The TCP stacks. The scenario names the seed's: `linux-4.4` (Linux of
#: Mininet-WiFi's era; the seed names no version) with the seed's three
#: changes set beside it ("We changed congestion control mechanism and window
#: growth function according to standard TCP implementation (TCP Reno) and
#: disabled the SACK option. Further, we set initial congestion window size
#: to 1 as specified in TCP Reno."). Every other stack keeps those keys and
#: changes only what its entry sets: `linux` is today's kernel (the
#: sensitivity arm); `linux-4.4-rto1s` is the seed's stack with the former
#: RFC 6298 floor (a 1 s minimum RTO, the value this study ran with before
#: it had profiles): the one mechanism, switched back, that moves the
#: results between the two.
SEED_STACK = "linux-4.4"
STACKS: dict[str, dict] = {
    "linux-4.4": {"profile": "linux-4.4"},
    "linux": {"profile": "linux"},
    "linux-4.4-rto1s": {"profile": "linux-4.4", "min_rto": "1s"},
}
STACK_LABELS = {
    "linux-4.4": "Linux 4.4 (the seed's era), Reno, SACK off, IW 1",
    "linux": "Linux 6.x (today's kernel), Reno, SACK off, IW 1",
    "linux-4.4-rto1s": "Linux 4.4 with a 1 s minimum RTO (RFC 6298's floor)",
}

DEFAULTS = {"delay_ms": 80.0, "after_s": 10.0, "roam_base_s": 10.0}

FIG7_DISCONNECT = [1.5, 2.0, 3.0, 4.0, 5.0, 6.0]
FIG8_HOPS = [3, 5, 7]
QUICK_DISCONNECT = [2.0, 4.0]
QUICK_HOPS = [3, 7]


def base() -> dict:
    """The shipped scenario as a dict."""
    with open(repo_root() / "scenarios" / "sdn-zwa.toml", "rb") as f:
        return tomllib.load(f)


def roam_instant(seed: int, disconnect_s: float = 0.0, hops: int = 2) -> float:
    """When the MN leaves AP1 in run `seed`: 10 s plus a seeded offset in
    [0, 1) s, so the disassociation falls at a different phase of the
    sender's window-limited bursts in every run (the statistics module's
    T0..T2 test depends on that phase). The draw also depends on the
    disconnection period and the hop count, so every point of a sweep has
    phases of its own: pooled over periods, n runs are n independent
    phases, not the same ten reused."""
    return DEFAULTS["roam_base_s"] + random.Random(f"{seed}/{disconnect_s:g}/{hops}").random()


def links_to_ap1(hops: int) -> int:
    """Links from the CN to AP1 (the MN's AP before the roam)."""
    return 4 if hops == 2 else hops


def freeze_warning_s(hops: int) -> float:
    """Freeze-TCP's warning period: FREEZE_WARNING_RTTS round trips of the
    wired path CN -> AP1 (the radio hop adds well under a millisecond)."""
    return FREEZE_WARNING_RTTS * 2 * links_to_ap1(hops) * DEFAULTS["delay_ms"] / 1000.0


def _legacy(sc: dict, mtcp: bool) -> None:
    """No controller: switches learn where stations are; APs announce
    (re)associations with IAPP ADD-notify. With `mtcp`, an M-TCP supervisor
    on every AP, each naming the others as peers."""
    sc.pop("sdn", None)
    for n in sc["nodes"]:
        if n["name"].startswith("s"):
            n["learn_hosts"] = True
    if mtcp:
        aps = [r["node"] for r in sc["radios"] if r.get("mode") == "ap"]
        sc["agents"] = [{"node": ap, "kind": "mtcp", "peers": [p for p in aps if p != ap]} for ap in aps]
        sc["flows"][0]["tcp"]["initial_cwnd"] = MTCP_INITIAL_CWND


def scenario(
    base_doc: dict, arm: str, hops: int, disconnect_s: float, seed: int, roam_at: float | None = None, t0t2_ms: float | None = None, stack: str = SEED_STACK
) -> dict:
    """One run's scenario. `arm` is a key of ARMS or "noroam"; `t0t2_ms`
    sets every control channel's latency so that T0 -> T2 takes that long;
    `stack` is a key of STACKS."""
    if hops not in ATTACH:
        raise ValueError(f"hop count {hops} not in {sorted(ATTACH)}")
    if stack not in STACKS:
        raise ValueError(f"stack {stack!r} not in {sorted(STACKS)}")
    sc = copy.deepcopy(base_doc)
    t = roam_instant(seed, disconnect_s, hops) if roam_at is None else roam_at
    for link in sc["links"]:
        link["delay"] = f"{DEFAULTS['delay_ms']:g}ms"
        if link.get("name") == CN_LINK:
            link["b"] = ATTACH[hops]
    for r in sc["radios"]:
        if r["node"] == MN_RADIO:
            if arm == "noroam":
                # The reference: on AP2 (the post-roam path) all along.
                r.pop("roam_at", None)
                r["ap"] = "ap2"
            else:
                r["roam_at"] = [[f"{t:.6f}s", "ap2", f"{disconnect_s:g}s"]]
    apps = ARMS.get(arm, ARMS["bare"])
    if apps is None:
        _legacy(sc, mtcp=arm == "mtcp")
    else:
        sc["sdn"]["applications"] = list(apps)
    if t0t2_ms is not None:
        lat = (t0t2_ms - 2 * PROCESSING_MS) / 3.0
        if lat < 0:
            raise ValueError(f"T0->T2 of {t0t2_ms} ms is below two processing times")
        for ch in sc["sdn"]["channels"]:
            ch["latency"] = f"{lat * 1000:.0f}us"
            ch["processing"] = f"{PROCESSING_MS:g}ms"
    if arm == "freeze":
        for r in sc["radios"]:
            if r["node"] == MN_RADIO:
                r["handoff_warning"] = f"{freeze_warning_s(hops) * 1000:.0f}ms"
        sc["flows"][0]["tcp"]["freeze"] = True
    sc["flows"][0]["tcp"].update(STACKS[stack])
    if arm.endswith("-cubic-sack"):
        sc["flows"][0]["tcp"]["cc"] = "cubic"
        sc["flows"][0]["tcp"]["sack"] = True
    # Deliveries dated to 10 ms for the interruption metric.
    sc["sim"]["series_interval"] = SERIES_INTERVAL
    sc["sim"]["duration"] = f"{t + disconnect_s + DEFAULTS['after_s']:.6f}s"
    sc["sim"]["seed"] = seed
    return sc
