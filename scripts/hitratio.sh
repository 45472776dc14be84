#!/usr/bin/env bash
# Hit-ratio comparison: replays deterministic key streams (Zipf 0.8, 0.99,
# 1.2 over 1M keys; Zipf 0.99 with sequential scans; Zipf 0.99 with short
# TTLs) in the cache-aside pattern against Tandem's eviction policies and
# real redis-server's allkeys-lru and allkeys-lfu, each bounded to hold 1 %
# and 10 % of the keys, and prints workload × cache size × policy → miss
# ratio. See docs/benchmarks.md ("Hit ratio") for the method.
#
#   scripts/hitratio.sh                 quick: 2M requests per cell (~15 min)
#   MODE=full scripts/hitratio.sh       full: 3M requests per cell (~22 min)
#   scripts/hitratio.sh -workloads zipf-0.99 -sizes 0.01   any tandem-hitratio flag
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

echo "hitratio: building ./cmd/tandem and ./cmd/tandem-hitratio" >&2
go build -o "$work/bin/tandem" ./cmd/tandem
go build -o "$work/bin/tandem-hitratio" ./cmd/tandem-hitratio

{
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet 2>/dev/null || echo ' plus uncommitted changes')"
  echo "redis-server: $(redis-server --version | head -1)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/env.txt"
cat "$OUT/env.txt" >&2

start=$(date +%s)
"$work/bin/tandem-hitratio" -mode "$MODE" -tandem "$work/bin/tandem" \
  -md "$OUT/table.md" -csv "$OUT/cells.csv" "$@" 2> >(tee "$OUT/run.log" >&2)
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/env.txt"
echo "hitratio: done in $(( $(date +%s) - start ))s; table, per-cell CSV and log in $OUT" >&2
