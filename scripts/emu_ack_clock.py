#!/usr/bin/env python3
"""The ACK clock of a bulk transfer over scenarios/emu-path.toml, read from
link captures (`airtcp-emulate ... --pcap`, kernel or model alike), to find
where a kernel-vs-model difference of smoothed RTT comes from
(docs/emulate.md, "Kernel TCP against airtcp's model").

The link capture stamps each packet at the start of its transmission at the
sender's end, so with the path's rate and delay the script knows when a data
segment reached the receiver and when an ACK reached the sender. From that:

  holds   each RTT sample the sender takes (Linux's rule: the oldest newly
          acknowledged never-retransmitted segment, else the lowest newly
          SACKed one) split into queue wait at the sender's end of the link
          (the segment waited for the link if it started the instant the
          previous one ended; it was queued at the last ACK's arrival), the
          path (serialisation and both delays) and the receiver's hold (from
          the segment's arrival to the ACK leaving); then the lone segments
          the receiver held: ACKed by its delayed-ACK timer, or with the
          next arrival (an ACK within 0.5 ms of a later arrival)
  psh     the share of data segments with PSH, the distance in segments
          between PSH flags (first transmissions), and the PSH pattern of
          each burst (segments sent back to back)
  acks    per ACK reaching the sender, the segments it newly acknowledged
          and the new segments sent within 2.5 ms

    python3 scripts/emu_ack_clock.py holds out/kk-*/pcap/link0_snd-rcv.pcap
    python3 scripts/emu_ack_clock.py psh --from 2 out/mm-*/pcap/link0_snd-rcv.pcap

Packets are read with tshark (fields export). Times are those of the
capture; `--from S` skips the first S seconds of each capture.
"""

import argparse
import bisect
import collections
import statistics
import subprocess
import sys

FIELDS = ["frame.time_epoch", "ip.src", "tcp.seq_raw", "tcp.ack_raw", "tcp.flags", "tcp.len", "ip.len",
          "tcp.options.sack_le", "tcp.options.sack_re"]


def read(path):
    """(t, from_sender, seq, ack, flags, payload, ip_len, sack blocks) per packet, raw sequence numbers."""
    cmd = ["tshark", "-r", path, "-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields", "-E", "separator=;",
           "-E", "occurrence=a", "-E", "aggregator=,"] + [x for f in FIELDS for x in ("-e", f)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{path}: tshark failed: {r.stderr.strip()}")
    rows, sender = [], None
    for n, line in enumerate(r.stdout.splitlines(), 1):
        f = line.split(";")
        if len(f) != len(FIELDS) or not f[2]:
            continue  # not TCP/IPv4
        try:
            t, src, seq, ack, flags = float(f[0]), f[1], int(f[2]), int(f[3] or 0), int(f[4], 16)
            plen, iplen = int(f[5] or 0), int(f[6])
            le = [int(x) for x in f[7].split(",") if x]
            re_ = [int(x) for x in f[8].split(",") if x]
        except ValueError as e:
            sys.exit(f"{path}: packet {n}: unreadable field ({e})")
        if sender is None:
            if not flags & 0x02:
                sys.exit(f"{path}: the capture does not start with the SYN")
            sender = src
        rows.append((t, src == sender, seq, ack, flags, plen, iplen, list(zip(le, re_))))
    if not rows:
        sys.exit(f"{path}: no TCP packet")
    return rows


class Path:
    def __init__(self, a):
        self.rate, self.delay, self.over = a.rate_bps, a.delay_ms / 1000.0, a.overhead

    def ser(self, iplen):
        return (iplen + self.over) * 8 / self.rate


def holds(paths, a, path):
    """RTT samples split into wait / path / hold, and the receiver's held lone segments."""
    tot = collections.Counter()
    n_samples = 0
    big = collections.Counter()
    timer, nxt = collections.Counter(), collections.Counter()
    for p in paths:
        pk = read(p)
        isn, t0 = pk[0][2], pk[0][0]
        rel = lambda x: (x - isn) % (1 << 32)
        ev = []
        for (t, snd, seq, ack, flags, plen, iplen, sack) in pk:
            if snd:
                ev.append((t, 0, seq, plen, iplen))
            else:
                ev.append((t + path.delay + path.ser(iplen), 1, ack, sack, t, flags))
        ev.sort(key=lambda e: (e[0], e[1]))
        segs, starts, acks_at = {}, [], []
        link_free, una = 0.0, 1
        for e in ev:
            t = e[0]
            if e[1] == 0:
                _, _, seq, plen, iplen = e
                waited = abs(t - link_free) < 2e-6
                enq = max(acks_at[-1], t - 0.5) if waited and acks_at else t
                link_free = max(link_free, t) + path.ser(iplen)
                if not plen:
                    continue
                s = rel(seq)
                if s in segs:
                    segs[s][1].append((t, enq, iplen))
                else:
                    segs[s] = [s + plen, [(t, enq, iplen)], False]
                    bisect.insort(starts, s)
                continue
            _, _, ack, sack, stamp, flags = e
            acks_at.append(t)
            if flags & 0x02:
                continue
            sample = None
            cum = rel(ack)
            if cum > una:
                i = bisect.bisect_left(starts, una)
                retrans, first = False, None
                while i < len(starts) and segs[starts[i]][0] <= cum:
                    sg = segs[starts[i]]
                    retrans |= len(sg[1]) > 1
                    if not sg[2] and first is None and len(sg[1]) == 1:
                        first = sg
                    i += 1
                if not retrans:
                    sample = first
                una = cum
            low = None
            for (l, r) in sack:
                l, r = rel(l), rel(r)
                i = bisect.bisect_left(starts, l)
                while i < len(starts) and segs[starts[i]][0] <= r:
                    sg = segs[starts[i]]
                    if not sg[2] and len(sg[1]) == 1 and (low is None or starts[i] < low[0]):
                        low = (starts[i], sg)
                    sg[2] = True
                    i += 1
            if sample is None and low is not None:
                sample = low[1]
            if sample is not None and t - t0 >= a.from_s:
                tx, enq, iplen = sample[1][0]
                hold = stamp - (tx + path.ser(iplen) + path.delay)
                tot["wait"] += tx - enq
                tot["hold"] += hold
                tot["sample"] += t - enq
                n_samples += 1
                if hold > 0.005:
                    big[int(hold * 1000) // 4 * 4] += 1
        # The receiver's held lone in-order segments: what sent their ACK.
        rev = []
        for (t, snd, seq, ack, flags, plen, iplen, sack) in pk:
            if snd and plen:
                rev.append((t + path.ser(iplen) + path.delay, 0, seq))
            elif not snd:
                rev.append((t, 1, ack))
        rev.sort(key=lambda e: (e[0], e[1]))
        pending, last_ack, last_arr = None, None, None
        for (t, kind, x) in rev:
            if kind == 0:
                if pending is None and (last_ack is None or x == last_ack):
                    pending = t
                last_arr = t
                continue
            if pending is not None and t - t0 >= a.from_s:
                d = (t - pending) * 1000
                if d > 20:
                    (nxt if last_arr > pending and t - last_arr < 0.0005 else timer)[int(d)] += 1
            pending, last_ack = None, x
    runs = len(paths)
    print(f"{runs} captures, {n_samples / runs:.0f} RTT samples per capture; mean per sample (ms): "
          f"queue wait {1000 * tot['wait'] / n_samples:.3f}, receiver hold {1000 * tot['hold'] / n_samples:.3f}, "
          f"whole sample {1000 * tot['sample'] / n_samples:.3f}")
    print("samples with a hold over 5 ms, per capture, by 4-ms bin: "
          + " ".join(f"{k}:{v / runs:.1f}" for k, v in sorted(big.items())))
    print("held lone segments ACKed by the timer, per capture, by ms: "
          + " ".join(f"{k}:{v / runs:.1f}" for k, v in sorted(timer.items())))
    print("held lone segments ACKed with the next arrival, per capture, by ms: "
          + " ".join(f"{k}:{v / runs:.1f}" for k, v in sorted(nxt.items())))


def psh(paths, a, path):
    tot = pushed = 0
    gaps, patterns = collections.Counter(), collections.Counter()
    for p in paths:
        pk = read(p)
        isn, t0 = pk[0][2], pk[0][0]
        seen, last, free, burst = set(), None, 0.0, None
        for (t, snd, seq, ack, flags, plen, iplen, sack) in pk:
            if not snd or not plen:
                continue
            s = (seq - isn) % (1 << 32)
            mark = bool(flags & 0x08)
            back_to_back = burst is not None and abs(t - free) < 2e-6
            free = max(free, t) + path.ser(iplen)
            if t - t0 < a.from_s:
                continue
            tot += 1
            pushed += mark
            if back_to_back:
                burst.append(mark)
            else:
                if burst:
                    patterns["".join("P" if m else "." for m in burst)] += 1
                burst = [mark]
            if s not in seen:
                seen.add(s)
                if mark:
                    if last is not None:
                        gaps[min(round((s - last) / a.mss), 9)] += 1
                    last = s
        if burst:
            patterns["".join("P" if m else "." for m in burst)] += 1
    ng = sum(gaps.values()) or 1
    nb = sum(patterns.values()) or 1
    print(f"{len(paths)} captures: {tot} data segments, PSH on {pushed / tot:.3f}")
    print("segments between PSH flags (first transmissions): " + " ".join(f"{k}:{v / ng:.2f}" for k, v in sorted(gaps.items())))
    print("bursts by PSH pattern: " + " ".join(f"{k}:{v / nb:.3f}" for k, v in patterns.most_common(8)))


def acks(paths, a, path):
    c = collections.Counter()
    for p in paths:
        pk = read(p)
        isn, t0 = pk[0][2], pk[0][0]
        ev = []
        for (t, snd, seq, ack, flags, plen, iplen, sack) in pk:
            if snd and plen:
                ev.append((t, 2))
            elif not snd and not flags & 0x02:
                ev.append((t + path.delay + path.ser(iplen), 1, (ack - isn) % (1 << 32), bool(sack)))
        ev.sort(key=lambda e: (e[0], e[1]))
        una, cur = 1, None
        for e in ev:
            if e[1] == 1:
                if cur is not None and cur[2] - t0 >= a.from_s:
                    c[(cur[0], cur[1], cur[3])] += 1
                acked = max(0, -(-(e[2] - una) // a.mss))
                una = max(una, e[2])
                cur = [acked, 0, e[0], e[3]]
            elif cur is not None and e[0] - cur[2] < 0.0025:
                cur[1] += 1
    n = sum(c.values()) or 1
    print(f"{len(paths)} captures, {n} ACKs: share by (segments acknowledged, new segments sent, SACK blocks)")
    for (k, s, sk), v in c.most_common(12):
        print(f"  acked {k} sent {s}{' with SACK' if sk else ''}: {v / n:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["holds", "psh", "acks"])
    ap.add_argument("captures", nargs="+")
    ap.add_argument("--from", dest="from_s", type=float, default=0.0, help="skip each capture's first seconds")
    ap.add_argument("--rate-bps", type=float, default=10e6, help="the data link's rate (emu-path: 10 Mb/s)")
    ap.add_argument("--delay-ms", type=float, default=20.0, help="the link's one-way delay (emu-path: 20 ms)")
    ap.add_argument("--overhead", type=int, default=2, help="link overhead bytes per packet (emu-path: 2)")
    ap.add_argument("--mss", type=int, default=1448)
    a = ap.parse_args()
    if a.rate_bps <= 0 or a.delay_ms < 0 or a.mss <= 0:
        sys.exit("--rate-bps and --mss must be positive, --delay-ms not negative")
    {"holds": holds, "psh": psh, "acks": acks}[a.what](a.captures, a, Path(a))


if __name__ == "__main__":
    main()
