#!/usr/bin/env bash
# Does Tandem stay flat as the keyspace grows? For 10K, 100K, 1M and 10M
# keys of 100 bytes: Tandem pinned to CPU 0 with GOMAXPROCS=1 and
# GODEBUG=gctrace=1, filled by tandem-benchmark load from CPU 1, then 6 s
# of GETs (50 connections, P1); prints used_memory and RSS per key, the
# GET rate and latency percentiles (the load's CSV line), and the
# collections that ran during the GETs with their stop-the-world pauses
# (the first and third clock figures of each gctrace line).
#
#   scripts/size-sweep.sh              10K 100K 1M 10M (10M needs about 2 GB)
#   scripts/size-sweep.sh 10000 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
command -v redis-cli >/dev/null || { echo "size-sweep: redis-cli not found (apt-get install redis-server)" >&2; exit 1; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000 10000000)
work=$(mktemp -d -t tandem-size.XXXXXX)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/tandem" ./cmd/tandem
go build -o "$work/tandem-benchmark" ./cmd/tandem-benchmark
echo "# $(git rev-parse --short HEAD); GET columns as tandem-benchmark load --csv: test, ops/s, p50, p90, p99, p99.9, max (ms), …"
for n in "${sizes[@]}"; do
  port=$((20000 + RANDOM % 20000))
  GODEBUG=gctrace=1 GOMAXPROCS=1 taskset -c 0 "$work/tandem" --port "$port" --memcached-port 0 --save '' --dir "$work" >"$work/tandem.log" 2>&1 &
  pid=$!
  sleep 1
  taskset -c 1 "$work/tandem-benchmark" load -p "$port" -t set -n "$n" -r "$n" --dist seq -c 50 -P 64 -d 100 -q >/dev/null
  mark=$(grep -c '^gc ' "$work/tandem.log" || true)
  get=$(taskset -c 1 "$work/tandem-benchmark" load -p "$port" -t get --duration 6s -r "$n" -c 50 -P 1 -d 100 --csv | tail -1)
  used=$(redis-cli -p "$port" info memory | tr -d '\r' | sed -n 's/^used_memory://p')
  rss=$(awk '/VmRSS/ {print $2 * 1024}' "/proc/$pid/status")
  gc=$(tail -n +$((mark + 1)) "$work/tandem.log" | awk '/^gc / {split($5, c, "+"); stw = c[1] + c[3]; if (stw > m) m = stw; n++} END {printf "%d collections, longest stop %.3f ms", n, m}')
  echo "keys $n: used_memory $((used / n)) B/key, RSS $((rss / n)) B/key; GET $get; during the GETs: $gc"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
