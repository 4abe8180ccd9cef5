#!/usr/bin/env python3
"""A corpus of malformed (and a few well-formed) scenarios for the
`[[udp_flows]]` and `[[radios]]` readers, and the text each one produces.

    python3 scripts/scenario_error_corpus.py RUN_SCENARIO OUTDIR

writes OUTDIR/bad/<case>.toml (one bad key, value or combination each, a
few with two faults to pin which is reported first) and OUTDIR/good/<case>.toml
(valid scenarios whose resolved `udp_flows` / `radios` are recorded), runs
the `run_scenario` example on each, and writes OUTDIR/messages.txt (one
line per bad case: its name and the error) and OUTDIR/resolved.txt (the
resolved sections of every good case). Run it with the binary of two
commits and `diff` the two outputs: a change to a reader that keeps every
message and every resolved value shows no difference.
"""

import hashlib
import json
import os
import re
import subprocess
import sys

NODES = "".join(f'[[nodes]]\nname = "{n}"\n' for n in ["a", "b", "c", "ap", "sta", "sta2", "ap2"])

# a - b wired; c isolated; ap, sta, sta2, ap2 radios (sta associated with ap).
UDP_BASE = '[sim]\nduration = "2s"\n' + NODES + '[[links]]\na = "a"\nb = "b"\nrate = "10Mbps"\n'
WIFI_BASE = (
    '[[radios]]\nnode = "ap"\nmode = "ap"\nssid = "n"\n'
    '[[radios]]\nnode = "sta"\nap = "ap"\nx = 5.0\n'
)


def udp(*lines, extra=""):
    return UDP_BASE + WIFI_BASE + extra + "[[udp_flows]]\n" + "\n".join(lines) + "\n"


CBR = ['from = "a"', 'to = "b"', 'app = "cbr"', 'rate = "1Mbps"']
ONOFF = ['from = "a"', 'to = "b"', 'app = "onoff"', 'rate = "1Mbps"']
SAT = ['from = "sta"', 'to = "ap"', 'app = "saturated"']
TRACE = ['from = "a"', 'to = "b"', 'app = "trace"']


def without(lines, key):
    return [l for l in lines if not l.startswith(key + " ")]


BAD_UDP = {
    "udp_unknown_key": udp(*CBR, "colour = 1"),
    "udp_name_type": udp(*CBR, "name = 5"),
    "udp_name_chars": udp(*CBR, 'name = "a b"'),
    "udp_name_duplicate": udp(*CBR, 'name = "x"') + "[[udp_flows]]\n" + "\n".join(CBR + ['name = "x"']) + "\n",
    "udp_from_missing": udp(*without(CBR, "from")),
    "udp_from_unknown": udp('from = "zz"', *without(CBR, "from")),
    "udp_from_type": udp("from = 1", *without(CBR, "from")),
    "udp_to_missing": udp(*without(CBR, "to")),
    "udp_to_unknown": udp('to = "zz"', *without(CBR, "to")),
    "udp_from_is_to": udp('to = "a"', *without(CBR, "to")),
    "udp_no_route": udp('to = "c"', *without(CBR, "to")),
    "udp_start_type": udp(*CBR, "start = true"),
    "udp_start_negative": udp(*CBR, 'start = "-1s"'),
    "udp_start_past_end": udp(*CBR, 'start = "5s"'),
    "udp_stop_before_start": udp(*CBR, 'start = "1s"', 'stop = "0.5s"'),
    "udp_stop_at_start": udp(*CBR, 'start = "1s"', "stop = 1"),
    "udp_stop_unit": udp(*CBR, 'stop = "3 parsecs"'),
    "udp_size_zero": udp(*CBR, "size = 0"),
    "udp_size_too_big": udp(*CBR, "size = 70000"),
    "udp_size_text": udp(*CBR, 'size = "huge"'),
    "udp_size_negative": udp(*CBR, "size = -1"),
    "udp_app_missing": udp(*without(CBR, "app")),
    "udp_app_unknown": udp('app = "voip"', *without(CBR, "app")),
    "udp_app_type": udp("app = 3", *without(CBR, "app")),
    "udp_cbr_rate_missing": udp(*without(CBR, "rate")),
    "udp_cbr_rate_negative": udp("rate = -5", *without(CBR, "rate")),
    "udp_cbr_rate_zero": udp('rate = "0Mbps"', *without(CBR, "rate")),
    "udp_cbr_rate_text": udp('rate = "fast"', *without(CBR, "rate")),
    "udp_cbr_rate_float": udp("rate = 1.5", *without(CBR, "rate")),
    "udp_cbr_takes_on_time": udp(*CBR, 'on_time = "1s"'),
    "udp_cbr_takes_backlog": udp(*CBR, "backlog = 2"),
    "udp_cbr_takes_file": udp(*CBR, 'file = "t.txt"'),
    "udp_onoff_on_zero": udp(*ONOFF, "on_time = 0"),
    "udp_onoff_off_negative": udp(*ONOFF, 'off_time = "-1s"'),
    "udp_onoff_off_type": udp(*ONOFF, "off_time = false"),
    "udp_onoff_periods_unknown": udp(*ONOFF, 'periods = "weibull"'),
    "udp_onoff_periods_type": udp(*ONOFF, "periods = 2"),
    "udp_onoff_shape_without_pareto": udp(*ONOFF, "pareto_shape = 2.0"),
    "udp_onoff_shape_one": udp(*ONOFF, 'periods = "pareto"', "pareto_shape = 1.0"),
    "udp_onoff_shape_type": udp(*ONOFF, 'periods = "pareto"', 'pareto_shape = "x"'),
    "udp_onoff_rate_missing": udp(*without(ONOFF, "rate")),
    "udp_onoff_takes_backlog": udp(*ONOFF, "backlog = 1"),
    "udp_saturated_wired": udp('from = "a"', 'to = "b"', 'app = "saturated"'),
    "udp_saturated_backlog_zero": udp(*SAT, "backlog = 0"),
    "udp_saturated_backlog_type": udp(*SAT, 'backlog = "4"'),
    "udp_saturated_takes_rate": udp(*SAT, 'rate = "1Mbps"'),
    "udp_trace_file_missing": udp(*TRACE),
    "udp_trace_file_absent": udp(*TRACE, 'file = "nope.txt"'),
    "udp_trace_file_type": udp(*TRACE, "file = 1"),
    "udp_trace_with_size": udp(*TRACE, 'file = "good.txt"', "size = 100"),
    "udp_trace_bad_line": udp(*TRACE, 'file = "bad.txt"'),
    "udp_trace_empty": udp(*TRACE, 'file = "empty.txt"'),
    "udp_trace_takes_rate": udp(*TRACE, 'file = "good.txt"', 'rate = "1Mbps"'),
    "udp_not_a_list": "udp_flows = 3\n" + UDP_BASE,
    "udp_item_not_table": "udp_flows = [1]\n" + UDP_BASE,
    # Two faults: the first in the reader's order is reported.
    "udp2_from_is_to_and_stop": udp('to = "a"', *without(CBR, "to"), 'stop = "junk"'),
    "udp2_rate_and_foreign_backlog": udp('rate = "fast"', *without(CBR, "rate"), "backlog = 1"),
    "udp2_trace_size_and_rate": udp(*TRACE, 'file = "good.txt"', "size = 100", 'rate = "1Mbps"'),
    "udp2_saturated_wired_backlog_zero": udp('from = "a"', 'to = "b"', 'app = "saturated"', "backlog = 0"),
    "udp2_on_zero_and_periods": udp(*ONOFF, "on_time = 0", 'periods = "weibull"'),
    "udp2_duplicate_and_unknown_from": udp(*CBR, 'name = "x"') + "[[udp_flows]]\n" + "\n".join(without(CBR, "from") + ['name = "x"', 'from = "zz"']) + "\n",
    "udp2_stop_type_and_size": udp(*CBR, "stop = true", "size = 0"),
    "udp2_start_past_end_and_same_nodes": udp('to = "a"', *without(CBR, "to"), 'start = "9s"'),
    "udp2_app_missing_and_size": udp(*without(CBR, "app"), "size = 0"),
    "udp2_shape_and_on_time": udp(*ONOFF, "pareto_shape = 3.0", "off_time = 0"),
    "udp2_unknown_app_and_rate_missing": udp('app = "voip"', *without(without(CBR, "app"), "rate")),
    "udp2_rate_missing_and_on_time_zero": udp(*without(ONOFF, "rate"), "on_time = 0"),
}


def wifi(*radio_lines, medium="", extra_radios="", base=WIFI_BASE):
    text = '[sim]\nduration = "1s"\n' + NODES + '[[links]]\na = "a"\nb = "b"\nrate = "10Mbps"\n' + medium + base + extra_radios
    if radio_lines:
        text += "[[radios]]\n" + "\n".join(radio_lines) + "\n"
    return text


STA2 = ['node = "sta2"', 'ap = "ap"', "x = 3.0"]
AP2 = ['node = "ap2"', 'mode = "ap"', 'ssid = "m"', "x = 10.0"]
P2P = '[wifi]\nmedium = "p2p"\nstandard = "b"\nrate = "2Mbps"\n'

BAD_RADIOS = {
    "radio_unknown_key": wifi(*STA2, "colour = 1"),
    "radio_not_a_list": "radios = 3\n" + wifi(base=""),
    "radio_item_not_table": "radios = [1]\n" + wifi(base=""),
    "radio_node_missing": wifi(*without(STA2, "node")),
    "radio_node_unknown": wifi('node = "zz"', *without(STA2, "node")),
    "radio_node_type": wifi("node = 2", *without(STA2, "node")),
    "radio_node_twice": wifi('node = "sta"', *without(STA2, "node")),
    "radio_mode_unknown": wifi(*STA2, 'mode = "mesh"'),
    "radio_mode_type": wifi(*STA2, "mode = 1"),
    "radio_ssid_empty": wifi(*AP2[:2], 'ssid = ""'),
    "radio_ssid_long": wifi(*AP2[:2], 'ssid = "' + "x" * 33 + '"'),
    "radio_ssid_type": wifi(*AP2[:2], "ssid = 4"),
    "radio_adhoc_ssid": wifi('node = "sta2"', 'mode = "adhoc"', 'ssid = "n"'),
    "radio_adhoc_p2p": wifi('node = "sta2"', 'mode = "adhoc"', medium=P2P),
    "radio_ap_has_scan": wifi(*AP2, 'scan = "active"'),
    "radio_ap_has_ap": wifi(*AP2, 'ap = "ap"'),
    "radio_adhoc_has_warn_at": wifi('node = "sta2"', 'mode = "adhoc"', 'warn_at = ["1s"]'),
    "radio_station_has_beacons": wifi(*STA2, "beacons = true"),
    "radio_station_has_subnet": wifi(*STA2, 'subnet = "10.9.0.0/24"'),
    "radio_station_no_ap_no_ssid": wifi('node = "sta2"', "x = 1.0"),
    "radio_channel_not_of_a": wifi(*STA2[:2], "channel = 14"),
    "radio_channel_huge": wifi(*AP2, "channel = 300"),
    "radio_channel_type": wifi(*AP2, 'channel = "six"'),
    "radio_x_text": wifi(*STA2[:2], 'x = "far"'),
    "radio_z_inf": wifi(*STA2, "z = inf"),
    "radio_waypoints_and_rwp": wifi(*STA2[:2], "waypoints = [[0, 1.0, 1.0]]", 'random_waypoint = { area = [0, 0, 10, 10], speed = [1.0, 2.0] }'),
    "radio_waypoints_and_trace": wifi(*STA2[:2], "waypoints = [[0, 1.0, 1.0]]", 'mobility_trace = "walk.csv"'),
    "radio_waypoints_empty": wifi(*STA2[:2], "waypoints = []"),
    "radio_waypoint_short": wifi(*STA2[:2], "waypoints = [[0, 1.0]]"),
    "radio_waypoint_time_order": wifi(*STA2[:2], "waypoints = [[1, 1.0, 1.0], [1, 2.0, 2.0]]"),
    "radio_waypoint_text": wifi(*STA2[:2], 'waypoints = [[0, "x", 1.0]]'),
    "radio_rwp_unknown_key": wifi(*STA2[:2], 'random_waypoint = { area = [0, 0, 10, 10], speed = [1.0, 2.0], seed = 3 }'),
    "radio_rwp_area": wifi(*STA2[:2], 'random_waypoint = { area = [10, 0, 0, 10], speed = [1.0, 2.0] }'),
    "radio_rwp_speed": wifi(*STA2[:2], 'random_waypoint = { area = [0, 0, 10, 10], speed = [0.0, 2.0] }'),
    "radio_rwp_area_missing": wifi(*STA2[:2], "random_waypoint = { speed = [1.0, 2.0] }"),
    "radio_rwp_pause": wifi(*STA2[:2], 'random_waypoint = { area = [0, 0, 10, 10], speed = [1.0, 2.0], pause = "x" }'),
    "radio_trace_absent": wifi(*STA2[:2], 'mobility_trace = "nope.csv"'),
    "radio_trace_csv_bad": wifi(*STA2[:2], 'mobility_trace = "bad.csv"'),
    "radio_trace_csv_node": wifi(*STA2[:2], 'mobility_trace = "walk.csv"', "trace_node = 1"),
    "radio_trace_setdest_node": wifi(*STA2[:2], 'mobility_trace = "walk.tcl"', "trace_node = 5"),
    "radio_trace_setdest_node_type": wifi(*STA2[:2], 'mobility_trace = "walk.tcl"', 'trace_node = "0"'),
    "radio_tx_power_text": wifi(*STA2, 'tx_power_dbm = "loud"'),
    "radio_rate_not_of_a": wifi(*STA2, "rate = 7"),
    "radio_rate_text": wifi(*STA2, 'rate = "fast"'),
    "radio_rts_negative": wifi(*STA2, "rts_threshold = -1"),
    "radio_queue_zero": wifi(*STA2, "queue_packets = 0"),
    "radio_queue_text": wifi(*STA2, 'queue_packets = "5"'),
    "radio_rate_control": wifi(*STA2, 'rate_control = "arf"'),
    "radio_beacons_type": wifi(*AP2, 'beacons = "yes"'),
    "radio_beacon_interval_zero": wifi(*AP2, "beacon_interval = 0"),
    "radio_beacon_interval_text": wifi(*AP2, 'beacon_interval = "x"'),
    "radio_scan_unknown": wifi(*STA2, 'scan = "lazy"'),
    "radio_scan_channels_empty": wifi(*STA2, "scan_channels = []"),
    "radio_scan_channel_zero": wifi(*STA2, "scan_channels = [36, 0]"),
    "radio_scan_channels_type": wifi(*STA2, "scan_channels = 36"),
    "radio_min_channel_zero": wifi(*STA2, "min_channel_time = 0"),
    "radio_max_below_min": wifi(*STA2, 'min_channel_time = "30ms"', 'max_channel_time = "20ms"'),
    "radio_max_below_default_min": wifi(*STA2, 'max_channel_time = "1ms"'),
    "radio_passive_dwell_text": wifi(*STA2, 'passive_dwell = "x"'),
    "radio_roam_threshold_text": wifi(*STA2, 'roam_threshold_dbm = "x"'),
    "radio_hysteresis_negative": wifi(*STA2, "hysteresis_db = -1"),
    "radio_beacon_loss_zero": wifi(*STA2, "beacon_loss = 0"),
    "radio_handoff_warning_text": wifi(*STA2, 'handoff_warning = "soon"'),
    "radio_warning_threshold_bool": wifi(*STA2, "warning_threshold_dbm = true"),
    "radio_overhear_text": wifi(*STA2, 'overhear_probe_responses = "yes"'),
    "radio_warn_at_order": wifi(*STA2, 'warn_at = ["2s", "1s"]'),
    "radio_warn_at_type": wifi(*STA2, 'warn_at = "1s"'),
    "radio_roam_at_shape": wifi(*STA2, 'roam_at = [["1s"]]'),
    "radio_roam_at_order": wifi(*STA2, 'roam_at = [["1s", "ap"], ["0.5s", "best"]]'),
    "radio_roam_at_unknown": wifi(*STA2, 'roam_at = [["0.5s", "zz"]]'),
    "radio_roam_at_not_ap": wifi(*STA2, 'roam_at = [["0.5s", "sta"]]'),
    "radio_roam_at_away_text": wifi(*STA2, 'roam_at = [["0.5s", "ap", "x"]]'),
    "radio_roam_at_type": wifi(*STA2, 'roam_at = "soon"'),
    "radio_roam_at_best_p2p": wifi(*STA2, 'roam_at = [["0.5s", "best"]]', medium=P2P),
    "radio_roam_at_p2p_overlap": wifi(*STA2, 'roam_at = [["0.2s", "ap", "0.5s"], ["0.5s", "ap"]]', medium=P2P),
    "radio_roam_at_no_beacons": wifi(*STA2, 'roam_at = [["0.5s", "ap"]]', base='[[radios]]\nnode = "ap"\nmode = "ap"\nssid = "n"\nbeacons = false\n'),
    "radio_ap_unknown": wifi('ap = "zz"', *without(STA2, "ap")),
    "radio_ap_not_ap": wifi('ap = "sta"', *without(STA2, "ap")),
    "radio_ap_type": wifi("ap = 1", *without(STA2, "ap")),
    "radio_ap_channel_mismatch": wifi(*STA2, "channel = 40"),
    "radio_ap_ssid_mismatch": wifi(*STA2, 'ssid = "other"'),
    "radio_ssid_no_ap": wifi('node = "sta2"', 'ssid = "other"'),
    "radio_addr_text": wifi(*STA2, 'addr = "1.2.3"'),
    "radio_addr_outside": wifi(*STA2, 'addr = "10.99.0.1"'),
    "radio_addr_duplicate": wifi(*STA2, 'addr = "172.16.0.2"'),
    "radio_addr_type": wifi(*STA2, "addr = 5"),
    "radio_subnet_text": wifi(*AP2, 'subnet = "10.0.0/8"'),
    "radio_subnet_overlaps_link": wifi(*AP2, 'subnet = "10.0.0.0/24"'),
    "radio_too_far": wifi('node = "sta2"', 'ap = "ap"', "x = 5000.0"),
    "radio_p2p_station_without_ap": wifi('node = "sta2"', 'ssid = "n"', medium=P2P),
    "radio_wifi_without_radios": '[sim]\nduration = "1s"\n' + NODES + '[wifi]\nstandard = "g"\n',
    # Two faults: the first in the reader's order is reported.
    "radio2_scan_value_on_ap": wifi(*AP2, 'scan = "lazy"'),
    "radio2_rate_and_tx_power": wifi(*STA2, "rate = 7", 'tx_power_dbm = "loud"'),
    "radio2_channel_and_x": wifi(*STA2[:2], "channel = 14", 'x = "far"'),
    "radio2_ssid_long_and_mode": wifi(*STA2, 'ssid = "' + "y" * 40 + '"', 'mode = "mesh"'),
    "radio2_node_twice_and_queue": wifi('node = "sta"', *without(STA2, "node"), "queue_packets = 0"),
    "radio2_unknown_ap_and_addr": wifi('ap = "zz"', *without(STA2, "ap"), 'addr = "1.2.3"'),
    "radio2_roam_at_unknown_and_channel": wifi(*STA2, 'roam_at = [["0.5s", "zz"]]', 'scan_channels = [0]'),
    # Values read before only under another key's condition.
    "radio_cond_beacon_interval_without_beacons": wifi(*AP2, "beacons = false", 'beacon_interval = "x"'),
    "radio_cond_trace_node_without_trace": wifi(*STA2, 'trace_node = "x"'),
}

GOOD = {
    "udp_cbr_all": udp(*CBR, 'name = "v"', 'start = "0.5s"', 'stop = "9s"', 'size = "1KiB"'),
    "udp_onoff_defaults": udp(*ONOFF),
    "udp_onoff_pareto": udp(*ONOFF, 'periods = "pareto"', "pareto_shape = 2.5", 'on_time = "200ms"', "off_time = 0.3"),
    "udp_onoff_pareto_default_shape": udp(*ONOFF, 'periods = "pareto"'),
    "udp_onoff_constant": udp(*without(ONOFF, "rate"), 'periods = "constant"', "rate = 250000"),
    "udp_saturated": udp(*SAT, "backlog = 7", "size = 1000"),
    "udp_trace": udp(*TRACE, 'file = "good.txt"', 'stop = "1.5s"'),
    "radio_rich": wifi(
        'node = "sta2"', 'ssid = "n"', "x = 3", "y = -2.5", "z = 1", "channel = 36", 'rate = "24Mbps"', "tx_power_dbm = 20",
        "rts_threshold = 500", "queue_packets = 20", 'rate_control = "minstrel"', 'scan = "passive"', "scan_channels = [36, 40]",
        'min_channel_time = "10ms"', 'max_channel_time = "50ms"', 'passive_dwell = "120ms"', "roam_threshold_dbm = -70",
        "hysteresis_db = 3", "beacon_loss = 5", 'roam_at = [["0.3s", "ap"], [0.6, "best", "50ms"]]', 'handoff_warning = "100ms"',
        "warning_threshold_dbm = -65.5", 'warn_at = ["0.2s", "0.4s"]', "overhear_probe_responses = true", 'addr = "172.16.0.9"',
        extra_radios="[[radios]]\n" + "\n".join(AP2 + ['beacon_interval = "50ms"', 'subnet = "10.200.0.0/24"', "beacons = true"]) + "\n",
    ),
    "radio_mobility": wifi('node = "sta2"', 'ap = "ap"', "waypoints = [[0, 1.0, 1.0], [0.5, 2.0, 2.0, 1.0]]")
    + '[[radios]]\nnode = "ap2"\nmode = "adhoc"\nrandom_waypoint = { area = [0, 0, 10, 10], speed = [1.0, 2.0], pause = "1s" }\n'
    + '[[radios]]\nnode = "c"\nmode = "adhoc"\nmobility_trace = "walk.tcl"\ntrace_node = 1\n'
    + '[[radios]]\nnode = "b"\nmode = "adhoc"\nmobility_trace = "walk.csv"\n',
    "radio_p2p": wifi(*STA2, 'roam_at = [["0.2s", "ap", "0.1s"], ["0.5s", "ap"]]', medium=P2P),
    "radio_beaconless": wifi(*STA2, base='[[radios]]\nnode = "ap"\nmode = "ap"\nbeacons = false\nbeacon_interval = "0s"\n'),
}

FILES = {
    "good.txt": "0 100\n0.01 200\n",
    "bad.txt": "0 100\n0.5 x\n",
    "empty.txt": "# nothing\n",
    "walk.csv": "t,x,y\n0,1,1\n0.5,2,2\n",
    "bad.csv": "t,x,y\n0,1\n",
    "walk.tcl": "$node_(1) set X_ 1.0\n$node_(1) set Y_ 2.0\n$node_(0) set X_ 0.0\n$node_(0) set Y_ 0.0\n",
}


def run(binary, directory, name):
    p = subprocess.run([binary, name + ".toml"], cwd=directory, capture_output=True, text=True,
                       env={**os.environ, "OUT_DIR": "out-" + name})
    return p


def main():
    binary, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    for kind, cases in (("bad", {**BAD_UDP, **BAD_RADIOS}), ("good", GOOD)):
        d = os.path.join(outdir, kind)
        os.makedirs(d, exist_ok=True)
        for f, text in FILES.items():
            with open(os.path.join(d, f), "w") as fh:
                fh.write(text)
        for name, text in cases.items():
            with open(os.path.join(d, name + ".toml"), "w") as fh:
                fh.write(text)
    with open(os.path.join(outdir, "messages.txt"), "w") as out:
        for name in {**BAD_UDP, **BAD_RADIOS}:
            p = run(binary, os.path.join(outdir, "bad"), name)
            msg = p.stderr.strip() if p.returncode else "(accepted)"
            out.write(f"{name}\t{msg}\n")
    with open(os.path.join(outdir, "resolved.txt"), "w") as out:
        for name in GOOD:
            d = os.path.join(outdir, "good")
            p = run(binary, d, name)
            if p.returncode:
                out.write(f"{name}\tERROR {p.stderr.strip()}\n")
                continue
            with open(os.path.join(d, "out-" + name, "summary.json")) as fh:
                sc = json.load(fh)["scenario"]
            resolved = {k: sc.get(k) for k in ("udp_flows", "radios")}
            out.write(f"{name}\t{json.dumps(resolved, sort_keys=True)}\n")
            for f in sorted(os.listdir(os.path.join(d, "out-" + name))):
                with open(os.path.join(d, "out-" + name, f), "rb") as fh:
                    data = fh.read()
                if f == "summary.json":
                    # The run's wall-clock time is the one field that differs between two runs.
                    data = re.sub(rb'"run_wall_s": [^,\n]*', b'"run_wall_s": -', data)
                out.write(f"{name}/{f}\t{hashlib.sha256(data).hexdigest()}\n")
    print(f"{len(BAD_UDP)} udp_flows + {len(BAD_RADIOS)} radios bad cases, {len(GOOD)} good cases -> {outdir}")


if __name__ == "__main__":
    main()
