"""Print the wi-tcp claim table of docs/handoff-studies.md from a study's
runs.csv: one column per stack, rate and link (NewReno on ns-2's agents,
CUBIC on linux), at the first HA-FA delay.

    airtcp reproduce wi-tcp --out out/wi-tcp --jobs 2
    python scripts/wi_tcp_doc_tables.py out/wi-tcp/runs.csv [STACK ...]

Stacks default to ns2 and linux (the mechanism stacks are in report.md).
"""

from __future__ import annotations

import csv
import sys

from airtcp.studies.reporting import fmt, fmt_ci, md_table, summarize
from airtcp.studies.wi_tcp.report import _claims
from airtcp.studies.wi_tcp.setup import LINK_LABELS, LINUX_VARIANT, STACKS

NUM = {"rate_mbps", "hafa_ms", "seed"}


def load(path):
    runs = []
    with open(path) as fh:
        for r in csv.DictReader(fh):
            row = {}
            for k, v in r.items():
                if k in NUM:
                    row[k] = float(v) if k == "rate_mbps" else int(v)
                elif k in ("stack", "schedule", "link", "mode", "variant", "first_lost_sends_s"):
                    row[k] = v
                else:
                    row[k] = float(v) if v not in ("", None) else None
            runs.append(row)
    return runs


def main(path: str, stacks=("ns2", "linux")) -> None:
    runs = load(path)
    d0 = min(r["hafa_ms"] for r in runs)
    cols, values = [], []
    for stack in stacks:
        if stack not in STACKS:
            raise SystemExit(f"unknown stack {stack!r} (known: {', '.join(STACKS)})")
        for rate in sorted({r["rate_mbps"] for r in runs}):
            for link in ("wlan", "p2p"):
                rr = [r for r in runs if r["stack"] == stack and r["rate_mbps"] == rate and r["link"] == link]
                if not rr:
                    continue
                v = "newreno" if STACKS[stack] is None else LINUX_VARIANT
                claims = _claims(rr, link, v, d0)[0]
                sel = lambda mode, key: summarize([r[key] for r in rr if r["mode"] == mode and r["variant"] == v and r["hafa_ms"] == d0])  # noqa: E731
                seed1 = [r for r in rr if r["mode"] == "romip" and r["variant"] == v and r["hafa_ms"] == d0 and r["seed"] == 1]
                col = [fmt_ci(c.measured, c.spec) for c in claims[:7]]
                col.append(f"{fmt(sel('witcp', 'pkts_at_42_52').mean, '{:.0f}')} / {fmt(sel('romip', 'pkts_at_42_52').mean, '{:.0f}')}")
                col.append(fmt(sel("romip", "rate_before_move_mbps").mean, "{:.2f}"))
                col.append(fmt(sel("romip", "first_rto_s").mean, "{:.2f}"))
                col.append(f"{fmt(seed1[0]['first_lost_pkt'], '{:.0f}')}: {seed1[0]['first_lost_sends_s'].replace(';', ', ')}" if seed1 else "-")
                col.append(f"{fmt(sel('witcp', 'resume_s').mean, '{:.2f}')} / {fmt(sel('romip', 'resume_s').mean, '{:.2f}')}")
                cols.append(f"{stack} {rate:g} Mb/s {LINK_LABELS[link]}")
                values.append(col)
    names = [
        "Wi-TCP over route-optimised MIP (%)",
        "Wi-TCP over MIP (%)",
        "route optimisation alone (%)",
        "packets ahead, 5 s after the FA→FA move",
        "RTOs with Wi-TCP",
        "Wi-TCP over EHN [8] (%)",
        "EHN − Wi-TCP retransmissions per run",
        "packets by 42.52 s, Wi-TCP / route-optimised",
        "goodput in the second before the move (Mb/s)",
        "first RTO after the move, route-optimised (s)",
        "first lost packet's sends, route-optimised, seed 1 (s)",
        "delivery resumes after HA→FA, Wi-TCP / route-optimised (s)",
    ]
    rows = [[n] + [c[i] for c in values] for i, n in enumerate(names)]
    print("\n".join(md_table(["claim"] + cols, rows)))


if __name__ == "__main__":
    main(sys.argv[1], tuple(sys.argv[2:]) or ("ns2", "linux"))
