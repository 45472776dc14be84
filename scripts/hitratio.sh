#!/usr/bin/env bash
# Hit-ratio comparison: replays deterministic key streams (Zipf 0.8, 0.99,
# 1.2 over 1M keys; Zipf 0.99 with sequential scans; Zipf 0.99 with short
# TTLs) in the cache-aside pattern against Tandem's eviction policies and
# real redis-server's allkeys-lru and allkeys-lfu, each bounded to hold 1 %
# and 10 % of the keys, and prints workload × cache size × policy → miss
# ratio: `tandem-benchmark hitratio`. See docs/benchmarks-history.md ("Hit ratio").
#
#   scripts/hitratio.sh                 quick: 2M requests per cell (~15 min)
#   MODE=full scripts/hitratio.sh       full: 3M requests per cell (~22 min)
#   scripts/hitratio.sh -workloads zipf-0.99 -sizes 0.01   any tandem-benchmark hitratio flag
#
# Environment: MODE (quick), OUT (directory for table.md, cells.csv and
# run.log; default a new temporary directory, printed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${MODE:-quick}
command -v redis-server >/dev/null || { echo "hitratio: redis-server not found (apt-get install redis-server)" >&2; exit 1; }

work=$(mktemp -d -t tandem-hitratio.XXXXXX)
OUT=${OUT:-$work/results}
mkdir -p "$OUT" "$work/bin"
trap 'rm -rf "$work/bin"' EXIT
go build -o "$work/bin/tandem" ./cmd/tandem
go build -o "$work/bin/tandem-benchmark" ./cmd/tandem-benchmark

start=$(date +%s)
"$work/bin/tandem-benchmark" hitratio -mode "$MODE" -tandem "$work/bin/tandem" --out "$OUT" "$@" 2> >(tee "$OUT/run.log" >&2)
echo "hitratio: done in $(( $(date +%s) - start ))s; table, per-cell CSV and log in $OUT" >&2
