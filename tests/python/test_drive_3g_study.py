"""`airtcp reproduce drive-test --quick`: table columns, report, plots, and
the pieces the study builds on (trace keys in a dict scenario, handoff events,
the signal series in the summary)."""

import csv
from pathlib import Path

import pytest

import airtcp
from airtcp.studies.drive_3g import measure as drive_measure
from airtcp.studies.drive_3g import setup as drive_setup

from conftest import run_cli

EXCERPT = drive_setup.log_path(drive_setup.LOGS["ucc-excerpt"], Path("."))

TABLE_COLUMNS = [
    "log",
    "algorithm",
    "seeds",
    "goodput_kBps_mean",
    "goodput_kBps_sd",
    "handoffs_mean",
    "timeouts_mean",
    "timeouts_sd",
    "cuts_4_5_mean",
    "cuts_1_2_mean",
    "queue_drops_mean",
    "loss_drops_mean",
    "outage_drops_mean",
    "seed_phase1_kBps",
    "seed_phase2_kBps",
]


def test_quick_study_writes_table_report_and_plots(tmp_path):
    out = tmp_path / "dt"
    proc = run_cli("reproduce", "drive-test", "--out", out, "--quick", "--quiet")
    assert proc.returncode == 0
    with open(out / "table.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert set(TABLE_COLUMNS) <= set(rows[0])
    # Quick: the seed-rate run and its random-loss arm, uploads.
    assert [(r["variant"], r["log"], r["algorithm"], r["seeds"]) for r in rows] == [
        (v, "ucc-excerpt", a, "2") for v in ["seed-rate", "random-loss"] for a in ["cubic", "veno", "westwood", "reno", "bbr"]
    ]
    # Random loss from the signal gives Veno's loss differentiation something to act on.
    loss = {r["algorithm"]: r for r in rows if r["variant"] == "random-loss"}
    clean = {r["algorithm"]: r for r in rows if r["variant"] == "seed-rate"}
    assert float(loss["veno"]["loss_drops_mean"]) > 10 * (1 + float(clean["veno"]["loss_drops_mean"]))
    assert float(loss["veno"]["cuts_4_5_mean"]) > float(clean["veno"]["cuts_4_5_mean"])
    seed = {r["algorithm"]: (r["seed_phase1_kBps"], r["seed_phase2_kBps"]) for r in rows}
    assert seed["cubic"] == ("49", "80") and seed["veno"] == ("59.6", "196") and seed["westwood"] == ("55", "195")
    assert seed["bbr"] == ("", "")
    for r in rows:
        assert float(r["goodput_kBps_mean"]) > 0
        # The excerpt changes cell 4 times in its first 60 s, the same for every run.
        assert float(r["handoffs_mean"]) == 4
    with open(out / "runs.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 20
    report = (out / "report.md").read_text()
    assert "Veno/Cubic goodput" in report and "seed: 1.22 in phase 1, 2.45 in phase 2" in report
    assert "## What the data shows" in report and "uploads" in report
    for alg in ["cubic", "veno", "westwood", "reno", "bbr"]:
        for kind in ["cwnd", "seq"]:
            png = out / "plots" / f"ucc-excerpt_{alg}_{kind}.png"
            assert png.stat().st_size > 10_000, png
            assert f"plots/ucc-excerpt_{alg}_{kind}.png" in report
        assert (out / "scenarios" / f"linux-3.16_seed-rate_ucc-excerpt_{alg}.json").exists()
    assert "TCP stacks: `linux-3.16`" in report


def test_unknown_log_is_a_usage_error(tmp_path):
    proc = run_cli("reproduce", "drive-test", "--out", tmp_path / "x", "--logs", "nowhere", check=False)
    assert proc.returncode == 2
    assert "unknown drive log 'nowhere'" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_study_scenario_logs_handoffs_and_signal():
    sc = drive_setup.scenario(EXCERPT.resolve(), "veno", 20.0, handoff_drops=True)
    # An upload by default: the mobile sends, the log drives mobile -> bs.
    assert (sc["flows"][0]["from"], sc["flows"][0]["to"]) == ("mobile", "server")
    r = airtcp.run(sc, seed=3)
    trace = r.summary["links"][1]["trace_ba"]
    hand = [e for e in r.events if e["kind"] == "handoff"]
    assert len(hand) == trace["handoffs"] == len(trace["handoff_times"]) > 0
    assert hand[0]["link"] == 1 and hand[0]["detail"].endswith("ba outage=50ms drop")
    assert [h["t_s"] for h in trace["handoff_times"]] == [e["t_s"] for e in hand]
    s = trace["series"]
    assert len(s["t_s"]) == len(s["signal_dbm"]) == len(s["capacity_bps"]) and s["t_s"][0] == 0.0
    m = drive_measure.metrics(r)
    assert m["handoffs"] == len(hand)
    assert m["cuts_4_5"] + m["cuts_1_2"] <= m["recoveries"]


def test_bad_trace_line_names_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.csv"
    lines = EXCERPT.read_text().splitlines()
    lines[3] = lines[3].split(",", 1)[0]  # a truncated row
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.run(drive_setup.scenario(bad, "cubic", 5.0, handoff_drops=False))
    assert f"{bad}:4:" in str(e.value)
    assert e.value.key == "links[1].trace_ba.file"


@pytest.mark.parametrize("log", ["ucc", "imc23", "feup"])
def test_shipped_toml_matches_the_study(log):
    """scenarios/drive-<log>.toml is the study's download scenario for that log (cubic)."""
    toml = drive_setup.REPO / "scenarios" / f"drive-{log}.toml"
    path = drive_setup.log_path(drive_setup.LOGS[log], drive_setup.traces_dir(None))
    if not path.exists():
        pytest.skip(f"shared drive log {path} not present")
    a = airtcp.run(toml, overrides={"sim.duration": "1s"}).summary["scenario"]
    b = airtcp.run(drive_setup.scenario(path, "cubic", 1.0, handoff_drops=True, direction="download")).summary["scenario"]
    for s in (a, b):
        t = s["links"][1]["trace_ab"]
        t["file"] = str(Path(t["file"]).resolve())
    assert a == b


def _runs(stack, variant, log, goodputs):
    return [
        {"stack": stack, "variant": variant, "log": log, "algorithm": alg, "seed": i + 1, "goodput_kBps": g}
        for alg, gs in goodputs.items()
        for i, g in enumerate(gs)
    ]


def test_stack_section_puts_a_changed_claim_first():
    """Veno beats Cubic on linux-3.16 but ties on linux: that row comes first
    and says the claim changes; Westwood ties on both and holds."""
    from airtcp.studies.drive_3g.report import _stack_section

    seed = {"cubic": [100, 101, 99], "veno": [130, 131, 129], "westwood": [100, 102, 98]}
    today = {"cubic": [100, 101, 99], "veno": [100, 103, 97], "westwood": [101, 100, 99]}
    runs = _runs("linux-3.16", "seed-rate", "ucc", seed) + _runs("linux", "seed-rate", "ucc", today)
    text = "\n".join(_stack_section(runs, ["linux-3.16", "linux"], {"seed-rate": None}))
    assert "profile **`linux-3.16`**" in text
    rows = [line for line in text.splitlines() if line.startswith("| seed-rate")]
    assert rows[0].startswith("| seed-rate | ucc | veno/cubic > 1 | 1.30 [")
    assert "**changes: Cubic beaten on linux-3.16, a tie in practice on linux**" in rows[0]
    assert "holds on both (a tie in practice)" in rows[1]
    assert "1 change their verdict (0 of them reverse it), 0 keep it but move outside" in text
    # The receiver's and the sender's rules that differ between the two profiles are named.
    assert "(`push_ack`, Linux 6.6) and its SACK compression (`comp_sack_nr`, Linux 4.18)" in text
    assert "PSH forced on every multi-segment TSO chunk (`push_tso`, Linux 4.11;" in text


def test_report_names_every_tcp_key_by_which_the_stacks_differ():
    """The stack section's list of profile differences is the whole list:
    every resolved TCP key on which the study's `linux` and `linux-3.16`
    flows differ is RACK, the timestamp clock, a buffer, F-RTO's SACK-less
    guard (which never acts with SACK) or a rule PROFILE_RULES names."""
    from airtcp.studies.drive_3g.report import PROFILE_RULES

    def tcp(stack):
        sc = drive_setup.scenario(EXCERPT, "cubic", 0.01, handoff_drops=True, stack=stack)
        return airtcp.run(sc).summary["scenario"]["flows"][0]["tcp"]

    old, new = tcp("linux-3.16"), tcp("linux")
    differing = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)} - {"profile"}
    assert old["sack"] is True and new["sack"] is True
    named = {k for k in differing if f"`{k}`" in PROFILE_RULES}
    assert named == {"push_ack", "comp_sack_nr", "push_tso"}
    assert differing - named == {"rack", "ts_granularity", "tcp_rmem", "frto_nonsack_guard"}
