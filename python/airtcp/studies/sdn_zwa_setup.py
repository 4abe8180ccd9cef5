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

from .runner import repo_root

#: Arms: controller applications (None: no SDN, legacy L2 roaming).
ARMS = {
    "bare": ["mobility", "forwarding"],
    "zwa": ["mobility", "statistics", "zwa", "forwarding"],
    "zwa-nostats": ["mobility", "zwa", "forwarding"],
}
ARM_LABELS = {
    "bare": "bare TCP (controller routes only)",
    "zwa": "SDN-assisted ZWA (statistics module on)",
    "zwa-nostats": "ZWA without the statistics module",
    "noroam": "no roam (reference)",
}
#: CN attachment switch per hop count (links CN -> AP2).
ATTACH = {2: "s2", 3: "s4", 4: "s5", 5: "s6", 6: "s7", 7: "s8"}
#: Index of the CN's link and of the MN's radio in the shipped file.
CN_LINK = "cn-attach"
MN_RADIO = "mn"

DEFAULTS = {"delay_ms": 80.0, "after_s": 10.0, "roam_base_s": 10.0}

FIG7_DISCONNECT = [1.5, 2.0, 3.0, 4.0, 5.0, 6.0]
FIG8_HOPS = [3, 5, 7]
QUICK_DISCONNECT = [2.0, 4.0]
QUICK_HOPS = [3, 7]


def base() -> dict:
    """The shipped scenario as a dict."""
    with open(repo_root() / "scenarios" / "sdn-zwa.toml", "rb") as f:
        return tomllib.load(f)


def roam_instant(seed: int) -> float:
    """When the MN leaves AP1 in run `seed`: 10 s plus a seeded offset in
    [0, 1) s, so the disassociation falls at a different phase of the
    sender's window-limited bursts in every run (the statistics module's
    T0..T2 test depends on that phase)."""
    return DEFAULTS["roam_base_s"] + random.Random(seed).random()


def scenario(base_doc: dict, arm: str, hops: int, disconnect_s: float, seed: int, roam_at: float | None = None) -> dict:
    """One run's scenario. `arm` is a key of ARMS or "noroam"."""
    if hops not in ATTACH:
        raise ValueError(f"hop count {hops} not in {sorted(ATTACH)}")
    sc = copy.deepcopy(base_doc)
    t = roam_instant(seed) if roam_at is None else roam_at
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
    sc["sdn"]["applications"] = list(ARMS.get(arm, ARMS["bare"]))
    sc["sim"]["duration"] = f"{t + disconnect_s + DEFAULTS['after_s']:.6f}s"
    sc["sim"]["seed"] = seed
    return sc
