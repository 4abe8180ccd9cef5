"""The plan every study hands to the runner (airtcp.runner.plan): the grid of
dependent axes, labels in runs.csv order, and each study's runs — their
names (the labels in order, as errors name them), order and kept runs —
against small golden lists. Nothing is simulated: the runner is replaced by
one that records the plan."""

import pytest

from airtcp.cli import main
from airtcp.runner import study as runner
from airtcp.runner.plan import Plan, grid


def test_grid_axes_may_depend_on_the_earlier_ones():
    modes = {"wlan": ["mip", "freeze"], "p2p": ["mip"]}
    points = grid(stack=["ns2", "linux"], schedule="seed", link=["wlan", "p2p"], mode=lambda p: modes[p["link"]])
    assert [tuple(p.values()) for p in points] == [
        ("ns2", "seed", "wlan", "mip"),
        ("ns2", "seed", "wlan", "freeze"),
        ("ns2", "seed", "p2p", "mip"),
        ("linux", "seed", "wlan", "mip"),
        ("linux", "seed", "wlan", "freeze"),
        ("linux", "seed", "p2p", "mip"),
    ]
    # A single value (None included) is one value; a function may return one too.
    assert grid(a=None, b=lambda p: 3, c=range(2)) == [{"a": None, "b": 3, "c": 0}, {"a": None, "b": 3, "c": 1}]


def test_plan_runs_every_point_for_every_seed_labels_in_column_order():
    built = []

    def scenario(labels):
        built.append(dict(labels))
        return {"sim": {"duration": f"{labels['rate']}s"}}

    plan = Plan(scenario, columns=("arm", "seed", "rate"))
    plan.add(grid(rate=[1, 2], arm=["tcp", "snoop"]), 2, keep=lambda r: r["seed"] == 1 and r["arm"] == "snoop")
    plan.add([{"rate": 9, "arm": "x"}], [7])
    assert [list(t.labels.items()) for t in plan.tasks[:2]] == [
        [("arm", "tcp"), ("seed", 1), ("rate", 1)],
        [("arm", "tcp"), ("seed", 2), ("rate", 1)],
    ]
    assert [(t.labels["rate"], t.labels["arm"], t.seed, t.keep) for t in plan.tasks] == [
        (1, "tcp", 1, False), (1, "tcp", 2, False), (1, "snoop", 1, True), (1, "snoop", 2, False),
        (2, "tcp", 1, False), (2, "tcp", 2, False), (2, "snoop", 1, True), (2, "snoop", 2, False),
        (9, "x", 7, False),
    ]
    assert plan.tasks[-1].scenario == {"sim": {"duration": "9s"}} and built[-1] == {"arm": "x", "seed": 7, "rate": 9}


def test_plan_refuses_labels_that_are_not_its_columns():
    plan = Plan(lambda labels: {}, columns=("arm", "seed"))
    with pytest.raises(ValueError, match=r"labels \['arm', 'rate', 'seed'\] are not the plan's columns \['arm', 'seed'\]"):
        plan.add(grid(arm="tcp", rate=0.1), 1)


# --- each study's plan -------------------------------------------------------------

#: `airtcp reproduce` arguments -> the runs, in order; "*" marks a kept run.
GOLDEN = {
    ("drive-test", "--quick", "--seeds", "1", "--algorithms", "cubic", "veno"): [
        "*drive-test stack=linux-3.16 variant=seed-rate log=ucc-excerpt algorithm=cubic seed=1",
        "*drive-test stack=linux-3.16 variant=seed-rate log=ucc-excerpt algorithm=veno seed=1",
        "drive-test stack=linux-3.16 variant=random-loss log=ucc-excerpt algorithm=cubic seed=1",
        "drive-test stack=linux-3.16 variant=random-loss log=ucc-excerpt algorithm=veno seed=1",
    ],
    ("snoop", "--quick", "--seeds", "1", "--rates", "0.3", "--scenarios", "s1", "s2", "--arms", "tcp", "snoop"): [
        "*snoop scenario=s1 mac=80211 arm=tcp drop_rate=0.3 seed=1",
        "*snoop scenario=s1 mac=80211 arm=snoop drop_rate=0.3 seed=1",
        "snoop scenario=s2 mac=80211 arm=tcp drop_rate=0.3 seed=1",
        "snoop scenario=s2 mac=80211 arm=snoop drop_rate=0.3 seed=1",
    ],
    ("tcpfender", "--quick", "--seeds", "1", "--arms", "tcpip", "tcpfender"): [
        f"{keep}tcpfender part={part} stack={stack} switch={switch} arm={arm} rts=True loss_scale=1.0 seed=1"
        for keep, part, stack, switch in [
            ("*", "main", "ns2", ""),
            ("", "stack", "linux", ""),
            ("", "switch", "linux", "per-packet-growth"),
            ("", "switch", "linux", "ns2-start"),
        ]
        for arm in ["tcpip beta=None pipeline=None", "tcpfender beta=50 pipeline=4"]
    ],
    ("wi-tcp", "--quick", "--seeds", "2", "--link", "p2p", "--stacks", "ns2"): [
        f"{'*' if seed == 1 else ''}wi-tcp stack=ns2 schedule=seed rate_mbps=2 link=p2p mode={mode} variant=newreno hafa_ms=10 seed={seed}"
        for mode in ["mip", "romip", "witcp", "ehn"]
        for seed in [1, 2]
    ],
}


@pytest.fixture
def planned(monkeypatch, tmp_path):
    """Runs `airtcp reproduce ARGS` up to the runner and returns its runs
    as names, "*" before a kept one; nothing is simulated or written."""
    import airtcp.studies.tcpfender.run as tcpfender_run

    class Planned(Exception):
        pass

    got = []

    def record(out, tasks, measure, write, **kw):
        got.extend(("*" if t.keep else "") + runner.task_name(runner.study_of(measure), t) for t in tasks)
        raise Planned

    monkeypatch.setattr(runner, "run_study", record)
    # TCPFender's coded arms measure the links' delivery with a TCP/IP run first.
    monkeypatch.setattr(tcpfender_run, "measured_delivery", lambda duration_s: None)

    def plan(args):
        got.clear()
        with pytest.raises(Planned):
            main(["reproduce", args[0], "--out", str(tmp_path / "out"), "--quiet", *args[1:]])
        return list(got)

    return plan


@pytest.mark.parametrize("args", list(GOLDEN), ids=[a[0] for a in GOLDEN])
def test_study_plans_its_runs_as_before(planned, args):
    assert planned(args) == GOLDEN[args]


def test_sdn_zwa_plans_fig6_fig7_fig8_and_the_statistics_sweep():
    from airtcp.studies.sdn_zwa.run import build_tasks

    names = [("*" if t.keep else "") + runner.task_name("sdn-zwa", t) for t in build_tasks(1, [2.0], [3], [10.0], stacks=["linux"])]
    fig6 = [("bare TCP", "bare"), ("ZWA failing (statistics off)", "zwa-nostats"), ("ZWA working", "zwa")]
    assert names == [
        *(f"sdn-zwa stack=linux fig=6 case={case} arm={arm} hops=2 disconnect_s=1.5 seed=1 t0t2_ms=None" for case, arm in fig6),
        *(f"sdn-zwa stack=linux fig=7 case= arm={arm} hops=2 disconnect_s=2.0 seed=1 t0t2_ms=None" for arm in ["bare", "zwa", "zwa-nostats", "noroam"]),
        *(f"sdn-zwa stack=linux fig=8 case= arm={arm} hops=3 disconnect_s=2.0 seed=1 t0t2_ms=None" for arm in ["bare", "zwa"]),
        "sdn-zwa stack=linux-4.4 fig=stats case= arm=zwa hops=2 disconnect_s=2.0 seed=1 t0t2_ms=10.0",
    ]
