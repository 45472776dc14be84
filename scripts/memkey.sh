#!/usr/bin/env bash
# Memory per key, in one run on this machine (`tandem-benchmark memkey`):
# Tandem loaded through RESP SET, redis-server loaded the same way,
# memcached loaded through its text protocol (set), and Tandem loaded
# through its memcached port; 1M keys × 100 B by default, each case on a
# fresh server. Reports used_memory (for memcached its own stats "bytes")
# and RSS per key, and the ratios to redis-server and to memcached, as a
# Markdown table; every case must hold every key (nothing evicted) and give
# back a sample of them byte for byte.
#
#   scripts/memkey.sh                          full run (about a minute)
#   KEYS=100000 scripts/memkey.sh              quick look
#   TANDEM=/path/to/tandem scripts/memkey.sh   measure a tandem built elsewhere
#
# Environment: KEYS (1000000), SIZE (100 bytes a value), ROUNDS (1), TANDEM
# (a tandem binary to use instead of building ./cmd/tandem), OUT (directory
# for the table, the JSON results and the servers' logs; default a new
# temporary directory). Extra arguments go to tandem-benchmark memkey.
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
go build -o "$work/bin/tandem-benchmark" ./cmd/tandem-benchmark

"$work/bin/tandem-benchmark" memkey -tandem "$tandem" -n "$KEYS" -d "$SIZE" -rounds "$ROUNDS" --out "$OUT" "$@"
