#!/usr/bin/env bash
# The RSS-bound test (`tandem-benchmark rssbound`): Tandem with maxmemory
# 256mb is offered ~10 GB (500,000 distinct keys of 20 KB, 16 connections)
# through the Redis protocol and, separately, through memcached `set`,
# once per policy. The server's RSS is sampled every 100 ms; the run fails
# if the peak exceeds 1.15 × maxmemory + 64 MB, if an evicting policy
# returns any error, if a read returns a wrong value, or if noeviction
# does not refuse writes with Redis's and memcached's OOM errors while
# reads and deletes keep working.
#
#   scripts/rss-bound.sh                                  full run (~1-3 min per policy and protocol)
#   POLICIES=noeviction MAXMEMORY=64mb KEYS=40000 scripts/rss-bound.sh   reduced (what the Go test runs)
#
# Environment: POLICIES ("allkeys-lru noeviction"), MAXMEMORY (256mb),
# KEYS (500000), VALUE_SIZE (20480), CONNS (16), PROTOCOLS (resp,memcached),
# OUT (directory for the RSS samples; default a new temporary directory).
# Extra arguments go to tandem-benchmark rssbound. See docs/benchmarks-history.md,
# "RSS bound".
set -euo pipefail
cd "$(dirname "$0")/.."

POLICIES=${POLICIES:-"allkeys-lru noeviction"}
MAXMEMORY=${MAXMEMORY:-256mb}
KEYS=${KEYS:-500000}
VALUE_SIZE=${VALUE_SIZE:-20480}
CONNS=${CONNS:-16}
PROTOCOLS=${PROTOCOLS:-resp,memcached}

work=$(mktemp -d -t tandem-rss.XXXXXX)
OUT=${OUT:-$work}
mkdir -p "$OUT" "$work/bin"
trap 'rm -rf "$work/bin"' EXIT
go build -o "$work/bin/tandem" ./cmd/tandem
go build -o "$work/bin/tandem-benchmark" ./cmd/tandem-benchmark

status=0
for policy in $POLICIES; do
  echo "## $policy, maxmemory $MAXMEMORY, $KEYS keys × $VALUE_SIZE B, $CONNS connections ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
  "$work/bin/tandem-benchmark" rssbound -tandem "$work/bin/tandem" -policy "$policy" -maxmemory "$MAXMEMORY" \
    -n "$KEYS" -d "$VALUE_SIZE" -c "$CONNS" -protocols "$PROTOCOLS" -samples "$OUT/samples-$policy.csv" "$@" || status=1
done
echo "samples (protocol, seconds, rss, used_memory): $OUT/samples-*.csv"
exit $status
