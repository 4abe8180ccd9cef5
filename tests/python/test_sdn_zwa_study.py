"""`airtcp reproduce sdn-zwa --quick` (seed 000) end to end, and its
scenario builder."""

import csv
import shutil
import subprocess

import pytest

from airtcp.studies.sdn_zwa import measure as sdn_zwa_measure
from airtcp.studies.sdn_zwa import run as sdn_zwa
from airtcp.studies.sdn_zwa import setup as sdn_zwa_setup

from conftest import run_cli


def test_scenario_builder_sets_arm_hops_and_disconnection():
    doc = sdn_zwa_setup.base()
    sc = sdn_zwa_setup.scenario(doc, "bare", 7, 3.0, 4)
    cn = [l for l in sc["links"] if l.get("name") == "cn-attach"][0]
    assert cn["b"] == "s8"
    mn = [r for r in sc["radios"] if r["node"] == "mn"][0]
    assert mn["roam_at"][0][1:] == ["ap2", "3s"]
    assert sc["sdn"]["applications"] == ["mobility", "forwarding"]
    assert sdn_zwa_setup.roam_instant(4) == sdn_zwa_setup.roam_instant(4)
    # Each disconnection period and hop count draws its own roam phases.
    assert sdn_zwa_setup.roam_instant(4, 2.0, 2) != sdn_zwa_setup.roam_instant(4, 3.0, 2)
    assert "roam_at" not in [r for r in sdn_zwa_setup.scenario(doc, "noroam", 2, 2.0, 1)["radios"] if r["node"] == "mn"][0]
    with pytest.raises(ValueError):
        sdn_zwa_setup.scenario(doc, "zwa", 9, 1.0, 1)
    # Baselines: Freeze-TCP warned ~1.2 RTT of the CN->AP1 path ahead; legacy
    # and M-TCP without a controller, on learning switches.
    fz = sdn_zwa_setup.scenario(doc, "freeze", 3, 2.0, 1)
    assert fz["flows"][0]["tcp"]["freeze"] is True
    assert [r for r in fz["radios"] if r["node"] == "mn"][0]["handoff_warning"] == "576ms"
    lg = sdn_zwa_setup.scenario(doc, "legacy", 2, 2.0, 1)
    assert "sdn" not in lg and all(n.get("learn_hosts") for n in lg["nodes"] if n["name"].startswith("s"))
    mt = sdn_zwa_setup.scenario(doc, "mtcp", 2, 2.0, 1)
    assert [a["node"] for a in mt["agents"]] == ["ap1", "ap2", "ap3"] and mt["agents"][0]["peers"] == ["ap2", "ap3"]
    st = sdn_zwa_setup.scenario(doc, "zwa", 2, 2.0, 1, t0t2_ms=50.0)
    assert {c["latency"] for c in st["sdn"]["channels"]} == {"16000us"}


def test_the_study_runs_the_seeds_stack_and_varies_only_the_profile():
    doc = sdn_zwa_setup.base()
    tcp = doc["flows"][0]["tcp"]
    # The seed's stack with its three changes; no timer key left over from
    # before the profiles.
    assert (tcp["profile"], tcp["cc"], tcp["sack"], tcp["initial_cwnd"]) == ("linux-4.4", "reno", False, 1)
    assert not {"min_rto", "rto_timer", "max_rto", "delack_timeout", "hz", "persist_max"} & set(tcp)
    today = sdn_zwa_setup.scenario(doc, "bare", 2, 2.0, 1, stack="linux")["flows"][0]["tcp"]
    assert today == {**tcp, "profile": "linux"}
    rto1s = sdn_zwa_setup.scenario(doc, "zwa", 2, 2.0, 1, stack="linux-4.4-rto1s")["flows"][0]["tcp"]
    assert rto1s == {**tcp, "min_rto": "1s"}
    with pytest.raises(ValueError, match="stack 'linux-9'"):
        sdn_zwa_setup.scenario(doc, "bare", 2, 2.0, 1, stack="linux-9")


def _row(**kw):
    base = dict(stack="linux-4.4", fig="8", arm="bare", hops=3, disconnect_s=1.5, seed=1, t0t2_ms=None, bytes_delivered=1, retransmissions=0, timeouts=0, handoff_timeouts=0,
                idle_after_reassoc_s=None, interruption_s=None, sender_idle_s=None, t0t2_s=None, stats_zwa_enabled=0, stats_zwa_disabled=0, stalled=0)
    return {**base, **kw}


def test_linux_mechanism_names_every_profile_difference():
    """The report's sentence on `linux` against the seed's stack names, in
    backquotes, exactly the resolved [flows.tcp] values in which the two
    differ for this study's flows."""
    import re

    import airtcp
    from airtcp.studies.sdn_zwa.stacks import MECHANISMS

    def resolved(stack):
        sc = sdn_zwa_setup.scenario(sdn_zwa_setup.base(), "bare", 2, 1.5, 1, stack=stack)
        return airtcp.validate(sc)["flows"][0]["tcp"]

    a, b = resolved("linux-4.4"), resolved("linux")
    differ = {k for k in a if a[k] != b[k] and k != "profile"}
    assert {"comp_sack_nr", "frto_nonsack_guard", "push_ack", "push_tso"} <= differ
    assert set(re.findall(r"`([a-z0-9_]+)`", MECHANISMS["linux"])) - {"linux"} == differ


def test_intervals_of_counts_and_durations_stay_at_or_above_zero():
    # One long idle among nine near zero: a t interval reaches below 0.
    runs = [_row(seed=i, idle_after_reassoc_s=0.02, handoff_timeouts=0) for i in range(1, 10)] + [_row(seed=10, idle_after_reassoc_s=4.0, handoff_timeouts=3)]
    (row,) = sdn_zwa_measure.aggregate(runs)
    assert row["idle_s_mean"] == pytest.approx(0.418)
    assert 0.0 <= row["idle_s_lo"] < row["idle_s_mean"] < row["idle_s_hi"] <= 4.0
    assert 0.0 <= row["handoff_timeouts_lo"] < 0.3 < row["handoff_timeouts_hi"] <= 3.0


def test_a_claim_flips_or_moves_between_stacks():
    from airtcp.studies.sdn_zwa.stacks import verdicts

    # ZWA with the gate open: RTOs on one stack, none on the other.
    runs = [_row(stack=st, arm="zwa", seed=i, stats_zwa_enabled=1, handoff_timeouts=n) for st, n in (("linux-4.4", 1), ("linux-4.4-rto1s", 0)) for i in range(1, 6)]
    (v,) = [v for v in verdicts(runs, ["linux-4.4", "linux-4.4-rto1s"], [3], 1.5) if v.claim.key == "zwa_rto_3"]
    assert v.holds == {"linux-4.4": False, "linux-4.4-rto1s": True}
    assert v.flips("linux-4.4", "linux-4.4-rto1s") and v.moves("linux-4.4", "linux-4.4-rto1s")
    assert v.text("linux-4.4") == "1.00 [1.00, 1.00] (does not hold)"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("sdn") / "study"
    proc = run_cli("reproduce", "sdn-zwa", "--out", out, "--quick", "--quiet")
    with open(out / "runs.csv") as f:
        rows = list(csv.DictReader(f))
    return out, rows, proc


def test_quick_study_writes_every_output(quick):
    out, rows, _ = quick
    for name in ("runs.csv", "table.csv", "report.md"):
        assert (out / name).is_file()
    assert {r["fig"] for r in rows} == {"6", "7", "8", "stats"}
    report = (out / "report.md").read_text()
    assert "seed's claims beside the measured values" in report
    # The report opens with the stack, then every claim on both stacks.
    assert report.splitlines()[2].startswith("**TCP stack: profile `linux-4.4`**")
    assert report.index("## The headline claims on each stack") < report.index("## Setup")
    assert {r["stack"] for r in rows} == {"linux-4.4", "linux"}


def test_quick_study_keeps_the_captures_of_one_handoff(quick):
    out, _, _ = quick
    caps = out / "captures"
    (mn,) = caps.glob("radio*_mn.pcap")
    (cn,) = caps.glob("link*_cn-*.pcap")
    assert mn.stat().st_size > 24 and cn.stat().st_size > 24
    if shutil.which("tshark") is None:
        pytest.skip("tshark not installed")

    def count(path, display_filter):
        r = subprocess.run(["tshark", "-r", str(path), "-Y", display_filter], capture_output=True, text=True, check=True)
        return len(r.stdout.splitlines())

    # The station's disassociation, and the controller's zero-window ACKs
    # reaching the sender, are what Wireshark shows of the handoff.
    assert count(mn, "wlan.fc.type_subtype == 0x000a") >= 1
    assert count(cn, "tcp.window_size_value == 0 && tcp.flags.ack == 1") >= 1


def test_quick_study_shows_the_seed_effects(quick):
    _, rows, _ = quick
    fig6 = {r["arm"]: r for r in rows if r["fig"] == "6" and r["stack"] == sdn_zwa_setup.SEED_STACK}
    # ZWA working: no RTO, resumes within a second; bare TCP: RTOs and a
    # longer idle period; ZWA without statistics at the failing phase: stall.
    assert int(fig6["zwa"]["timeouts"]) == 0
    assert float(fig6["zwa"]["idle_after_reassoc_s"]) < 1.0
    # The delivery interruption: ZWA's is the 1.5 s away plus the scan and
    # the replay's trip; bare TCP's lasts until a backed-off RTO after T3.
    assert 1.5 < float(fig6["zwa"]["interruption_s"]) < 2.5
    assert float(fig6["bare"]["interruption_s"]) > float(fig6["zwa"]["interruption_s"])
    assert int(fig6["bare"]["timeouts"]) >= 1
    # Bare TCP restarts from the left edge with cwnd 1 (retransmissions);
    # ZWA resumes with new data and its window intact.
    assert int(fig6["bare"]["retransmissions"]) > 0 and int(fig6["zwa"]["retransmissions"]) == 0
    assert int(fig6["bare"]["bytes_after_reassoc"]) < int(fig6["zwa"]["bytes_after_reassoc"])
    assert fig6["zwa-nostats"]["stalled"] == "1"
    assert all(int(r["recv_order_errors"]) == 0 for r in rows) if "recv_order_errors" in rows[0] else True


def test_quick_study_runs_the_baselines(quick):
    _, rows, _ = quick
    f7 = [r for r in rows if r["fig"] == "7" and r["stack"] == sdn_zwa_setup.SEED_STACK]
    by = lambda arm: [r for r in f7 if r["arm"] == arm]
    # Freeze-TCP warned an RTT ahead: no handoff RTO, no retransmission.
    assert all(int(r["handoff_timeouts"]) == 0 and int(r["retransmissions"]) == 0 for r in by("freeze"))
    assert all(int(r["freeze_zwas"]) == 1 for r in by("freeze"))
    # Legacy L2 roaming: RTO backoff like bare TCP.
    assert all(int(r["handoff_timeouts"]) >= 1 for r in by("legacy"))
    # M-TCP froze and released the sender once per handoff.
    assert all(int(r["mtcp_zwas"]) == 1 and int(r["mtcp_reopens"]) == 1 for r in by("mtcp"))
    # The statistics sweep at 10 and 200 ms.
    st = {r["t0t2_ms"]: r for r in rows if r["fig"] == "stats"}
    assert set(st) == {"10", "200"}
