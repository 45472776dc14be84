#!/usr/bin/env bash
# Memory per key, in one run on this machine: Tandem loaded through RESP
# SET, redis-server loaded the same way, memcached loaded through its text
# protocol (set), and Tandem loaded through its memcached port; 1M keys ×
# 100 B by default, each case on a fresh server. Reports used_memory (for
# memcached its own stats "bytes") and RSS per key, and the ratios to
# redis-server and to memcached, as a Markdown table; every case must hold
# every key (nothing evicted) and give back a sample of them byte for byte.
#
#   scripts/memkey.sh                          full run (about a minute)
#   KEYS=100000 scripts/memkey.sh              quick look
#   TANDEM=/path/to/tandem scripts/memkey.sh   measure a tandem built elsewhere
#
# Environment: KEYS (1000000), SIZE (100 bytes a value), ROUNDS (1), TANDEM
# (a tandem binary to use instead of building ./cmd/tandem), OUT (directory
# for the table, the JSON results and the servers' logs; default a new
# temporary directory). Extra arguments go to tandem-memkey (see -h).
set -euo pipefail
cd "$(dirname "$0")/.."

KEYS=${KEYS:-1000000}
SIZE=${SIZE:-100}
ROUNDS=${ROUNDS:-1}

command -v redis-server >/dev/null || { echo "memkey: redis-server not found (apt-get install redis-server)" >&2; exit 1; }
command -v memcached >/dev/null || { echo "memkey: memcached not found (apt-get install memcached)" >&2; exit 1; }

work=$(mktemp -d -t tandem-memkey.XXXXXX)
OUT=${OUT:-$work/results}
mkdir -p "$OUT" "$work/bin"
trap 'rm -rf "$work/bin"; rmdir "$work" 2>/dev/null || true' EXIT

if [[ -n ${TANDEM:-} ]]; then
  tandem=$(realpath "$TANDEM")
else
  go build -o "$work/bin/tandem" ./cmd/tandem
  tandem=$work/bin/tandem
fi
go build -o "$work/bin/tandem-memkey" ./cmd/tandem-memkey

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (plus uncommitted changes)')"
  echo "tandem: $tandem ($("$tandem" --version 2>&1 | head -1))"
  echo "go: $(go version)"
  echo "redis-server: $(redis-server --version)"
  echo "memcached: $(memcached -V)"
  echo "nproc: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -m1 'model name' /proc/cpuinfo || true
  grep MemTotal /proc/meminfo
} >"$OUT/env.txt"

status=0
"$work/bin/tandem-memkey" -tandem "$tandem" -redis "$(command -v redis-server)" -memcached "$(command -v memcached)" \
  -keys "$KEYS" -size "$SIZE" -rounds "$ROUNDS" -out "$OUT" "$@" || status=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/env.txt"
cat "$OUT/env.txt"
echo "results: $OUT"
exit $status
