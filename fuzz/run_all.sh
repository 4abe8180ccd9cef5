#!/bin/sh
# Run every fuzz target in turn (nightly toolchain, cargo-fuzz).
#   fuzz/run_all.sh [SECONDS]     (default 60; `simulate` gets twice that)
#   TARGETS="pcap_read simulate" fuzz/run_all.sh 30
# New inputs go to $FUZZ_WORK/<target> (default /tmp/airtcp-fuzz), so the
# seed corpora in corpus/<target> stay as shipped; crashes land in
# artifacts/<target>/.
set -u
cd "$(dirname "$0")"
T=${1:-60}
W=${FUZZ_WORK:-/tmp/airtcp-fuzz}
status=0
for t in ${TARGETS:-wire_decode pcap_read mahimahi drive_ucc drive_imc23 drive_feup scenario_toml scenario_json simulate analyze_capture}; do
    s=$T
    [ "$t" = simulate ] && s=$((T * 2))
    mkdir -p "$W/$t"
    echo "== $t (${s}s)"
    cargo +nightly fuzz run "$t" "$W/$t" "corpus/$t" -- \
        -max_total_time="$s" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
        >"$W/$t.log" 2>&1 || { echo "   FAILED (see $W/$t.log)"; status=1; }
    grep -E "^stat::number_of_executed_units|^Done|SUMMARY|ERROR" "$W/$t.log" | head -5
done
exit $status
