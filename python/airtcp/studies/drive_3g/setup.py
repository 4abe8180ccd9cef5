"""Setup of the drive-test study (seed 003): the drive logs, every scenario
parameter with its source, the seed's figures, and the scenario of one run.
Shared by the study (:mod:`.run`, :mod:`.measure`), its report and its plots.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ...runner.study import StudyError, repo_root

#: The source tree (tests/data/traces, ../shared).
REPO = repo_root()

#: Linux TCP_INFINITE_SSTHRESH (include/net/tcp.h).
INFINITE_SSTHRESH = 0x7FFFFFFF
#: iperf's "KBytes" are 1024 bytes (iperf -f K), the unit of the seed's table.
KB = 1024.0


@dataclass(frozen=True)
class DriveLog:
    name: str
    #: path relative to the traces directory (or absolute)
    rel: str
    about: str
    #: extra [links.trace] keys (format selection, offset)
    keys: tuple = ()
    #: True: the file is in this repository (tests/data/traces), not ../shared
    in_repo: bool = False


#: Shared drive logs with handoffs (see each folder's SOURCES.md).
LOGS = {
    "ucc": DriveLog(
        "ucc",
        "cellular_5g_ucc_driving/B_2020.02.14_12.58.17.csv",
        "UCC 5G dataset (Raca et al., MMSys 2020), operator B, Cork: 16.6 min drive, "
        "mostly HSPA+ (652 of 960 rows, the closest to the seed's 3G), 13 cell changes",
    ),
    "imc23": DriveLog(
        "imc23",
        "cellular_handover_logs_imc23/lv_to_slc__12041FDD4002ET_1660105596.9522562.out",
        "IMC'23 (Ghoshal et al.), T-Mobile LTE near Salt Lake City: 11.3 min, "
        "RSRP -117..-63 dBm (the widest range of the three phones), 23 serving-cell changes (PCI + EARFCN)",
    ),
    "feup": DriveLog(
        "feup",
        "wifi_vehicular_feup/final-exp-log.csv",
        "FEUP vehicular 802.11n (adamiaonr/wifi-vehicles, CC BY 4.0): virtual client roaming "
        "over 4 APs by RSSI with 5 dB hysteresis (synthetic handoffs between measured APs)",
    ),
    # In-repo excerpt (300 rows of the UCC 2019-12-14 log) so --quick runs without ../shared.
    "ucc-excerpt": DriveLog(
        "ucc-excerpt",
        "cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv",
        "UCC operator B 2019-12-14, rows 450-749 (5 min, 5G/LTE/HSPA+), in tests/data/traces",
        in_repo=True,
    ),
}
FULL_LOGS = ["ucc", "imc23", "feup"]
QUICK_LOGS = ["ucc-excerpt"]
ALGORITHMS = ["cubic", "veno", "westwood", "reno", "bbr"]

#: Scenario parameters and where they come from.
DEFAULTS = {
    # Seed 003 §5.1: each drive took 600-700 s.
    "duration_s": 600.0,
    # Internet path from the fixed server (agni.iitd.ac.in) to the operator's
    # core: assumption. 100 Mb/s never limits; 40 ms one way plus 20 ms on
    # the radio gives a 120 ms base RTT, inside the range of the IMC'23 logs'
    # 200-ms pings (median RTT 75.6 / 94.7 / 111 ms for the three operators,
    # ../shared/traces/cellular_handover_logs_imc23/SOURCES.md).
    "wired_rate": "100Mbps",
    "wired_delay": "40ms",
    # The server's own interface queue: Linux's default txqueuelen of 1000
    # packets. A shallower first hop drops the line-rate burst Westwood+
    # sends when it raises cwnd to BWE x RTTmin at the end of a recovery
    # (tcp_westwood.c, CA_EVENT_COMPLETE_CWR), a loss the radio-only drop
    # counts would hide (crates/sim/tests/it/cc_sanity.rs shows the effect).
    "wired_queue_packets": 1000,
    "radio_delay": "20ms",
    # The radio direction without the drive log carries only ACKs (the
    # downlink for an upload, the uplink for a download); 2 Mb/s
    # (HSUPA-class) never limits them.
    "uplink_rate": "2Mbps",
    # Base-station (RNC/eNodeB) buffer, 200 packets = 300 KB. Cellular
    # buffers are large (Jiang et al., "Tackling Bufferbloat in 3G/4G
    # Networks", IMC 2012, measured RTTs of seconds); 200 packets is a
    # conservative choice that still lets a bulk flow overflow it.
    "queue_packets": 200,
    # Sender as Linux: MSS 1448 (1500-byte MTU with timestamps), RTO floor
    # TCP_RTO_MIN = 200 ms (include/net/tcp.h), buffers autotuned as iperf
    # leaves them (no SO_RCVBUF / SO_SNDBUF) with Linux 3.16's tcp_rmem /
    # tcp_wmem (the seed's kernel: 4096 87380 6291456 / 4096 16384 4194304).
    "mss": 1448,
    "min_rto": "200ms",
    # Linux's RTO estimator (tcp_rtt_estimator: RTO >= SRTT + 200 ms, timer
    # restarted when the head is retransmitted), not RFC 6298's: behind a
    # full 200-packet buffer the RFC timer fires spuriously.
    "rto_timer": "linux",
    "tcp_wmem": [4096, 16384, 4 * 1024 * 1024],
    "tcp_rmem": [4096, 87380, 6 * 1024 * 1024],
    # 10 ms sampling of cwnd/ssthresh (an RTT is >= 120 ms).
    "series_interval": "10ms",
}

#: The seed's table (KB/s and handoffs per drive), §5.1 and §5.2.
SEED = {
    "cubic": {"p1": 49.0, "p2": 80.0, "p1_handoffs": 6, "p2_handoffs": 15},
    "veno": {"p1": 59.6, "p2": 196.0, "p1_handoffs": 6, "p2_handoffs": 14},
    "westwood": {"p1": 55.0, "p2": 195.0, "p1_handoffs": 17, "p2_handoffs": 13},
}


def traces_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("AIRTCP_TRACES")
    if env:
        return Path(env)
    return REPO.parent / "shared" / "traces"


def log_path(log: DriveLog, traces: Path) -> Path:
    p = Path(log.rel)
    if p.is_absolute():
        return p
    base = REPO / "tests" / "data" / "traces" if log.in_repo else traces
    return base / p


def resolve_logs(names: list[str], traces: Path) -> list[tuple[DriveLog, Path]]:
    out = []
    for n in names:
        if n in LOGS:
            log = LOGS[n]
        elif os.path.isfile(n):
            log = DriveLog(Path(n).stem, os.path.abspath(n), f"drive log {n}")
        else:
            raise StudyError(f"unknown drive log {n!r} (known: {', '.join(LOGS)}, or a file path)")
        path = log_path(log, traces)
        if not path.is_file():
            raise StudyError(f"drive log {n!r} not found at {path} (set --traces or AIRTCP_TRACES)")
        out.append((log, path))
    return out


#: Capacity ends of the default mappings (crates/sim/src/trace/mapping.rs):
#: Shannon over 10 MHz (cellular), 802.11n MCS 0 / MCS 7 PHY rates (Wi-Fi).
SHANNON_BANDWIDTH_HZ = 10e6
WIFI_CAP_LO_BPS, WIFI_CAP_HI_BPS = 6.5e6, 65e6


def capacity_keys(log_file: Path, scale: float) -> dict:
    """`[links.trace.capacity]` that multiplies the default mapping's
    capacity by `scale` (both mappings are linear in these parameters)."""
    if scale == 1.0:
        return {}
    if _is_wifi_log(log_file):
        return {"capacity": {"kind": "linear", "cap_lo_bps": WIFI_CAP_LO_BPS * scale, "cap_hi_bps": WIFI_CAP_HI_BPS * scale}}
    return {"capacity": {"kind": "shannon", "bandwidth_hz": SHANNON_BANDWIDTH_HZ * scale}}


#: TCP profile of the study's runs: Linux 3.16, the seed's kernel (its
#: appendix: Ubuntu 14.04); DEFAULTS' keys set beside it override single values.
TCP_PROFILE: str | None = "linux-3.16"
#: The stacks every run is repeated on: the seed's kernel first, then the
#: sensitivity arm on today's kernel. Each maps to (profile, extra TCP keys,
#: what it is). The "linux" arm takes today's buffers too (the profile's
#: tcp_rmem / tcp_wmem, not 3.16's). "linux-rack-off" is today's kernel
#: without RACK (the loss detection 3.16 lacks), the arm that measures that
#: one mechanism; it is run only when asked for (--stacks).
STACKS = {
    "linux-3.16": ("linux-3.16", {}, "the seed's kernel (Linux 3.16, Ubuntu 14.04): no RACK, 4-ms timestamp clock, 3.16's buffers"),
    "linux": ("linux", {"tcp_wmem": None, "tcp_rmem": None}, "today's kernel (Linux 6.x): RACK with its reordering timer, 1-ms timestamps, today's buffers"),
    "linux-rack-off": ("linux", {"tcp_wmem": None, "tcp_rmem": None, "rack": False}, "today's kernel with RACK switched off (one mechanism, to attribute a difference)"),
}
DEFAULT_STACKS = ["linux-3.16", "linux"]
#: The seed's transfers were uploads: "the iperf client ran on the laptop",
#: with the congestion control and tcpprobe there (seed 003 §4). Downloads
#: (server -> mobile) are the option.
DIRECTIONS = ("upload", "download")
#: Mapped capacity scale that brings the logs to the seed's 3G rates
#: (50-200 KB/s in its table against 1-3 MB/s mapped at full rate).
SEED_RATE_SCALE = 0.0625
#: The random-loss arm's stated mapping, residual loss after the radio's own
#: retransmissions as a logistic curve of the log's signal: at most 3 %,
#: 1.5 % at the midpoint, falling by e per 1/slope dB of better signal.
#: Cellular (RSRP, -125..-70 dBm in these logs): midpoint -100 dBm, so about
#: 0.1-3 % over the drive; Wi-Fi (RSSI, -85..-40 dBm): midpoint -75 dBm.
#: Our choice, not a measurement: the default curves put loss at ~0 in
#: coverage, which leaves Veno's and Westwood's loss differentiation nothing
#: to act on.
RANDOM_LOSS = {"cellular": {"midpoint_dbm": -100.0, "slope_per_db": 0.15, "max_loss": 0.03},
               "wifi": {"midpoint_dbm": -75.0, "slope_per_db": 0.15, "max_loss": 0.03}}


def _is_wifi_log(log_file: Path) -> bool:
    with open(log_file, encoding="utf-8", errors="replace") as fh:
        return fh.readline().startswith("senderId,receiverId,systime")


def scenario(
    log_file: Path, cc: str, duration_s: float, handoff_drops: bool, extra_keys=(), capacity_scale: float = 1.0,
    direction: str = "upload", random_loss: bool = False, stack: str = "linux-3.16",
) -> dict:
    """The scenario of one run, as the dict ``airtcp.run`` takes: the drive
    log drives the radio direction the data takes (mobile -> bs for an
    upload), the other direction carries the ACKs at a fixed rate."""
    if direction not in DIRECTIONS:
        raise StudyError(f"unknown direction {direction!r} (known: {', '.join(DIRECTIONS)})")
    if stack not in STACKS:
        raise StudyError(f"unknown stack {stack!r} (known: {', '.join(STACKS)})")
    profile, stack_keys, _ = STACKS[stack]
    d = DEFAULTS
    trace = {"kind": "drive", "file": str(log_file), "handoff_drops": handoff_drops}
    trace.update(dict(extra_keys))
    trace.update(capacity_keys(log_file, capacity_scale))
    if random_loss:
        trace["loss"] = dict(RANDOM_LOSS["wifi" if _is_wifi_log(log_file) else "cellular"])
    up = direction == "upload"
    sc = {
        "sim": {"duration": f"{duration_s:g}s", "series_interval": d["series_interval"]},
        "nodes": [{"name": "server"}, {"name": "bs"}, {"name": "mobile"}],
        "links": [
            {
                "name": "internet",
                "a": "server",
                "b": "bs",
                "rate": d["wired_rate"],
                "delay": d["wired_delay"],
                "queue_packets": d["wired_queue_packets"],
            },
            {
                "name": "radio",
                "a": "bs",
                "b": "mobile",
                "delay": d["radio_delay"],
                "queue_packets": d["queue_packets"],
                "rate_ab" if up else "rate_ba": d["uplink_rate"],
                "trace_ba" if up else "trace_ab": trace,
            },
        ],
        "flows": [
            {
                "name": "iperf",
                "from": "mobile" if up else "server",
                "to": "server" if up else "mobile",
                "app": "bulk",
                "tcp": {
                    "cc": cc,
                    "mss": d["mss"],
                    "min_rto": d["min_rto"],
                    "rto_timer": d["rto_timer"],
                    "tcp_wmem": d["tcp_wmem"],
                    "tcp_rmem": d["tcp_rmem"],
                    "profile": profile,
                },
            }
        ],
    }
    tcp = sc["flows"][0]["tcp"]
    for k, v in stack_keys.items():
        if v is None:
            tcp.pop(k, None)
        else:
            tcp[k] = v
    return sc
