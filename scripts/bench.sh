#!/usr/bin/env bash
# Side-by-side throughput and latency of Tandem and the real servers, on
# this machine, in one run: `tandem-benchmark compare` starts Tandem,
# redis-server 7.0, memcached 1.6 and the null server (the network floor),
# runs the named scenarios against them, targets taking turns, for ROUNDS
# rounds, and prints each server's medians and Tandem's ratios (÷
# redis-server, ÷ memcached, share of the null server). On a small shared
# machine absolute figures are noise; the ratios measured in the same run
# are the result.
#
#   scripts/bench.sh                         the classic scenarios, 3 rounds
#   ROUNDS=1 SCALE=0.2 scripts/bench.sh      quick look
#   PIN=1 scripts/bench.sh rb-100b           per core: servers on CPU 0, the client on CPU 1
#   scripts/bench.sh all                     every scenario (tandem-benchmark scenario -list)
#   scripts/bench.sh -P 16 seed-100b         any tandem-benchmark compare flag or scenario
#
# Environment: ROUNDS (3), SCALE (1: multiplies every scenario's keys),
# PIN (0), OUT (directory for results.json, results.csv, table.md and the
# SVG charts; default a new temporary directory, printed at the end).
# See docs/benchmarks.md for the method.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
SCALE=${SCALE:-1}
for tool in go redis-server memcached; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (apt-get install redis-server memcached)" >&2; exit 1; }
done
pin=()
if [ "${PIN:-0}" = 1 ]; then
  command -v taskset >/dev/null || { echo "bench: PIN=1 needs taskset (util-linux)" >&2; exit 1; }
  pin=(--pin)
fi

work=$(mktemp -d -t tandem-bench.XXXXXX)
OUT=${OUT:-$work/results}
trap 'rm -rf "$work/bin"' EXIT
go build -o "$work/bin/tandem-benchmark" ./cmd/tandem-benchmark

status=0
"$work/bin/tandem-benchmark" compare --rounds "$ROUNDS" --scale "$SCALE" "${pin[@]}" --out "$OUT" "$@" || status=$?
echo "bench: results, table and charts in $OUT" >&2
exit $status
