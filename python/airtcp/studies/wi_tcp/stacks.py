"""The opening of the wi-tcp report: which TCP stack ran, and whether each
of the seed's headline claims holds on the seed's stack (ns-2's agents)
and on today's Linux, with the claims that flip or move beyond their
interval first and the share of the move one mechanism (F-RTO, switched
off alone on the Linux stack) accounts for."""

from __future__ import annotations

from ..reporting import Stats, fmt, fmt_ci, is_missing, md_table
from .setup import LINK_LABELS, LINUX_VARIANT, NS2_PACKET_SIZE, NS2_WINDOW

#: What "the claim holds" means for each headline claim, in the order
#: report._claims lists them: (rule in words, test on the interval).
HOLDS = [
    ("interval above 0", lambda s: s.lo > 0),
    ("interval above 0", lambda s: s.lo > 0),
    ("interval below +10 %", lambda s: s.hi < 10),
    ("interval above 0", lambda s: s.lo > 0),
    ("mean 0", lambda s: s.mean == 0),
    ("interval above 0", lambda s: s.lo > 0),
    ("interval above 0", lambda s: s.lo > 0),
]


#: The mechanism stacks, in the table's column order.
MECHS = ("linux-nofrto", "linux-clamprto", "linux-norack")


def _holds(i: int, st: Stats) -> bool | None:
    if i >= len(HOLDS) or is_missing(st.mean):
        return None
    if is_missing(st.lo) and i != 4:
        return None
    return bool(HOLDS[i][1](st))


def _yes(b) -> str:
    return "-" if b is None else ("holds" if b else "does not hold")


def _outside(a: Stats, b: Stats) -> bool:
    """b's mean lies outside a's 95 % interval (a point interval for counts
    that never vary)."""
    if is_missing(a.mean) or is_missing(b.mean):
        return False
    lo, hi = (a.mean, a.mean) if is_missing(a.lo) else (a.lo, a.hi)
    return not lo <= b.mean <= hi


def stack_lines(claims_of, rates, links, stacks) -> list[str]:
    """`claims_of(stack, rate, link)` -> list of Claim (report._claims
    on that stack's runs). Returns the report's opening section."""
    L = [
        "## The TCP stack, and whether each claim holds on both",
        "",
        "**Stack: ns-2 2.35's one-way agents**, as the seed ran them: `Agent/TCP` (Tahoe), `Agent/TCP/Reno`, "
        "`Agent/TCP/Newreno` with `Agent/TCPSink` (`profile = \"ns2-tahoe\" | \"ns2-reno\" | \"ns2-newreno\"`), "
        f"`packetSize_` {NS2_PACKET_SIZE} + 40 B of headers and `window_` {NS2_WINDOW} (the seed: \"The packet size is set "
        "to 1040 bytes (including TCP + IP header) ... An end to end TCP connection is assumed with a maximum window "
        "size of 20.\"), every other knob ns-2's default (tick-based RTO, `minrto_` 0.2 s, `rtxcur_init_` 3 s, "
        "`bugFix_`). Wi-TCP and EHN run on the same agent (its handover hooks: freeze on EHO-ACK, restore and go back "
        "to the first unacknowledged packet on EHC-ACK; clear the back-off and go back on EHN). Freeze-TCP cannot: "
        "ns-2's one-way agents have no advertised window and no persist timer, so on this stack its arm runs the "
        "Linux-style endpoint as near ns-2's agent as its keys go (Reno, initial window 2, 200 ms minimum RTO, 3 s "
        "initial RTO, 10 ms timer granularity, an ACK per packet, no SACK, timestamps, F-RTO, undo, TLP or RACK; "
        "windows in bytes and RFC 6298's RTO arithmetic remain).",
        "",
        f"**Sensitivity arm: `linux`**, today's kernel profile as it is (CUBIC, PRR, SACK, timestamps, F-RTO, undo, "
        f"RACK-TLP, 200 ms minimum RTO, an adaptive delayed-ACK timeout from 40 ms) with the seed's 1000-byte segments and a {NS2_WINDOW}-segment "
        f"receive window; its variant column reads `{LINUX_VARIANT}`. **Mechanism arm: `linux-nofrto`**, the same with "
        "F-RTO alone off (`frto = false`), and **`linux-clamprto`**, the same with the RTO computed as ns-2 (and RFC 6298) "
        "compute it, max(200 ms, SRTT + 4·RTTVAR) on a 10 ms clock, instead of Linux's SRTT + max(4·mdev, 200 ms) "
        "(`tcp_set_rto`), and **`linux-norack`**, the same without RACK (`rack = false`: loss marked by the duplicate-ACK "
        "threshold), each at the claims' point only.",
        "",
        "Claims at NewReno (ns-2) / the kernel's CUBIC (linux), the first HA–FA delay. A claim *flips* when it holds on "
        "one stack and not the other; it *moves* when the linux mean lies outside the ns-2 95 % interval. Flips come "
        "first, then moves. The mechanism columns: the value with that one behaviour switched, and the share of the "
        "ns-2 → linux move it takes back.",
        "",
    ]
    rows = []
    for rate in rates:
        for link in links:
            per = {s: claims_of(s, rate, link) for s in stacks}
            ns2, lx = per.get("ns2") or [], per.get("linux") or []
            mechs = [per.get(m) or [] for m in MECHS]
            for i, (a, b) in enumerate(zip(ns2, lx)):
                if i >= len(HOLDS):
                    continue
                ha, hb = _holds(i, a.measured), _holds(i, b.measured)
                flip = ha is not None and hb is not None and ha != hb
                moved = _outside(a.measured, b.measured)
                mech = []
                for nf in mechs:
                    if i >= len(nf):
                        mech.append("-")
                        continue
                    c = nf[i].measured
                    gap = b.measured.mean - a.measured.mean
                    share = (b.measured.mean - c.mean) / gap * 100 if moved and gap and not is_missing(c.mean) else None
                    mech.append(fmt_ci(c, a.spec) + (f" ({share:.0f} % of the move)" if share is not None else ""))
                order = 0 if flip else (1 if moved else 2)
                what = a.what.rsplit(" (", 1)[0]
                verdict = "flips" if flip else ("moves" if moved else "same")
                rows.append(
                    (order, [verdict, f"{rate:g} Mb/s {LINK_LABELS[link]}", what, a.seed_text, fmt_ci(a.measured, a.spec), _yes(ha), fmt_ci(b.measured, b.spec), _yes(hb), *mech, HOLDS[i][0]])
                )
    rows.sort(key=lambda r: r[0])
    L += md_table(
        ["", "point", "claim", "seed", "ns-2 agents", "on ns-2", "linux", "on linux", "linux, F-RTO off", "linux, RTO clamped as ns-2", "linux, RACK off", "holds when"],
        [r for _, r in rows],
    )
    n_flip = sum(1 for o, _ in rows if o == 0)
    n_move = sum(1 for o, _ in rows if o == 1)
    L += ["", f"{n_flip} claim(s) flip and {n_move} more move beyond the ns-2 interval between the stacks, of {len(rows)}.", ""]
    return L


def mechanism_sentence(claims_of, rates, links) -> str:
    """One sentence per point on the Wi-TCP gain over route-optimised MIP:
    ns-2, linux, and linux with F-RTO off."""
    parts = []
    for rate in rates:
        for link in links:
            v = []
            for s in ("ns2", "linux") + MECHS:
                c = claims_of(s, rate, link)
                v.append(fmt(c[0].measured.mean, "{:+.1f} %") if c else "-")
            parts.append(f"{rate:g} Mb/s {LINK_LABELS[link]}: {v[0]} (ns-2) / {v[1]} (linux) / {v[2]} (F-RTO off) / {v[3]} (RTO clamped as ns-2) / {v[4]} (RACK off)")
    return "Wi-TCP over route-optimised MIP — " + "; ".join(parts) + "."
