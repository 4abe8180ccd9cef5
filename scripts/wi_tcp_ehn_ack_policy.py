"""The one mechanism behind the EHN retransmission claim flipping between
ns-2's agents and the Linux endpoint in the wi-tcp study: the receiver's
ACK policy.

EHN's notification carries the mobile's cumulative ACK, so what it makes the
sender resend is what was in flight minus what the mobile had already
received when it left. With an ACK per packet (ns-2's TCPSink) about half the
window is delivered but unacknowledged at the disconnection (the ACKs queue
behind the downlink on the shared 802.11 channel and are lost with the
association), and the notification acknowledges them; with a delayed-ACK
receiver (Linux, ns-2's TCPSink/DelAck) about one is. This script runs both
stacks with each receiver policy, EHN and Wi-TCP on the same seeds, and
prints EHN - Wi-TCP retransmissions per run.

    python scripts/wi_tcp_ehn_ack_policy.py [--seeds 10] [--link wlan|p2p]
"""
import argparse
import statistics

import airtcp
from airtcp.studies.wi_tcp import setup

ARMS = {
    "ns-2, TCPSink (ACK per packet)": ("ns2", {}),
    "ns-2, TCPSink/DelAck": ("ns2", {"sink": "ns2-delack"}),
    "linux (delayed ACK)": ("linux", {}),
    "linux, ACK per segment": ("linux", {"delack_count": 1}),
}


def retransmissions(mode: str, stack: str, seed: int, link: str, keys: dict) -> int:
    variant = setup.LINUX_VARIANT if stack == "linux" else "newreno"
    sc = setup.scenario(mode, variant, 10, link=link, seed=seed, stack=stack)
    sc["flows"][0]["tcp"].update(keys)
    return airtcp.run(sc, seed=seed).summary["flows"][0]["retransmissions"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--link", choices=("wlan", "p2p"), default="wlan")
    a = ap.parse_args()
    for name, (stack, keys) in ARMS.items():
        d = [retransmissions("ehn", stack, s, a.link, keys) - retransmissions("witcp", stack, s, a.link, keys) for s in range(1, a.seeds + 1)]
        sd = statistics.stdev(d) if len(d) > 1 else 0.0
        print(f"{name:32s} EHN - Wi-TCP retransmissions per run {statistics.mean(d):+.1f} (sd {sd:.1f}) {d}")


if __name__ == "__main__":
    main()
