#!/usr/bin/env bash
# Benchmark (docs/perf-bulk-lossy.md): bulk-lossy, NewReno + PRR, loss 0.01, 600 s
# simulated, against ns-3's figures for the same scenario
# (../shared/anchors/ns3/README.md: Simulator::Run() 2.08-2.30 s, C++ process
# 2.2 s, 21 MiB peak RSS).
#
#   scripts/bench.sh [RUNS]        (default 11)
#
# (a) crates/sim/examples/bench_bulk: the simulation loop's own wall time
#     (median of RUNS runs in one process), events, events/s, the time
#     write_outputs takes, and the peak RSS of a process doing one run and
#     writing its outputs (/usr/bin/time -v; VmHWM when time is missing);
# (b) the whole `airtcp run` process (Python start-up, scenario parsing, the
#     simulation, writing CSV/Parquet/JSON), with hyperfine when installed,
#     else the median of RUNS timed runs.
# Then a markdown table. Timings on a shared machine wander: the load
# average is printed with the results; repeat when it is low.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-11}
OUT=${BENCH_OUT:-$(mktemp -d /tmp/airtcp-bench.XXXXXX)}
SETS=(--set sim.duration=600s --set links.1.loss_ab.p=0.01 --set flows.0.tcp.cc=newreno)

echo "==> building (release)"
cargo build --release --quiet -p airtcp-sim --example bench_bulk
TARGET=${CARGO_TARGET_DIR:-target}
BENCH="$TARGET/release/examples/bench_bulk"

if ! command -v airtcp >/dev/null 2>&1; then
    echo "==> installing the airtcp package (scripts/setup.sh)"
    # shellcheck disable=SC1091
    source scripts/setup.sh
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "==> (a) simulation loop, $RUNS runs (load $(load))"
"$BENCH" "$RUNS" --out "$OUT/rust" | tee "$OUT/bench.txt"
line=$(grep '^bench ' "$OUT/bench.txt")
val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
events=$(val events)
sim_ms=$(val sim_ms_median)
sim_best=$(val sim_ms_best)
eps=$(val events_per_s)
write_ms=$(val write_ms_median)

echo "==> peak RSS of one run (outputs collected), and of one run writing its outputs"
peak_rss() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$BENCH" 1 "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
    else
        "$BENCH" 1 "$@" | sed -n 's/.* peak_rss_kib=\([^ ]*\).*/\1/p'
    fi
}
rss_run_kib=$(peak_rss)
rss_kib=$(peak_rss --out "$OUT/rss")

CMD=(airtcp run scenarios/bulk-lossy.toml --out "$OUT/cli" "${SETS[@]}" --quiet)
echo "==> (b) whole CLI process: ${CMD[*]} (load $(load))"
# Two cases: writing into a fresh directory (the first run), and replacing
# the previous run's files (a re-run; the kernel frees ~15 MB of old files).
median_ms() { python3 -c "import json,statistics as s; r=json.load(open('$1'))['results'][0]; print(f\"{s.median(r['times'])*1e3:.1f}\")"; }
if command -v hyperfine >/dev/null 2>&1; then
    hyperfine -N -w 3 -r "$RUNS" --prepare "rm -rf $OUT/cli" --export-json "$OUT/fresh.json" "${CMD[*]}"
    hyperfine -N -w 3 -r "$RUNS" --export-json "$OUT/replace.json" "${CMD[*]}"
    cli_ms=$(median_ms "$OUT/fresh.json")
    cli_replace_ms=$(median_ms "$OUT/replace.json")
else
    timed() {
        local times=() t0 t1
        for _ in $(seq "$RUNS"); do
            if [ "$1" = fresh ]; then rm -rf "$OUT/cli"; fi
            t0=$(date +%s%N); "${CMD[@]}"; t1=$(date +%s%N)
            times+=("$(( (t1 - t0) / 1000 ))")
        done
        printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
    }
    cli_ms=$(timed fresh)
    cli_replace_ms=$(timed replace)
fi
cli_rss_kib=$( (/usr/bin/time -v "${CMD[@]}" 2>&1 >/dev/null || true) | sed -n 's/.*Maximum resident set size (kbytes): //p')
run_wall_ms=$(python3 -c "import json; print(f\"{json.load(open('$OUT/cli/summary.json'))['run']['run_wall_s']*1e3:.1f}\")")

mib() { awk -v k="$1" 'BEGIN { if (k == "") print "?"; else printf "%.1f", k / 1024 }'; }
cat <<EOF

Load average at the end: $(load) ($(nproc) cores)

| bulk-lossy, NewReno, p = 0.01, 600 s | airtcp | ns-3 | target |
| --- | --- | --- | --- |
| events | $events | 1,417,533 | |
| simulation wall time (median / best of $RUNS) | $sim_ms / $sim_best ms | 2080-2300 ms (Simulator::Run()) | <= 45 ms |
| events/s | $(awk -v e="$eps" 'BEGIN { printf "%.1f M", e / 1e6 }') | ~0.65 M | |
| write_outputs (CSV + Parquet + JSON, fresh dir) | $write_ms ms | | |
| whole \`airtcp run\` process, fresh out dir (median) | $cli_ms ms (run_wall_s $run_wall_ms ms) | 2.2 s (C++ process) | <= 110 ms |
| whole \`airtcp run\` process, replacing the last run's out dir | $cli_replace_ms ms | | |
| peak RSS, Rust process: one run, outputs collected | $(mib "$rss_run_kib") MiB | 21 MiB | <= 10 MiB |
| peak RSS, Rust process: one run + writing the outputs | $(mib "$rss_kib") MiB | | |
| peak RSS, whole \`airtcp run\` (Python included) | $(mib "$cli_rss_kib") MiB | | |
EOF
[ -n "${BENCH_OUT:-}" ] || rm -rf "$OUT"
