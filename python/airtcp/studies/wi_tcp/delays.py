"""Seed 001's delay analysis (its §6.2, eqs. 1-4) measured from one run's
event log: the serving agents' ``witcp_eho`` / ``witcp_ehc`` lines (when
each signal left its agent), the sender's ``witcp_freeze`` /
``witcp_resume`` events (when it arrived), the mobile's link and
registration events, and for the explicit handover notification arm the
mobile's ``ehn_sent`` and the sender's ``handover_notified``.

Per handoff ``k`` (the run has four: HA->FA, FA->HA, HA->FA, FA->FA), with
``t_left`` the instant the host left its cell:

- eq. 1: T_EHO-ACK = t_left + alpha + (RTT/2 - rtt): ``alpha_s`` is the
  agent's MAC failure after the host left, ``t_eho_trip_s`` the signal's
  trip to the sender, ``t_eho_s`` their sum (the host's departure to the
  sender's freeze);
- eqs. 2-3: T_EHC-ACK adds T_RECONNECT (departure to the mobile's
  registration), for FA->FA T_NEWFA-OLDFA (the Binding Update's trip from
  the new agent to the old one) and T_FA-SENDER (``t_ehc_trip_s``);
- eq. 4: T_IDEAL = T_EHC-ACK - T_EHO-ACK, the time frozen;
  ``eq4_residual_s`` is the largest difference between the sender's frozen
  time and the gap between the two signals at their agents (the two trips
  differ by the path change).

Columns are ``None`` when the run has no such events (other arms).
"""

from __future__ import annotations

DELAY_COLUMNS = [
    "alpha_s",
    "t_eho_trip_s",
    "t_eho_s",
    "t_reconnect_hafa_s",
    "t_ideal_hafa_s",
    "t_reconnect_fafa_s",
    "t_newfa_oldfa_s",
    "t_ideal_fafa_s",
    "t_ehc_trip_s",
    "t_ideal_mean_s",
    "eq4_residual_s",
    "t_notified_s",
]


def _times(events, kind: str, contains: str = "") -> list[float]:
    return [e["t_s"] for e in events if e["kind"] == kind and contains in e.get("detail", "")]


def _mean(xs):
    return sum(xs) / len(xs) if xs else None


def delay_analysis(events, departures: list[float] | None = None) -> dict:
    """The delay columns of one run. `departures`: when the host left each
    cell (default: the station's ``wifi_link_lost``, exact on the p2p link;
    over 802.11 the station notices only after its beacon loss)."""
    out = dict.fromkeys(DELAY_COLUMNS)
    left = departures if departures is not None else _times(events, "wifi_link_lost")
    notified = _times(events, "handover_notified")
    if notified and len(notified) == len(left):
        out["t_notified_s"] = _mean([n - t for n, t in zip(notified, left)])
    eho, ehc = _times(events, "witcp_eho"), _times(events, "witcp_ehc")
    frz, res = _times(events, "witcp_freeze"), _times(events, "witcp_resume")
    reg = _times(events, "mip_registered", "mobile_node")
    n = len(left)
    if n == 0 or not all(len(x) == n for x in (eho, ehc, frz, res, reg)):
        return out
    out["alpha_s"] = _mean([eho[k] - left[k] for k in range(n)])
    out["t_eho_trip_s"] = _mean([frz[k] - eho[k] for k in range(n)])
    out["t_eho_s"] = _mean([frz[k] - left[k] for k in range(n)])
    out["t_ehc_trip_s"] = _mean([res[k] - ehc[k] for k in range(n)])
    ideal = [res[k] - frz[k] for k in range(n)]
    out["t_ideal_mean_s"] = _mean(ideal)
    out["eq4_residual_s"] = max(abs(ideal[k] - (ehc[k] - eho[k])) for k in range(n))
    out["t_reconnect_hafa_s"] = reg[0] - left[0]
    out["t_ideal_hafa_s"] = ideal[0]
    out["t_reconnect_fafa_s"] = reg[-1] - left[-1]
    out["t_ideal_fafa_s"] = ideal[-1]
    smooth = [t for t in _times(events, "mip_smooth_handoff") if t >= left[-1]]
    if smooth:
        out["t_newfa_oldfa_s"] = ehc[-1] - smooth[0]
    return out
