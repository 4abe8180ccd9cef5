#!/usr/bin/env bash
# Set up and run the main job: the bulk-lossy scenario and its plots, into
# out/bulk-lossy (summary.json, CSV/Parquet time series, events, plots/).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
airtcp run scenarios/bulk-lossy.toml --out out/bulk-lossy "$@"
airtcp plot out/bulk-lossy
