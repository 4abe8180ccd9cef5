"""Compare a study's per-run metrics as computed by an earlier commit's Python
(the measure code at REF) and by the working tree, on the same runs: the
check that moving or redefining a metric leaves the studies' numbers as
they were (or lists each change).

    python scripts/compare_study_metrics.py REF STUDY [MAX_RUNS] [--exact]

STUDY is sdn-zwa, wi-tcp, tcpfender, drive-test or snoop; run from the
repository root with the extension built (scripts/setup.sh). Without
--exact, numbers equal to 1e-9 relative count as equal."""
import importlib.util
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import airtcp

if len(sys.argv) < 3:
    sys.exit(__doc__)
REF, study = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
EXACT = "--exact" in sys.argv


def old_module(pkg, name, rewrites=()):
    path = f"python/airtcp/studies/{pkg}/{name}.py"
    got = subprocess.run(["git", "show", f"{REF}:{path}"], capture_output=True, text=True)
    if got.returncode != 0:
        sys.exit(f"{REF} has no {path} (the studies as packages): {got.stderr.strip()}")
    src = got.stdout
    for a, b in rewrites:
        assert a in src, a
        src = src.replace(a, b)
    f = Path(tempfile.mkdtemp()) / f"_old_{name}.py"
    f.write_text(src)
    spec = importlib.util.spec_from_file_location(f"airtcp.studies.{pkg}._old_{name}", f)
    m = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = m
    spec.loader.exec_module(m)
    return m


def same(a, b):
    if EXACT:
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a))
    return a == b


def flat(rows):
    return rows if isinstance(rows, dict) else {f"{i}:{k}": v for i, row in enumerate(rows) for k, v in row.items()}


def compare(tasks, old_measure, new_measure, extra=None):
    diffs = runs = 0
    for t in tasks[:n]:
        r = airtcp.run(t.scenario, seed=t.seed)
        o, w = flat(old_measure(t, r)), flat(new_measure(t, r))
        if extra:
            o2, w2 = extra(t, r)
            o, w = dict(o, **o2), dict(w, **w2)
        runs += 1
        for k in sorted(set(o) | set(w)):
            if k.endswith("run_wall_s"):
                continue
            if not same(o.get(k), w.get(k)):
                diffs += 1
                print(f"DIFF {t.labels} {k}: old {o.get(k)!r} new {w.get(k)!r}")
    print(f"{study}: {runs} runs, {diffs} differences{' (exact)' if EXACT else ' (1e-9 relative)'}")


if study == "sdn-zwa":
    from airtcp.studies.sdn_zwa import measure as new, run as R
    old = old_module("sdn_zwa", "measure")
    tasks = R.build_tasks(2, [1.5, 2.0, 6.0], [3, 7], [10.0, 200.0])
    compare(tasks, old.measure, new.measure)
elif study == "wi-tcp":
    from airtcp.studies.wi_tcp import measure as new, run as R
    old = old_module("wi_tcp", "measure")
    tasks = R.build_tasks(("wlan", "p2p"), ("newreno", "tahoe"), (10,), 1, False, stacks=("ns2", "linux"), rates=(1, 2))
    compare(tasks, old.measure, new.measure)
elif study == "tcpfender":
    from airtcp.studies.tcpfender import measure as new, run as R
    from airtcp.studies.tcpfender.setup import ARMS, measured_delivery
    old_module("tcpfender", "metrics")
    old = old_module("tcpfender", "measure", [("from .metrics import", "from ._old_metrics import")])
    tasks = R.build_tasks(list(ARMS), 1, 30.0, True, measured_delivery(30.0), False)
    compare(tasks, old.measure, new.measure)
elif study == "drive-test":
    from airtcp.runner.study import Task
    from airtcp.studies.drive_3g import measure as new
    from airtcp.studies.drive_3g.setup import SEED_RATE_SCALE, resolve_logs, scenario, traces_dir
    old = old_module("drive_3g", "measure")
    (log, path), = resolve_logs(["ucc-excerpt"], traces_dir(None))
    tasks = [Task({"alg": a, "loss": l}, scenario(path, a, 60.0, True, log.keys, SEED_RATE_SCALE, random_loss=l), 1) for a in ("cubic", "veno", "westwood") for l in (False, True)]
    compare(tasks, old.measure, new.measure)
elif study == "snoop":
    from airtcp.studies.snoop import measure as new, run as R
    from airtcp.studies.snoop.setup import DEFAULTS, QUICK_PLAN
    old = old_module("snoop", "measure")
    tasks = R.build_tasks(QUICK_PLAN, [0.1, 0.3], 1, DEFAULTS["duration_s"], DEFAULTS["bytes"], True)
    ext = lambda t, r: ({"median_rto": old.median_rto(old.keep_run(t, r, None))}, {"median_rto": new.median_rto(new.keep_run(t, r, None))})
    compare([t for t in tasks if t.keep] + [t for t in tasks if not t.keep][:10], old.measure, new.measure, extra=ext)
else:
    sys.exit(f"unknown study {study!r}: sdn-zwa, wi-tcp, tcpfender, drive-test or snoop")
