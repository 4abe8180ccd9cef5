#!/bin/sh
# Regenerate the ns-2 fixtures of crates/sim/tests/it/validation_ns2.rs with
# the installed ns-2 2.35 (`ns`). Each fixture is bulk.tcl's trace reduced
# by compact.awk, headed by an "A agent sink window loss duration" line.
set -e
cd "$(dirname "$0")"
mkdir -p fixtures
tmp=$(mktemp)
run() { # name agent sink window loss duration
    ns bulk.tcl "$2" "$3" "$4" "$5" "$tmp" "$6"
    { echo "A $2 $3 $4 $5 $6"; awk -f compact.awk "$tmp"; } > "fixtures/$1.fx"
}
# Forced loss patterns (packet numbers on the forward link, 0-based):
#   a: two neighbours early in slow start, one later
#   b: a burst of six that a single fast retransmit cannot repair
#   c: a lost retransmission (forces a timeout) and losses spread out
#   d: an outage of 200 packets: timeouts whose retransmissions are lost
#      too, so the timer backs off
A=50,51,300
B=400,401,402,403,404,405,2000
C=120,125,130,2600,2601,2602,2603,2604,2605,2606,2607,2608,2609,2610,2611,2612,2613,2614,2615,2616,2617,2618,2619,2620,4000
D=$(seq -s, 1500 1699)
for agent in tahoe reno newreno; do
    for sink in tcpsink delack; do
        run "$agent-$sink-a" $agent $sink 1000 list:$A 6
        run "$agent-$sink-b" $agent $sink 1000 list:$B 6
        run "$agent-$sink-c" $agent $sink 1000 list:$C 6
        run "$agent-$sink-d" $agent $sink 1000 list:$D 6
    done
done
rm -f "$tmp"
