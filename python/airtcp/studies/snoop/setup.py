"""Setup of the snoop study (seed 004: Ng, Chow, Trajković, "Performance
Evaluation of TCP over WLAN 802.11 with the Snoop Performance Enhancing
Proxy", OPNET): the network, the 802.11b airtime model, the seed's TCP
parameters, the three scenarios, the arms compared, the seed's claims, and
the scenario dict of one run. Shared by the study (``snoop``), its report
and its plots.

Topology of every scenario::

    server --wired: 100 Mb/s, 1 ms, Ethernet-- ap ==wireless: 11 Mb/s 802.11b airtime== m1 [, m2]

one point-to-point wireless link per mobile. Every loss comes from the
seed's packet error generator (PEG) agent; the links lose nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...runner.study import repo_root

REPO = repo_root()

# --- the wireless hop: 802.11b DCF airtime as per-frame overhead -------------------
#
# IEEE 802.11-2016, clause 16 (HR/DSSS PHY, "802.11b"), PHY characteristics:
# aSlotTime 20 us, aSIFSTime 10 us, aCWmin 31; the long PLCP preamble (144
# bits) and PLCP header (48 bits) are sent at 1 Mb/s = 192 us. Clause 10.3
# (DCF): DIFS = aSIFSTime + 2 x aSlotTime = 50 us; the backoff is drawn
# uniformly from [0, CW] slots with CW = aCWmin for a first attempt, so its
# mean is CWmin/2 slots. Every unicast data frame is answered after SIFS by a
# 14-byte Ack control frame (9.3.1.4) at a basic rate (10.7, multirate
# support): 2 Mb/s, the highest of the 802.11b basic rate set {1, 2} Mb/s,
# with its own 192-us PLCP. The data frame carries IP behind a 24-byte MAC
# header (three addresses, infrastructure mode) and an 8-byte LLC/SNAP header
# (RFC 1042), plus a 4-byte FCS. Not modelled: RTS/CTS (assumed off), MAC
# retransmissions (the seed's losses come from its PEG above the MAC) and
# contention between stations.
WLAN = {
    "rate_bps": 11_000_000,
    "slot_us": 20.0,
    "sifs_us": 10.0,
    "cw_min": 31,
    "plcp_us": 192.0,
    "mac_header_bytes": 24,
    "llc_snap_bytes": 8,
    "fcs_bytes": 4,
    "ack_bytes": 14,
    "ack_rate_bps": 2_000_000,
}


def wlan_difs_us(w: dict = WLAN) -> float:
    return w["sifs_us"] + 2 * w["slot_us"]


def wlan_fixed_us(w: dict = WLAN) -> float:
    """Airtime of one data exchange that does not depend on the frame's
    bytes: DIFS + mean backoff + PLCP + SIFS + the ACK with its PLCP."""
    backoff = w["cw_min"] / 2 * w["slot_us"]
    ack = w["plcp_us"] + w["ack_bytes"] * 8 / (w["ack_rate_bps"] / 1e6)
    return wlan_difs_us(w) + backoff + w["plcp_us"] + w["sifs_us"] + ack


def wlan_mac_bytes(w: dict = WLAN) -> int:
    """Bytes the data frame adds to the IP packet."""
    return w["mac_header_bytes"] + w["llc_snap_bytes"] + w["fcs_bytes"]


def wlan_overhead_bytes(w: dict = WLAN) -> int:
    """The link's `overhead_bytes` at `rate_bps` that makes a frame take
    the airtime of the whole exchange: the fixed time as bytes at the data
    rate, plus the MAC framing (rounded to a byte, 0.73 us at 11 Mb/s)."""
    return round(wlan_fixed_us(w) * w["rate_bps"] / 8e6) + wlan_mac_bytes(w)


def wlan_exchange_us(ip_bytes: int, w: dict = WLAN) -> float:
    """Real airtime of one 802.11b exchange carrying `ip_bytes` of IP."""
    return wlan_fixed_us(w) + (ip_bytes + wlan_mac_bytes(w)) * 8 / (w["rate_bps"] / 1e6)


def link_time_us(ip_bytes: int, overhead: int, rate_bps: float) -> float:
    """What the simulator's link takes for the same packet."""
    return (ip_bytes + overhead) * 8 / (rate_bps / 1e6)


# --- scenario parameters ------------------------------------------------------------

#: IP + TCP headers of a data segment without options (timestamps off).
HEADERS = 40

DEFAULTS = {
    # The seed's transfer: "Mobile 1 uploads a 100,000-byte file". For the
    # downloads of scenario 2 the seed gives no size; we use the same.
    "bytes": 100_000,
    # Cap on simulated time per run: at 40 % loss with RTO backoff up to
    # 64 s a transfer can take minutes; runs not done by then are counted
    # as unfinished, never dropped silently.
    "duration_s": 600.0,
    # Wired side: the seed's figures put the host server behind the access
    # point (fixed host - base station - mobile, as in Balakrishnan et al.);
    # the slides do not give the link, so a 100BASE-TX Ethernet LAN.
    # Per frame: preamble+SFD 8, MAC header 14, FCS 4, inter-frame gap 12
    # bytes (IEEE 802.3). 1 ms one way stands for the LAN, switch and server;
    # it is small beside a 2.5-ms wireless exchange and a 1-s RTO floor.
    "wired_rate": "100Mbps",
    "wired_delay": "1ms",
    "wired_overhead_bytes": 8 + 14 + 4 + 12,
    "wired_queue_packets": 100,
    # Wireless side: 802.11b at 11 Mb/s as above; propagation ~300 m.
    "wireless_rate": "11Mbps",
    "wireless_delay": "1us",
    "wireless_overhead_bytes": wlan_overhead_bytes(),
    # AP / mobile transmit queue. A flow never has more than its 8760-byte
    # receive window (< 4 segments) in flight, so no queue overflows.
    "wireless_queue_packets": 50,
    # Snoop: the seed's fixed 1-s retransmission timer; cache size (the
    # seed's "transmission window: four packets" never comes close).
    "snoop_timer": "1s",
    "snoop_cache_packets": 64,
    # I-TCP relay buffer between its two connections.
    "itcp_relay_bytes": 65536,
    # cwnd/sequence/cache time series only for the plotted runs.
    "series_interval": "10ms",
}

#: The study's TCP: the named profile of the stack the seed ran, OPNET
#: Modeler's TCP of 2003 as the seed's "TCP parameters" table sets it
#: (crates/tcp/src/profiles/opnet.rs, docs/tcp-profiles.md). Every value of
#: the table is in the profile; `SEED_TABLE_TCP` below is the same table set
#: key by key over today's Linux, run as the `*-seed-table` arms.
TCP = {"profile": "opnet-2003"}

#: Values of the seed's table the report and the airtime model use; the
#: profile carries the same (a test checks it against the resolved config).
SEED_MSS = 2264  # "Maximum Segment Size (bytes) 2264"
SEED_RCV_BUF = 8760  # "Receiver Buffer Size (bytes) 8760"
SEED_MIN_RTO_S = 0.5  # "Minimum RTO 0.5"
SEED_TIMER_GRANULARITY_S = 0.5  # "Timer Granularity 0.5"
#: Not in the seed's table: the profile's assumption (RFC 2581's one segment).
INITIAL_CWND = 1

#: The seed's TCP parameter table as [flows.tcp] keys over today's `linux`
#: profile: the study's default until it moved to `opnet-2003`, kept as the
#: `tcp-seed-table` / `snoop-seed-table` arms. It reads "Timer Granularity
#: 0.5" as RFC 6298's G, and the keys it leaves unset come from `linux`
#: (`PROFILE_VS_TABLE` lists every value in which it differs from the profile).
SEED_TABLE_TCP = {
    "profile": "linux",  # the base every unset key comes from
    "cc": "reno",  # Reno congestion avoidance (fast retransmit + fast recovery enabled)
    "recovery": "reno",
    "mss": SEED_MSS,  # = 2304 (802.11 maximum MSDU) - 40: no TCP options on data
    "rcv_buf": SEED_RCV_BUF,
    "window_scaling": False,  # an 8760-byte window needs none
    "delack_count": 2,  # "Segment/Clock Based" delayed ACK: every 2nd segment ...
    "delack_timeout": "200ms",  # ... or after the 0.2-s maximum ACK delay
    "sack": False,
    "timestamps": False,
    # OPNET's TCP of 2003 has neither F-RTO (RFC 5682, 2010) nor undo of
    # window reductions (Linux's tcp_try_undo_*, Eifel): off, as the seed ran.
    "frto": False,
    "undo": False,
    "eifel": False,
    "dsack": False,
    # Linux 6.6's immediate ACK of a pushed full-sized segment (2023) and
    # the PSH marking it keys on: not in OPNET's TCP of 2003 (the
    # `opnet-2003` profile has neither), so the table arm keeps them off.
    "push_ack": "off",
    "push_segs": 0,
    # Linux's RTT samples from new SACKs (3.12): with SACK and timestamps
    # off the two sources give the same samples; named as the profile's.
    "rtt_samples": "timestamps",
    # Linux's SACK compression (4.18) and quick ACKs after a gap longer
    # than the RTO: not in OPNET's TCP of 2003 (nor in `opnet-2003`).
    "comp_sack_nr": 0,
    "idle_quickack": False,
    # Linux's adaptive delayed-ACK timeout (icsk_ack.ato), its jiffy timers
    # on the kernel's timer wheel (kernel/time/timer.c, 4.8) and PSH forced
    # on multi-segment TSO chunks (4.11): OPNET's TCP of 2003 has a fixed
    # delayed-ACK timer ("Delayed Ack Mechansim Segment/Clock Based",
    # "Maximum Ack Delay 0.2"), no Linux timer wheel (this reading's
    # timers fire at their deadlines on its 1-ms clock) and PSH as
    # `push_segs` says, as `opnet-2003` has them.
    "delack_adaptive": False,
    "timer_wheel": False,
    "push_tso": False,
    "initial_rto": "1s",
    "min_rto": "500ms",
    "max_rto": "64s",
    "clock_granularity": "500ms",  # "Timer Granularity 0.5": RFC 6298's G
    "persist_min": "1s",  # "Persist Timeout 1.0"
    "initial_cwnd": INITIAL_CWND,
    "limited_transmit": False,
    # The timers of the simulator's former default, which this reading was
    # calibrated with: RFC 6298's RTO computation on a 1-ms clock.
    "rto_timer": "rfc6298",
    "initial_quickacks": 0,
    "hz": 1000,
    "persist_max": "60s",
}

#: Every resolved [flows.tcp] value in which the `opnet-2003` profile (the
#: default) and the seed's table set key by key (`SEED_TABLE_TCP`) differ:
#: key -> (profile, table, the seed's sentence or "not in the table", which
#: reading the default follows and why). A test resolves both and checks
#: that this is the whole difference.
PROFILE_VS_TABLE = {
    "clock_granularity": (
        "0s",
        "500ms",
        '"Timer Granularity 0.5"',
        "the profile: OPNET's RTO is SRTT + 4 RTTVAR (\"RTT Deviation Coefficient 4.0\") with no RFC 6298 G term; "
        "its granularity is the tick below, so adding G as well would count the 0.5 s twice",
    ),
    "rto_tick": (
        "500ms",
        "none",
        '"Timer Granularity 0.5"',
        "the profile: OPNET measures RTTs and runs its retransmission timer in 0.5-s ticks (a 1-s RTO "
        "fires about 1.5 s after the loss); the table reading has a 1-ms clock",
    ),
    "rack": (
        False,
        True,
        "not in the table (2003: RACK is RFC 8985, 2021)",
        "the profile: the table reading inherits it from `linux`; without SACK it has nothing to act on",
    ),
    "tlp": (
        False,
        True,
        "not in the table (2003: the tail loss probe came in Linux 3.10, 2013)",
        "the profile: inherited from `linux` in the table reading; inactive there, since it needs SACK",
    ),
    "nodelay": (
        True,
        False,
        '"Nagle SWS Algorithm Disabled"',
        "the profile, as the table says; the table reading inherits Linux's Nagle (Minshall form), which "
        "never holds a segment here: the transfer writes full segments and only its last one is short",
    ),
    "persist_max": (
        "64s",
        "60s",
        '"Maximum RTO 64" (the persist timer backs off to the maximum RTO)',
        "the profile; unused, since the receiver reads at once and its window never closes",
    ),
    "snd_buf": (
        65535,
        131072,
        "not in the table",
        "the profile's assumption; the 8760-byte receive window bounds the flight either way",
    ),
    "snd_buf_autotune": (
        False,
        True,
        "not in the table",
        "the profile (no autotuning in 2003); no effect, as above",
    ),
    "shrink_policy": (
        "rfc",
        "linux",
        "not in the table",
        "the profile; no effect: the receiver never shrinks its window",
    ),
    "ecn": (
        0,
        2,
        "not in the table",
        "the profile (no ECN); no effect: nothing on the path marks",
    ),
}

#: How each row of the seed's table maps to the `opnet-2003` profile (for the report).
TCP_TABLE = [
    (
        "Maximum Segment Size",
        "2264 bytes",
        "mss = 2264",
        "2264 + 40 = 2304, 802.11's largest MSDU: one segment per frame, no room for options",
    ),
    (
        "Receiver Buffer Size",
        "8760 bytes",
        "rcv_buf = 8760",
        "3.87 segments: at most 3 full segments + 1968 bytes in flight",
    ),
    (
        "Receiver Buffer Usage Threshold",
        "0.0",
        "(none)",
        "the receiving application reads at once (recv_rate unlimited)",
    ),
    ("Delayed ACK", "segment/clock based, 0.2 s", "delack_count = 2, delack_timeout = 200ms", ""),
    (
        "Fast Retransmit / Fast Recovery",
        "enabled",
        'cc = "reno", recovery = "reno"',
        "RFC 5681 Reno: recovery ends on the first new ACK",
    ),
    ("Selective ACK", "disabled", "sack = false", 'the "sack" arm turns it on'),
    ("Nagle SWS", "disabled", "nodelay = true", "no Nagle; the transfer app writes whole segments anyway"),
    ("Karn's algorithm", "enabled", "(built in)", "no RTT sample from a retransmitted segment"),
    (
        "Retransmission threshold",
        "attempt based",
        "max_retries = 15 (default)",
        "the seed gives no count; 0.4^16 < 1e-6, so no run aborts",
    ),
    ("Initial / minimum / maximum RTO", "1.0 / 0.5 / 64 s", "initial_rto = 1s, min_rto = 500ms, max_rto = 64s", ""),
    (
        "RTT gain / deviation gain / deviation coefficient",
        "0.125 / 0.25 / 4.0",
        "(built in)",
        "RFC 6298's alpha = 1/8, beta = 1/4, K = 4 (rto_timer = rfc6298)",
    ),
    (
        "Timer granularity",
        "0.5 s",
        "rto_tick = 500ms, clock_granularity = 0",
        "OPNET's tick: RTT samples and the retransmission timer run in whole 0.5-s ticks, and RTO = SRTT + 4 RTTVAR "
        "has no G term; the `*-seed-table` arms read it as RFC 6298's G instead (RTO >= SRTT + 0.5 s on a 1-ms clock)",
    ),
    ("Persist timeout", "1.0 s", "persist_min = 1s", "never used: the receiver reads at once"),
    (
        "Timestamps (not in the table)",
        "-",
        "timestamps = false",
        "MSS 2264 leaves no room for the 12-byte option in a 2304-byte MSDU; OPNET's TCP has them off by default",
    ),
    (
        "Initial window (not in the table)",
        "-",
        "initial_cwnd = 1",
        "assumption (RFC 2001-era TCP); with a 3.87-segment receive window it changes a 100-kB transfer by one RTT",
    ),
    (
        "Limited transmit (not in the table)",
        "-",
        "limited_transmit = false",
        "not a mechanism the seed lists; the receive window leaves no room for it anyway",
    ),
]


@dataclass(frozen=True)
class Setup:
    """One of the seed's scenarios."""

    id: str
    title: str
    mobiles: tuple
    #: "upload" (mobile -> server) or "download" (server -> mobile)
    direction: str
    #: node with the PEG whose send and receive drop rates are varied
    peg_node: str
    #: nodes where the seed enables Snoop
    snoop_nodes: tuple
    #: whether the I-TCP arm is run (see ARM_NOTES["itcp"])
    itcp: bool
    #: what the seed shows for this scenario
    seed_claim: str


SETUPS = {
    "s1": Setup(
        "s1",
        "one mobile uploads; Snoop and PEG on the mobile",
        ("m1",),
        "upload",
        "m1",
        ("m1",),
        True,
        "~68 times improvement in upload response time at 30 % error rate",
    ),
    "s2": Setup(
        "s2",
        "two mobiles download; Snoop and PEG at the server",
        ("m1", "m2"),
        "download",
        "server",
        ("server",),
        True,
        "Snoop can handle multiple connections",
    ),
    "s3": Setup(
        "s3",
        "two mobiles upload; Snoop on mobile 2 only, PEG at the server",
        ("m1", "m2"),
        "upload",
        "server",
        ("m2",),
        False,
        "mobile with Snoop has shorter upload time",
    ),
}

#: The seed's headline number (scenario 1, upload, 30 % drop rate).
SEED_S1_RATIO = 68.0
SEED_S1_RATE = 0.3

#: OPNET's TCP gives up after a number of retransmission attempts (the
#: seed's table: "Retransmission Threshold: Attempt Based", no count). The
#: attempt-limit arms run plain TCP with the connection aborted after this
#: many retransmissions of one segment; a transfer that aborts is counted
#: unfinished. The counts are a sweep over plausible settings, not OPNET's
#: documented default, which we could not consult.
ATTEMPT_LIMITS = (3, 8)
ARMS = ["tcp", "snoop", "snoop-adaptive", "sack", "itcp", "tcp-allpkts", "snoop-allpkts", "tcp-seed-table",
        "snoop-seed-table", "tcp-linux", "snoop-linux", "tcp-linux-norack", "snoop-linux-norack", "tcp-linux-notlp",
        "snoop-linux-notlp", "tcp-linux-nosack", "snoop-linux-nosack"] + [
            f"tcp-attempts{n}" for n in ATTEMPT_LIMITS]
#: The seed's workload that every stack keeps: its table's MSS and receive
#: buffer, and no timestamps (2264 + 40 bytes already fill 802.11's largest MSDU).
WORKLOAD_KEYS = {"mss": SEED_MSS, "rcv_buf": SEED_RCV_BUF, "timestamps": False}
#: Arms that run TCP (and Snoop, for `snoop-*`) on another stack than the
#: default `opnet-2003`: arm -> (profile, keys set beside it).
#: `*-seed-table` is the seed's table set key by key over `linux` (the
#: study's former default: G = 0.5 s on a 1-ms clock instead of OPNET's
#: tick); `linux` is today's kernel (SACK, RACK, TLP, F-RTO, 200-ms minimum
#: RTO) carrying the seed's workload.
PROFILE_ARMS: dict[str, tuple[str, dict]] = {
    "tcp-seed-table": ("linux", {k: v for k, v in SEED_TABLE_TCP.items() if k != "profile"}),
    "snoop-seed-table": ("linux", {k: v for k, v in SEED_TABLE_TCP.items() if k != "profile"}),
    "tcp-linux": ("linux", WORKLOAD_KEYS),
    "snoop-linux": ("linux", WORKLOAD_KEYS),
    # Today's kernel with one mechanism switched off, to find what separates
    # it from OPNET's stack: RACK loss detection (RFC 8985; SACK and the tail
    # loss probe stay on), the tail loss probe, and SACK (with it RACK and
    # the loss probe, which act only on SACK information).
    # docs/study-snoop.md has the probes that add them to OPNET's stack.
    "tcp-linux-norack": ("linux", {**WORKLOAD_KEYS, "rack": False}),
    "snoop-linux-norack": ("linux", {**WORKLOAD_KEYS, "rack": False}),
    "tcp-linux-notlp": ("linux", {**WORKLOAD_KEYS, "tlp": False}),
    "snoop-linux-notlp": ("linux", {**WORKLOAD_KEYS, "tlp": False}),
    "tcp-linux-nosack": ("linux", {**WORKLOAD_KEYS, "sack": False}),
    "snoop-linux-nosack": ("linux", {**WORKLOAD_KEYS, "sack": False}),
}
#: The stacks of the study's claims: (TCP arm, Snoop arm, name). The first
#: is the study's default, the seed's profile.
STACK_PAIRS = [("tcp", "snoop", "opnet-2003 (default)"), ("tcp-seed-table", "snoop-seed-table", "the seed's table, key by key"),
               ("tcp-linux", "snoop-linux", "linux (today's kernel)"),
               ("tcp-linux-norack", "snoop-linux-norack", "linux, RACK off"),
               ("tcp-linux-notlp", "snoop-linux-notlp", "linux, TLP off"),
               ("tcp-linux-nosack", "snoop-linux-nosack", "linux, SACK off")]
#: The stack pairs that switch one mechanism off (columns of the report's
#: stack table that do not count in its verdict): arm -> the mechanism.
PROBE_MECHANISMS = {
    "tcp-linux-norack": "RACK loss detection (RFC 8985)",
    "tcp-linux-notlp": "the tail loss probe (RFC 8985)",
    "tcp-linux-nosack": "SACK (and with it RACK and the tail loss probe, which act only on SACK information)",
}
#: The arms of --quick's scenario 1 (the attempt-limit arms are left out).
QUICK_ARMS = ["tcp", "snoop", "snoop-adaptive", "sack", "itcp", "tcp-allpkts", "snoop-allpkts"]
#: Arms whose PEG drops every packet it passes (TCP ACKs and control too),
#: the PEG's "all packets" option, instead of data only.
ALL_PACKETS_SUFFIX = "-allpkts"


def base_arm(arm: str) -> str:
    """The TCP / agent arm under the PEG option: "snoop-allpkts" -> "snoop"."""
    return arm.removesuffix(ALL_PACKETS_SUFFIX)


def agent_arm(arm: str) -> str:
    """The agent arm under the PEG option and the profile: "snoop-linux-nosack" -> "snoop"."""
    arm = base_arm(arm)
    if arm in PROFILE_ARMS:
        return arm.split("-")[0]
    return arm
ARM_NOTES = {
    "tcp": "the seed's baseline: its TCP (the `opnet-2003` profile), PEG only",
    "snoop": "the seed's mechanism: Snoop above the PEG where the seed enables it, fixed 1-s local timer",
    "snoop-adaptive": "the same with the local timer from wireless-hop RTT samples (Balakrishnan et al. 1995; the seed's future work)",
    "sack": "plain TCP with SACK (RFC 2018/6675 recovery; RACK and TLP off, as in the profile), no agent",
    "itcp": "I-TCP split connection at the AP (one proxy per mobile interface), no Snoop; run where the AP is the "
    "natural proxy point (s1, s2); s3 compares mobiles with and without Snoop in one run, which a proxy at the "
    "AP serving both would blur",
    "tcp-allpkts": "`tcp` with the PEG's \"all packets\" option: TCP ACKs are dropped at the same rate as data",
    "snoop-allpkts": "`snoop` with the PEG's \"all packets\" option",
    "tcp-seed-table": "`tcp` on the seed's table set key by key over `linux` (the study's former default): "
    "\"Timer Granularity 0.5\" as RFC 6298's G on a 1-ms clock instead of OPNET's 0.5-s tick",
    "snoop-seed-table": "`snoop` with the seed's table set key by key at both ends",
    "tcp-linux": "`tcp` on today's Linux (`linux` profile: SACK, RACK, TLP, F-RTO and undo, 200-ms minimum RTO, "
    "initial window 10) with the seed's MSS 2264, 8760-byte receive buffer and no timestamps",
    "snoop-linux": "`snoop` with the `linux` TCP profile at both ends (the same workload keys)",
    "tcp-linux-norack": "`tcp-linux` with RACK loss detection off (SACK and the tail loss probe on)",
    "snoop-linux-norack": "`snoop-linux` with RACK off",
    "tcp-linux-notlp": "`tcp-linux` with the tail loss probe off (SACK and RACK on)",
    "snoop-linux-notlp": "`snoop-linux` with the tail loss probe off",
    "tcp-linux-nosack": "`tcp-linux` with SACK off (and with it RACK and the tail loss probe)",
    "snoop-linux-nosack": "`snoop-linux` with SACK off",
    **{
        f"tcp-attempts{n}": f"`tcp` that aborts the connection after {n} retransmissions of one segment (OPNET's "
        "attempt-based retransmission threshold; the count is a sweep point, the seed gives none)"
        for n in ATTEMPT_LIMITS
    },
}

FULL_RATES = [round(0.05 * i, 2) for i in range(9)]
QUICK_RATES = [0.0, 0.1, 0.3]
#: --quick: scenario 1 with every arm, scenario 2 with the seed's two.
QUICK_PLAN = {"s1": QUICK_ARMS, "s2": ["tcp", "snoop"]}


def arms_for(setup: Setup, arms: list[str]) -> list[str]:
    return [a for a in arms if a != "itcp" or setup.itcp]


def wireless_link(node: str) -> str:
    """Name of the link (interface) through which `node` faces the wireless hop."""
    return "server-ap" if node in ("server", "ap") else f"ap-{node}"


def tcp_config(arm: str) -> dict:
    """[flows.tcp] of `arm`: the `opnet-2003` profile unless the arm names
    another stack (PROFILE_ARMS)."""
    arm = base_arm(arm)
    if arm in PROFILE_ARMS:
        profile, keys = PROFILE_ARMS[arm]
        return {"profile": profile, **keys}
    tcp = dict(TCP)
    if arm.startswith("tcp-attempts"):
        tcp["max_retries"] = int(arm.removeprefix("tcp-attempts"))
    if arm == "sack":
        # SACK recovery (RFC 6675) of the seed's era: RACK and the tail loss
        # probe (RFC 8985) stay off, as the profile has them.
        tcp["sack"] = True
    return tcp


def agents(setup: Setup, arm: str, drop: float, mac: str = "p2p") -> list[dict]:
    """The agents of one run, in stack order per node (Snoop above the PEG).
    On the 802.11 variant the agents of a mobile name its radio."""
    d = DEFAULTS
    out = []
    all_packets = arm.endswith(ALL_PACKETS_SUFFIX)
    arm = agent_arm(arm)
    if arm in ("snoop", "snoop-adaptive"):
        for node in setup.snoop_nodes:
            out.append(
                {
                    "node": node,
                    "kind": "snoop",
                    "wireless": wireless_iface(node, mac),
                    "timer": d["snoop_timer"] if arm == "snoop" else "adaptive",
                    "cache_packets": d["snoop_cache_packets"],
                }
            )
    peg = {
        "node": setup.peg_node,
        "kind": "peg",
        "send_data_drop_rate": drop,
        "recv_data_drop_rate": drop,
        "data_only": not all_packets,
    }
    if mac == "80211" and setup.peg_node in setup.mobiles:
        peg["iface"] = "radio"  # the mobile's only interface: the same drops as without `iface`
    out.append(peg)
    if arm == "itcp" and mac == "80211":
        # one proxy on the AP's radio splits every mobile's connection
        out.append(
            {
                "node": "ap",
                "kind": "itcp",
                "wireless": "radio",
                "relay_bytes": d["itcp_relay_bytes"],
                "tcp": tcp_config("tcp"),
            }
        )
    elif arm == "itcp":
        for m in setup.mobiles:
            out.append(
                {
                    "node": "ap",
                    "kind": "itcp",
                    "wireless": wireless_link(m),
                    "relay_bytes": d["itcp_relay_bytes"],
                    "tcp": tcp_config("tcp"),
                }
            )
    return out


def scenario(
    setup: Setup,
    arm: str,
    drop: float,
    *,
    duration_s: float | None = None,
    nbytes: int | None = None,
    series: bool = False,
    mac: str = "p2p",
) -> dict:
    """The scenario dict of one run; `mac` "p2p" (point-to-point airtime
    links) or "80211" (the 802.11b DCF MAC, see `radios`)."""
    if mac not in MACS:
        raise ValueError(f"mac {mac!r}: expected one of {', '.join(MACS)}")
    d = DEFAULTS
    links = [
        {
            "name": "server-ap",
            "a": "server",
            "b": "ap",
            "rate": d["wired_rate"],
            "delay": d["wired_delay"],
            "overhead_bytes": d["wired_overhead_bytes"],
            "queue_packets": d["wired_queue_packets"],
        }
    ]
    flows = []
    for m in setup.mobiles:
        if mac == "p2p":
            links.append(
                {
                    "name": wireless_link(m),
                    "a": "ap",
                    "b": m,
                    "rate": d["wireless_rate"],
                    "delay": d["wireless_delay"],
                    "overhead_bytes": d["wireless_overhead_bytes"],
                    "queue_packets": d["wireless_queue_packets"],
                }
            )
        src, dst = (m, "server") if setup.direction == "upload" else ("server", m)
        flows.append(
            {
                "name": f"{m}-{setup.direction}",
                "from": src,
                "to": dst,
                "app": "transfer",
                "bytes": nbytes or d["bytes"],
                "tcp": tcp_config(arm),
            }
        )
    sc = {
        "sim": {
            "duration": f"{duration_s or d['duration_s']:g}s",
            "series_interval": d["series_interval"] if series else "0s",
        },
        "nodes": [{"name": n} for n in ("server", "ap", *setup.mobiles)],
        "links": links,
        "flows": flows,
        "agents": agents(setup, arm, drop, mac),
    }
    if mac == "80211":
        sc["wifi"] = dict(WIFI)
        sc["radios"] = radios(setup)
    return sc


# --- the 802.11b DCF MAC variant ----------------------------------------------------
#
# The same scenarios with the wireless hop on the simulator's 802.11 MAC
# (`[wifi]`, `[[radios]]`) instead of the point-to-point airtime link: the
# AP's radio is an AP ("mode = ap"), each mobile a station associated with
# it from the start, all on one channel a few metres apart. The exchange is
# then the real DCF one (DIFS, a random backoff drawn per attempt, long PLCP,
# MAC/LLC/FCS, SIFS, ACK at the basic rate), with contention: the mobile's
# data and the AP's TCP ACKs (or the two mobiles of s2/s3) compete for the
# one medium and can collide, and the MAC retries a collided frame (up to
# dot11ShortRetryLimit = 7 attempts, doubling CW). The PEG and Snoop stay
# agents above the MAC, so a PEG drop is never retried by the MAC. Beacons
# (every 102.4 TU at 1 Mb/s) take a little airtime too.

#: Wireless variants ("mac" label of a run): the point-to-point airtime link
#: (the study's original model, whose results the README shows) and the
#: 802.11b DCF MAC.
#: The wireless hops, the default first: the seed ran 802.11 (OPNET's WLAN
#: model), so the DCF MAC is the default; point-to-point is the fast option.
MACS = ["80211", "p2p"]
MAC_NOTES = {
    "p2p": "point-to-point link per mobile, one 802.11b exchange's mean airtime as per-frame overhead (no contention)",
    "80211": "the simulator's 802.11b DCF MAC at 11 Mb/s: one shared medium, random backoff, collisions, MAC retries",
}
#: `[wifi]` of the 802.11 variant.
WIFI = {
    "standard": "b",
    "rate": "11Mbps",
    # same interface queue as the point-to-point links
    "queue_packets": 50,
}
#: Positions (m) of the radios: the mobiles a few metres from the AP (and
#: from each other), well inside each other's range: no hidden terminal.
POSITIONS = {"ap": (0.0, 0.0), "m1": (5.0, 0.0), "m2": (0.0, 5.0)}
#: Name of the AP's radio network.
SSID = "seed004"


def wireless_iface(node: str, mac: str = "p2p") -> str:
    """The interface through which `node` faces the wireless hop: its link's
    name, or "radio" on the 802.11 variant (the AP's single radio serves
    every mobile)."""
    if mac == "80211" and node != "server":
        return "radio"
    return wireless_link(node)


def radios(setup: Setup) -> list[dict]:
    """`[[radios]]` of the 802.11 variant."""
    x, y = POSITIONS["ap"]
    out = [{"node": "ap", "mode": "ap", "ssid": SSID, "x": x, "y": y}]
    for m in setup.mobiles:
        x, y = POSITIONS[m]
        out.append({"node": m, "mode": "station", "ap": "ap", "x": x, "y": y})
    return out


#: The shipped example of each scenario (the seed's mechanism at 30 %).
SHIPPED = {"s1": "snoop-s1-upload.toml", "s2": "snoop-s2-download.toml", "s3": "snoop-s3-upload2.toml"}
