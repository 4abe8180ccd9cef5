#!/usr/bin/env python3
"""Compare `airtcp analyze` with tshark's TCP analysis and tcptrace.

    scripts/compare_tshark.py [CAPTURE ...] [--analyzer PATH] [--markdown]

For each capture, counts of the same events from the three tools, one row
per capture and metric (defaults: every capture of
../shared/traces/pcaps). `--markdown` prints the table that
docs/analyze.md carries ("Checks against tshark and tcptrace"). The
analyzer is the `airtcp-analyze` binary (`cargo build --release -p
airtcp-analyze`), which runs exactly what `airtcp analyze` runs.

What each column counts (see docs/analyze.md for why they may differ):
  retransmissions  ours: every retransmission; tshark: frames flagged
                   tcp.analysis.retransmission (fast ones included);
                   tcptrace: "rexmt data pkts", both directions
  fast             ours: fast_retransmit; tshark: tcp.analysis.fast_retransmission
  zero_window      ours: ACKs advertising window 0; tshark: tcp.analysis.zero_window;
                   tcptrace: "zero win adv"
  zw_probes        ours: persist probes; tshark: tcp.analysis.zero_window_probe;
                   tcptrace: "zwnd probe pkts"
  rtt              ours: Karn samples (+ ACKs whose segment was retransmitted);
                   tshark: frames with tcp.analysis.ack_rtt; tcptrace: "RTT samples"
  dup_acks         ours: RFC 5681 duplicate ACKs; tshark: tcp.analysis.duplicate_ack;
                   tcptrace: "duplicate acks"
"""

from __future__ import annotations

import argparse
import csv
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT.parent / "shared" / "traces" / "pcaps"

TSHARK_FIELDS = {
    "retransmissions": "tcp.analysis.retransmission",
    "fast": "tcp.analysis.fast_retransmission",
    "zero_window": "tcp.analysis.zero_window",
    "zw_probes": "tcp.analysis.zero_window_probe",
    "rtt": "tcp.analysis.ack_rtt",
    "dup_acks": "tcp.analysis.duplicate_ack",
}
TCPTRACE_FIELDS = {
    "retransmissions": "rexmt data pkts",
    "zero_window": "zero win adv",
    "zw_probes": "zwnd probe pkts",
    "rtt": "RTT samples",
    "dup_acks": "duplicate acks",
}
METRICS = list(TSHARK_FIELDS)


def ours(capture: Path, analyzer: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([analyzer, str(capture), "--out", d], check=True, capture_output=True)
        rows = list(csv.DictReader(open(Path(d) / "connections.csv")))
    s = lambda k: sum(int(r[k]) for r in rows)  # noqa: E731
    amb = s("rtt_ambiguous")
    return {
        "retransmissions": s("retransmissions"),
        "fast": s("fast_retransmits"),
        "zero_window": s("zero_window_acks"),
        "zw_probes": s("zero_window_probes"),
        "rtt": f"{s('rtt_karn_samples')}" + (f"+{amb}" if amb else ""),
        "dup_acks": s("dup_acks"),
    }


def tshark(capture: Path) -> dict:
    spec = ",".join(f"COUNT({f}){f}" for f in TSHARK_FIELDS.values())
    out = subprocess.run(
        ["tshark", "-n", "-r", str(capture), "-q", "-z", f"io,stat,0,{spec}"],
        check=False,
        capture_output=True,
        text=True,
    ).stdout
    row = [ln for ln in out.splitlines() if "<>" in ln]
    if not row:
        return {k: "?" for k in TSHARK_FIELDS}
    counts = [int(x) for x in re.findall(r"\|\s*(\d+)\s*(?=\|)", row[-1])]
    return dict(zip(TSHARK_FIELDS, counts))


def tcptrace(capture: Path) -> dict:
    if not shutil.which("tcptrace"):
        return {}
    out = subprocess.run(["tcptrace", "-l", "-r", str(capture)], capture_output=True, text=True).stdout
    res = {}
    for k, label in TCPTRACE_FIELDS.items():
        total = 0
        for ln in out.splitlines():
            if label + ":" in ln:
                total += sum(int(x) for x in re.findall(re.escape(label) + r":\s+(\d+)", ln))
        res[k] = total
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("captures", nargs="*", type=Path)
    ap.add_argument("--analyzer", default=str(ROOT / "target" / "release" / "airtcp-analyze"))
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    caps = a.captures or sorted(p for p in TRACES.iterdir() if p.suffix in (".pcap", ".pcapng"))
    if a.markdown:
        print("| capture | metric | airtcp | tshark | tcptrace |")
        print("|---|---|---|---|---|")
    for c in caps:
        o, t, tt = ours(c, a.analyzer), tshark(c), tcptrace(c)
        for m in METRICS:
            if all(str(v) in ("0", "", "-") for v in (o[m], t.get(m, ""), tt.get(m, ""))):
                continue
            row = [c.name, m, str(o[m]), str(t.get(m, "")), str(tt.get(m, "-"))]
            print(("| " + " | ".join(row) + " |") if a.markdown else "\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
