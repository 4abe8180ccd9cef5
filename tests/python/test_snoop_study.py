"""`airtcp reproduce snoop` (seed 004).

The first half needs no simulation: the 802.11b airtime model and the
scenario builder. The second half runs the quick study end to end. The
runner and report helpers it is built on are tested in test_runner.py and
test_reporting.py."""

import csv
import tomllib

import pytest

import airtcp
from airtcp.runner import study as runner
from airtcp.studies.snoop import measure as snoop_measure
from airtcp.studies.snoop import run as snoop
from airtcp.studies.snoop import setup as snoop_setup
from airtcp.studies.snoop.setup import SETUPS

from conftest import REPO, run_cli

# --- the snoop study's setup ------------------------------------------------------


def test_wlan_overhead_reproduces_the_80211b_exchange():
    ov = snoop_setup.wlan_overhead_bytes()
    assert snoop_setup.wlan_fixed_us() == pytest.approx(50 + 310 + 192 + 10 + 248)
    assert ov == 1150
    for ip in (40, 576, 1500, 2304):  # an ACK ... a full 2264-byte segment
        assert snoop_setup.link_time_us(ip, ov, 11e6) == pytest.approx(snoop_setup.wlan_exchange_us(ip), abs=0.5)
    assert snoop_setup.SEED_MSS + snoop_setup.HEADERS == 2304  # 802.11's largest MSDU


def test_scenario_stacks_snoop_above_the_peg_where_the_seed_puts_them():
    s1 = snoop_setup.scenario(SETUPS["s1"], "snoop", 0.3)
    assert [(a["node"], a["kind"]) for a in s1["agents"]] == [("m1", "snoop"), ("m1", "peg")]
    assert s1["agents"][0]["wireless"] == "ap-m1" and s1["agents"][0]["timer"] == "1s"
    assert s1["agents"][1]["send_data_drop_rate"] == s1["agents"][1]["recv_data_drop_rate"] == 0.3
    assert [(f["from"], f["to"], f["bytes"]) for f in s1["flows"]] == [("m1", "server", 100000)]
    s2 = snoop_setup.scenario(SETUPS["s2"], "snoop-adaptive", 0.1)
    assert [(a["node"], a["kind"]) for a in s2["agents"]] == [("server", "snoop"), ("server", "peg")]
    assert s2["agents"][0]["timer"] == "adaptive" and s2["agents"][0]["wireless"] == "server-ap"
    assert [(f["from"], f["to"]) for f in s2["flows"]] == [("server", "m1"), ("server", "m2")]
    s3 = snoop_setup.scenario(SETUPS["s3"], "snoop", 0.2)
    assert [(a["node"], a["kind"]) for a in s3["agents"]] == [("m2", "snoop"), ("server", "peg")]
    itcp = snoop_setup.scenario(SETUPS["s2"], "itcp", 0.2)
    assert [(a["node"], a["kind"], a.get("wireless")) for a in itcp["agents"]] == [
        ("server", "peg", None),
        ("ap", "itcp", "ap-m1"),
        ("ap", "itcp", "ap-m2"),
    ]
    assert snoop_setup.scenario(SETUPS["s1"], "sack", 0)["flows"][0]["tcp"] == {"profile": "opnet-2003", "sack": True}
    assert snoop_setup.arms_for(SETUPS["s3"], snoop_setup.ARMS) == [
        "tcp", "snoop", "snoop-adaptive", "sack", "tcp-allpkts", "snoop-allpkts", "tcp-seed-table", "snoop-seed-table",
        "tcp-linux", "snoop-linux", "tcp-linux-norack", "snoop-linux-norack", "tcp-linux-notlp", "snoop-linux-notlp",
        "tcp-linux-nosack", "snoop-linux-nosack",
        "tcp-attempts3", "tcp-attempts8",
    ]
    # The stack arms: the profile with the seed's workload keys, Snoop where `snoop` has it.
    lin = snoop_setup.scenario(SETUPS["s1"], "snoop-linux", 0.3)
    assert lin["flows"][0]["tcp"] == {"profile": "linux", "mss": 2264, "rcv_buf": 8760, "timestamps": False}
    assert [(a["node"], a["kind"]) for a in lin["agents"]] == [("m1", "snoop"), ("m1", "peg")]
    # The default stack is the seed's: the opnet-2003 profile alone, on every arm that names no other
    # (I-TCP's proxy included); the seed's table key by key is an arm over linux.
    assert s1["flows"][0]["tcp"] == {"profile": "opnet-2003"}
    assert all(a["tcp"] == {"profile": "opnet-2003"} for a in itcp["agents"] if a["kind"] == "itcp")
    table = snoop_setup.scenario(SETUPS["s1"], "snoop-seed-table", 0.3)["flows"][0]["tcp"]
    assert table == snoop_setup.SEED_TABLE_TCP and table["profile"] == "linux" and table["clock_granularity"] == "500ms"
    assert snoop_setup.scenario(SETUPS["s1"], "tcp-linux-nosack", 0.3)["flows"][0]["tcp"]["sack"] is False
    norack = snoop_setup.scenario(SETUPS["s1"], "snoop-linux-norack", 0.3)["flows"][0]["tcp"]
    assert (norack["profile"], norack["rack"], norack.get("sack")) == ("linux", False, None)
    # OPNET's attempt-based threshold: plain TCP that gives up after N retransmissions.
    att = snoop_setup.scenario(SETUPS["s1"], "tcp-attempts3", 0.3)
    assert att["flows"][0]["tcp"] == {"profile": "opnet-2003", "max_retries": 3}
    assert [a["kind"] for a in att["agents"]] == ["peg"]
    # The PEG's "all packets" option: the same stack, ACKs dropped too.
    allp = snoop_setup.scenario(SETUPS["s1"], "snoop-allpkts", 0.3)
    assert [(a["node"], a["kind"]) for a in allp["agents"]] == [("m1", "snoop"), ("m1", "peg")]
    assert allp["agents"][1]["data_only"] is False and s1["agents"][1]["data_only"] is True
    assert allp["flows"][0]["tcp"] == s1["flows"][0]["tcp"]
    assert snoop_setup.scenario(SETUPS["s1"], "tcp", 0)["sim"]["series_interval"] == "0s"


def _resolved_tcp(tcp: dict) -> dict:
    """[flows.tcp] as the simulator resolves it (profile + keys), validated
    without running."""
    sc = snoop_setup.scenario(SETUPS["s1"], "tcp", 0.0)
    sc["flows"][0]["tcp"] = tcp
    return airtcp.validate(sc)["flows"][0]["tcp"]


def test_default_stack_is_opnet_2003_with_the_seeds_table():
    """The default resolves to the seed's table ("TCP parameters"), with
    OPNET's 0.5-s tick as its timer granularity."""
    got = _resolved_tcp(snoop_setup.TCP)
    want = {
        "profile": "opnet-2003", "mss": snoop_setup.SEED_MSS, "rcv_buf": snoop_setup.SEED_RCV_BUF,
        "delack_count": 2, "delack_timeout": "200ms", "recovery": "reno", "sack": False, "nodelay": True,
        "initial_rto": "1s", "min_rto": "500ms", "max_rto": "64s", "rto_tick": "500ms", "clock_granularity": "0s",
        "persist_min": "1s", "initial_cwnd": snoop_setup.INITIAL_CWND, "rto_timer": "rfc6298",
    }  # fmt: skip
    assert {k: got[k] for k in want} == want


def test_profile_vs_table_lists_every_difference():
    """PROFILE_VS_TABLE (shown in the report) is exactly the set of resolved
    values in which the default and the seed's table key by key differ."""
    a, b = _resolved_tcp(snoop_setup.TCP), _resolved_tcp(snoop_setup.SEED_TABLE_TCP)
    diff = {k: (a[k], b[k]) for k in a if a[k] != b[k] and k != "profile"}
    assert diff == {k: v[:2] for k, v in snoop_setup.PROFILE_VS_TABLE.items()}


def test_tcp_set_reads_toml_values_and_sets_every_tcp():
    assert snoop.parse_tcp_set(["sack=true", "min_rto=200ms", "max_retries = 3"]) == {
        "sack": True, "min_rto": "200ms", "max_retries": 3
    }
    with pytest.raises(runner.StudyError, match="--tcp-set: 'sack' is not KEY=VALUE"):
        snoop.parse_tcp_set(["sack"])
    sc = snoop.with_tcp_set(snoop_setup.scenario(SETUPS["s2"], "itcp", 0.3), {"rto_tick": "none"})
    assert [f["tcp"] for f in sc["flows"]] == [{"profile": "opnet-2003", "rto_tick": "none"}] * 2
    assert [a["tcp"]["rto_tick"] for a in sc["agents"] if a["kind"] == "itcp"] == ["none", "none"]


@pytest.mark.parametrize("sid", ["s1", "s2", "s3"])
def test_shipped_toml_is_the_studys_scenario(sid):
    """scenarios/snoop-*.toml is the study's scenario (arm snoop, 30 %, series on)."""
    with open(REPO / "scenarios" / snoop_setup.SHIPPED[sid], "rb") as fh:
        shipped = tomllib.load(fh)
    assert shipped == snoop_setup.scenario(SETUPS[sid], "snoop", 0.3, series=True)


def test_parse_rates():
    assert snoop.parse_rates("0.3, 0,0.1,0.1") == [0.0, 0.1, 0.3]
    with pytest.raises(runner.StudyError, match=r"--rates: 2 is outside \[0, 1\]"):
        snoop.parse_rates("0,2")
    with pytest.raises(runner.StudyError, match="not a number"):
        snoop.parse_rates("0,x")


def test_aggregate_counts_unfinished_runs():
    def row(seed, rt):
        return {
            "scenario": "s1", "arm": "tcp", "mobile": "m1", "drop_rate": 0.4, "seed": seed,
            "finished": rt is not None, "response_time_s": rt, "timeouts": seed, "retransmissions": 2 * seed,
            "fast_retransmits": 0, "snoop_local_retransmissions": None, "snoop_local_timeouts": None,
            "snoop_dupacks_suppressed": None, "snoop_max_cached": None, "snoop_scope": "", "peg_dropped": 3,
            "itcp_acked_not_delivered": None,
        }  # fmt: skip

    (t,) = snoop_measure.aggregate([row(1, 10.0), row(2, None), row(3, 20.0)])
    assert (t["n"], t["finished"], t["unfinished"]) == (3, 2, 1)
    assert t["response_time_mean"] == 15.0 and t["response_time_ci95_lo"] < 15.0 < t["response_time_ci95_hi"]
    assert t["timeouts_mean"] == 2.0 and t["snoop_local_retransmissions_mean"] is None


# --- the study end to end ---------------------------------------------------------

ARMS = snoop_setup.QUICK_ARMS


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("snoop") / "q"
    proc = run_cli("reproduce", "snoop", "--out", out, "--quick", "--quiet")
    with open(out / "table.csv") as fh:
        rows = list(csv.DictReader(fh))
    return out, rows, proc


def test_quick_study_writes_every_output(quick):
    out, rows, proc = quick
    assert proc.stdout == "" and proc.stderr == ""
    for name in ["table.csv", "runs.csv", "report.md"]:
        assert (out / name).stat().st_size > 0
    expected = [("s1", a, "m1", r) for a in ARMS for r in ("0", "0.1", "0.3")]
    expected += [("s2", a, m, r) for a in ("tcp", "snoop") for r in ("0", "0.1", "0.3") for m in ("m1", "m2")]
    assert [(r["scenario"], r["arm"], r["mobile"], r["drop_rate"]) for r in rows] == expected
    assert {r["mac"] for r in rows} == {"80211"}  # the default wireless hop: the 802.11 MAC, as the seed ran
    assert all(r["mac_retries_mean"] != "" for r in rows)
    with open(out / "runs.csv") as fh:
        runs = list(csv.DictReader(fh))
    assert len(runs) == 2 * len(rows)  # 2 seeds
    for png in [
        "s1_80211_response_time.png",
        "s2_80211_response_time.png",
        "s1_80211_drop0.3_seed1_cwnd.png",
        "s1_80211_drop0.3_seed1_seq.png",
        "s1_80211_drop0.3_seed1_snoop_cache.png",
    ]:
        assert (out / "plots" / png).stat().st_size > 10_000, png
    report_md = (out / "report.md").read_text()
    assert "~68 times" in report_md and "s1: upload response time, TCP / Snoop at 30% drop" in report_md
    assert sorted(p.name for p in (out / "scenarios").iterdir())[:2] == ["s1_80211_itcp.json", "s1_80211_sack.json"]
    # The ~68-fold claim carries its verdict and the variants tried.
    assert "on every variant tried (802.11 DCF, PEG all packets:" in report_md and "opnet-2003 (default), PEG data only:" in report_md
    assert "TCP profile: `opnet-2003`" in report_md


def test_quick_study_intervals_bracket_the_means(quick):
    _, rows, _ = quick
    for r in rows:
        assert r["n"] == "2"
        if r["finished"] == "2":
            m, lo, hi = (float(r[k]) for k in ("response_time_mean", "response_time_ci95_lo", "response_time_ci95_hi"))
            assert lo <= m <= hi, r
    zero = [float(r["response_time_mean"]) for r in rows if r["drop_rate"] == "0"]
    assert all(0 < x < 1 for x in zero)


def test_snoop_shortens_the_lossy_upload(quick):
    """The mechanism's basic effect (seed 004, scenario 1): with 30 % of the
    mobile's data dropped, Snoop's local repair beats plain TCP's timeouts."""
    _, rows, _ = quick
    t = {(r["arm"], r["drop_rate"]): r for r in rows if r["scenario"] == "s1"}
    assert t["tcp", "0.3"]["unfinished"] == t["snoop", "0.3"]["unfinished"] == "0"
    assert float(t["snoop", "0.3"]["response_time_mean"]) < float(t["tcp", "0.3"]["response_time_mean"])
    assert float(t["snoop", "0.3"]["snoop_local_retransmissions_mean"]) > 0
    assert t["tcp", "0.3"]["snoop_local_retransmissions_mean"] == ""


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rates", "0,2"], "airtcp: --rates: 2 is outside [0, 1]"),
        (["--seeds", "0"], "airtcp: --seeds must be at least 1"),
        (["--jobs", "0"], "airtcp: --jobs must be at least 1"),
    ],
)
def test_bad_arguments_exit_2_and_write_nothing(tmp_path, args, message):
    proc = run_cli("reproduce", "snoop", "--out", tmp_path / "o" / "x", "--quick", *args, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sid", ["s1", "s2", "s3"])
def test_shipped_toml_runs_as_the_study_builds_it(sid):
    toml = REPO / "scenarios" / snoop_setup.SHIPPED[sid]
    a = airtcp.run(toml, overrides={"sim.duration": "2s"})
    b = airtcp.run(snoop_setup.scenario(SETUPS[sid], "snoop", 0.3, duration_s=2, series=True))
    assert a.summary["scenario"] == b.summary["scenario"]
    assert [f["response_time_s"] for f in a.flows] == [f["response_time_s"] for f in b.flows]
