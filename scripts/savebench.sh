#!/usr/bin/env bash
# Snapshot figures, Tandem and redis-server side by side in one run on this
# machine (`tandem-benchmark save`): SAVE time and MB/s, dump size, load
# time on start, extra memory during a BGSAVE under a write load, and the
# p99 latency of a steady GET/SET load idle and during BGSAVE, for 1M keys
# × 100 B and 100K keys × 20 KB (about 6.5 minutes on the 2-core machine).
# Prints one Markdown table per data set.
#
#   scripts/savebench.sh                                   full run
#   SETS=100000x100 ROUNDS=1 scripts/savebench.sh          quick look
#
# Environment: SETS (1000000x100,100000x20480), ROUNDS (2), CONNS (4),
# RATE (4000 requests/s of the steady load), SET_PCT (50), IDLE (3s),
# OUT (directory for the table, the JSON results, and the servers' logs;
# default a new temporary directory). Extra arguments go to
# tandem-benchmark save. See docs/benchmarks-history.md, "Snapshots".
set -euo pipefail
cd "$(dirname "$0")/.."

SETS=${SETS:-1000000x100,100000x20480}
ROUNDS=${ROUNDS:-2}
CONNS=${CONNS:-4}
RATE=${RATE:-4000}
SET_PCT=${SET_PCT:-50}
IDLE=${IDLE:-3s}
command -v redis-server >/dev/null || { echo "savebench: redis-server not found (apt-get install redis-server)" >&2; exit 1; }

work=$(mktemp -d -t tandem-savebench.XXXXXX)
OUT=${OUT:-$work/results}
mkdir -p "$OUT" "$work/bin"
trap 'rm -rf "$work/bin" "$work/data"' EXIT
go build -o "$work/bin/tandem" ./cmd/tandem
go build -o "$work/bin/tandem-benchmark" ./cmd/tandem-benchmark

status=0
"$work/bin/tandem-benchmark" save -tandem "$work/bin/tandem" -redis "$(command -v redis-server)" \
  -sets "$SETS" -rounds "$ROUNDS" -c "$CONNS" -rate "$RATE" -set-pct "$SET_PCT" -idle "$IDLE" \
  -work "$work/data" --out "$OUT" "$@" || status=$?
# Keep the servers' logs, not the dumps.
for f in "$work"/data/*/*.log; do
  [[ -e $f ]] && cp "$f" "$OUT/$(basename "$(dirname "$f")").log"
done
echo "results: $OUT"
exit $status
