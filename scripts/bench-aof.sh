#!/usr/bin/env bash
# Write throughput with the append-only file, Tandem beside redis-server
# 7.0 in the same run: for each appendfsync mode (always, everysec) and
# without an AOF, both servers are started on a fresh directory and the
# load tool runs a SET phase against them, targets taking turns. The
# ratios in the same run are the result (docs/benchmarks.md).
#
#   scripts/bench-aof.sh                 50 connections, 20000 SETs a phase, 3 rounds
#   CONNS=16 N=50000 scripts/bench-aof.sh
#   PIPELINE=16 MODES=always scripts/bench-aof.sh   16 requests in flight a connection, always only
set -euo pipefail
cd "$(dirname "$0")/.."
CONNS=${CONNS:-50}
N=${N:-20000}
ROUNDS=${ROUNDS:-3}
PIPELINE=${PIPELINE:-1}
MODES=${MODES:-none everysec always}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/tandem" ./cmd/tandem
go build -o "$work/bench" ./cmd/tandem-benchmark
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return; sleep 0.05; done; echo "port $1 did not open" >&2; exit 1; }
for mode in $MODES; do
  aof=(--appendonly yes --appendfsync "$mode")
  [ "$mode" = none ] && aof=(--appendonly no)
  rp=$(free_port); tp=$(free_port)
  mkdir -p "$work/$mode/redis" "$work/$mode/tandem"
  redis-server --port "$rp" --bind 127.0.0.1 --save "" --dir "$work/$mode/redis" "${aof[@]}" --logfile "$work/$mode/redis.log" &
  "$work/tandem" --port "$tp" --memcached-port 0 --bind 127.0.0.1 --save "" --dir "$work/$mode/tandem" "${aof[@]}" --maxmemory 0 >"$work/$mode/tandem.log" 2>&1 &
  wait_port "$rp"; wait_port "$tp"
  echo "== appendfsync $mode"
  "$work/bench" load -server "redis=127.0.0.1:$rp,tandem=127.0.0.1:$tp" -t set -c "$CONNS" -P "$PIPELINE" -n "$N" -rounds "$ROUNDS" -q
  kill $(jobs -p); wait 2>/dev/null || true
done
