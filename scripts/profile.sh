#!/usr/bin/env bash
# Where Tandem's time goes, per scenario: builds Tandem and
# tandem-benchmark, starts Tandem pinned to CPU 0 with GOMAXPROCS=1 (the
# per-core setting of docs/benchmarks.md), drives it from CPU 1 with
# tandem-benchmark load, and samples it with `perf record` (cpu-clock: no
# hardware counters needed). Writes docs/profiles/<scenario>.txt: the
# flat top functions, then the inclusive ones (children), so a reader sees
# both the hot spots and which layer holds them.
#
#   scripts/profile.sh                 every scenario below
#   scripts/profile.sh set-p16         one of them
#
# Needs perf (Debian: linux-perf) and taskset. Shares are what the
# profile says; absolute rates on a shared machine are noise.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "profile: perf not found (apt-get install linux-perf)" >&2; exit 1; }

# name: protocol, command, pipeline
declare -A scenarios=(
  [set-p16]="resp set 16"
  [get-p16]="resp get 16"
  [set-p1]="resp set 1"
  [get-p1]="resp get 1"
  [memcache-get-p16]="memcache get 16"
  [memcache-set-p16]="memcache set 16"
  [binary-set-p16]="binary set 16"
  [binary-get-p16]="binary get 16"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(set-p16 get-p16 set-p1 get-p1 memcache-get-p16 memcache-set-p16)

work=$(mktemp -d -t tandem-profile.XXXXXX)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/tandem" ./cmd/tandem
go build -o "$work/tandem-benchmark" ./cmd/tandem-benchmark
mkdir -p docs/profiles
rev=$(git rev-parse --short HEAD)

for name in "${names[@]}"; do
  read -r proto cmd pipeline <<<"${scenarios[$name]:?unknown scenario $name}"
  port=$((20000 + RANDOM % 20000))
  GOMAXPROCS=1 taskset -c 0 "$work/tandem" --port "$port" --memcached-port $((port + 1)) --save '' --dir "$work" >"$work/tandem.log" 2>&1 &
  pid=$!
  sleep 1
  target=$port
  [ "$proto" = resp ] || target=$((port + 1))
  load=(taskset -c 1 "$work/tandem-benchmark" load --protocol "$proto" -p "$target" -c 50 -P "$pipeline" -d 100 -r 100000 -q)
  "${load[@]}" -t set -n 200000 >/dev/null # fill the keyspace
  perf record -q -e cpu-clock -g -p "$pid" -o "$work/perf.data" -- sleep 5 >/dev/null 2>&1 &
  rec=$!
  sleep 0.2
  rate=$("${load[@]}" -t "$cmd" --duration 5s | tail -1)
  wait "$rec" || true
  kill "$pid"; wait "$pid" 2>/dev/null || true
  {
    echo "# $name: $proto $cmd, 100-byte values, 100K keys, 50 connections, pipeline $pipeline"
    echo "# Tandem $rev pinned to CPU 0, GOMAXPROCS=1; client on CPU 1; perf record -e cpu-clock -g, 5 s"
    echo "# client: $rate"
    echo "# made by scripts/profile.sh $name"
    echo
    echo "## flat (self), top 25"
    perf report -i "$work/perf.data" --no-children --stdio -g none --percent-limit 0.5 2>/dev/null | grep '%' | head -25 || true # head ends the pipe early
    echo
    echo "## inclusive (children), top 40"
    perf report -i "$work/perf.data" --children --stdio -g none --percent-limit 2 2>/dev/null | grep '%' | head -40 || true
  } >"docs/profiles/$name.txt"
  echo "profile: docs/profiles/$name.txt ($rate)"
done
