"""The ``--emulate`` arm of ``airtcp reproduce sdn-zwa``: the ZWA and bare
TCP handoffs once each with a real Linux sender (airtcp.emulate_zwa), and
the report section that puts the kernel's figures beside the simulated
arms of the same handoff (2 hops, 2 s away)."""

from __future__ import annotations

import tempfile

from ..reporting import fmt, md_table
from ..reporting import summarize_counts as summarize_nonnegative
from ...runner.study import StudyError
from .setup import SEED_STACK

#: The simulated runs shown beside the kernel's: Fig. 7's point with the
#: emulated scenario's handoff (scenarios/sdn-zwa.toml: 2 hops, 2 s away).
HOPS = 2
DISCONNECT_S = 2.0


def check() -> str:
    """Before anything runs: the emulator's path, or :class:`StudyError`
    with the one-line reason (not root, airtcp-emulate or a tool missing)."""
    from ... import emulate_zwa

    try:
        return emulate_zwa.require()
    except emulate_zwa.EmulateError as e:
        raise StudyError(f"--emulate: {e}") from None


def run(exe: str, quiet: bool = False) -> dict:
    """Both arms through the emulator (about 45 s of real time)."""
    from ... import emulate_zwa

    if not quiet:
        print("sdn-zwa --emulate: ZWA and bare TCP on a real Linux sender (about 45 s) ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="airtcp-sdn-zwa-emulate-") as base:
        try:
            return emulate_zwa.run_both(exe, base)
        except emulate_zwa.EmulateError as e:
            raise StudyError(f"--emulate: {e}") from None


def _sim(runs: list[dict], arm: str, key: str) -> str:
    xs = [r[key] for r in runs if r.get("stack", SEED_STACK) == SEED_STACK and r["fig"] == "7" and r["arm"] == arm and r["hops"] == HOPS and r["disconnect_s"] == DISCONNECT_S]
    st = summarize_nonnegative(xs)
    return f"{fmt(st.mean, '{:.2f}')} (n={st.n})" if xs else "-"


def section(kernel: dict, runs: list[dict]) -> list[str]:
    """Markdown lines of "On a real Linux sender"."""
    rows = []
    for arm, label in (("zwa", "ZWA"), ("bare", "bare TCP")):
        k = kernel[arm]
        rows.append([
            f"{label}, kernel",
            str(k["retrans"]),
            str(k["timeouts"]),
            str(k["win_probes"]),
            f"{k['ss_samples_in_persist']} / {k['ss_samples_in_rto_backoff']} (max backoff {k['ss_backoff_max']})",
            fmt(k.get("interruption_s"), "{:.1f}"),
            "yes" if k["lateness"]["overloaded"] else "no",
        ])
        rows.append([
            f"{label}, simulated ({SEED_STACK}, mean)",
            _sim(runs, arm, "retransmissions"),
            _sim(runs, arm, "handoff_timeouts"),
            _sim(runs, arm, "window_probes"),
            "-",
            _sim(runs, arm, "interruption_s"),
            "-",
        ])
    return [
        "## On a real Linux sender",
        "",
        "`--emulate`: scenarios/sdn-zwa.toml (2 hops, the MN 2 s away from 10 s) run once per arm through "
        "`airtcp-emulate` with the kernels of this host as CN and MN (docs/emulate.md): iperf3 for 15 s, the sender "
        "set as the seed set its own (Reno, SACK off, IW 1 through `ip route ... initcwnd 1`; window scaling off and a "
        "40,000-byte buffer as the simulated profile). Kernel counters are the sender namespace's for the whole run "
        "(`Tcp.RetransSegs`, `TcpExt.TCPTimeouts`, `TcpExt.TCPWinProbe`); TCP_INFO is `ss -ti` sampled about every "
        "0.1 s (samples with the socket in persist / in RTO backoff); the interruption is read from the receiver's "
        "`bytes_received`, sampled the same way (good to about 0.1 s). Simulated rows: Fig. 7's runs at the same "
        "point, whose roam starts at 10 s plus a seeded offset below 1 s (retransmissions, handoff RTOs, window "
        "probes, interruption). A run marked overloaded had more than "
        "1 % of its events over 1 ms late: its timing is not the scenario's.",
        "",
        *md_table(["arm", "retransmissions", "timeouts", "window probes", "TCP_INFO persist / backoff samples", "interruption (s)", "overloaded"], rows),
        "",
    ]
