#!/bin/sh
# The random-loss half of the ns-2 validation: ns-2 2.35 runs bulk.tcl for
# every agent, sink and loss rate over seeds 1..10 (60 s, window 1000) and
# writes one line per run to goodput_ns2.txt:
#   agent sink p seed highest_ack
# (highest_ack = data packets acknowledged, packet 0 being the SYN).
# Compare with: cargo run --release -p airtcp-sim --example ns2_goodput
set -e
cd "$(dirname "$0")"
tmp=$(mktemp)
out=goodput_ns2.txt
: > "$out"
for agent in tahoe reno newreno; do
    for sink in tcpsink delack; do
        for p in 0 0.001 0.01 0.05; do
            for seed in 1 2 3 4 5 6 7 8 9 10; do
                if [ "$p" = 0 ]; then loss=none; else loss=rate:$p:$seed; fi
                ns bulk.tcl $agent $sink 1000 "$loss" "$tmp" 60
                echo "$agent $sink $p $seed $(awk '$1 == "S" { print $3 }' "$tmp")" >> "$out"
                [ "$p" = 0 ] && break
            done
        done
    done
done
rm -f "$tmp"
