#!/usr/bin/env bash
# Side-by-side throughput of Tandem and the real servers, on this machine,
# in one run: Tandem vs redis-server 7.0 (Redis protocol) and Tandem vs
# memcached 1.6 (memcached protocol). Targets alternate (Tandem, reference,
# Tandem, reference, ...) for ROUNDS rounds; the table shows each median and
# the ratio Tandem/reference. On a small shared machine absolute figures are
# noise; the ratios measured in the same run are the result.
#
#   scripts/bench.sh                  full run (3 rounds, 1M requests a phase; ~6-10 min)
#   ROUNDS=1 N=200000 scripts/bench.sh  quick look (~1 min)
#
# Environment: ROUNDS (3), N (1000000 requests per phase), R (100000 keys),
# D (100-byte values), C (50 connections), PIPE (16: the pipelined runs),
# XN (N/5: requests per phase of the tandem-load Redis cross-check and of
# the memcached meta-protocol runs, which are checks, kept short for time),
# TL_PROCS (1: GOMAXPROCS of tandem-load, single-threaded like
# redis-benchmark), MC_THREADS (2: memcached worker threads), OUT (directory
# for raw results and the table; default a new temporary directory).
# See docs/benchmarks.md for the method.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
N=${N:-1000000}
R=${R:-100000}
D=${D:-100}
C=${C:-50}
PIPE=${PIPE:-16}
XN=${XN:-$((N / 5))}
TL_PROCS=${TL_PROCS:-1}
MC_THREADS=${MC_THREADS:-2}

for tool in go redis-server redis-benchmark redis-cli memcached; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (apt-get install redis-server redis-tools memcached)" >&2; exit 1; }
done

work=$(mktemp -d -t tandem-bench.XXXXXX)
OUT=${OUT:-$work/results}
mkdir -p "$OUT" "$work/tandem" "$work/redis"
results="$OUT/runs.tsv"      # client, workload, target, round, ops/s, p99 ms, errors
: >"$results"

pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work/tandem" "$work/redis" "$work/bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# free_port prints a loopback TCP port nobody listens on (nor one we picked).
picked=" "
free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 40000))
    [[ $picked == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      picked+="$p "
      echo "$p"
      return
    fi
  done
  echo "bench: no free port" >&2
  exit 1
}

# mc_says PORT prints the first line memcached-protocol "version" gets.
mc_says() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'version\r\n' >&3
    IFS= read -r -t 2 line <&3 && printf '%s\n' "${line%$'\r'}"
  ) 2>/dev/null
}

# wait_redis PORT PID / wait_mc PORT PID: wait until the server answers.
wait_redis() {
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$1" ping 2>/dev/null)" = PONG ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
wait_mc() {
  for _ in $(seq 100); do
    [[ $(mc_says "$1") == VERSION* ]] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

log "building ./cmd/tandem and ./cmd/tandem-load"
mkdir -p "$work/bin"
go build -o "$work/bin/tandem" ./cmd/tandem
go build -o "$work/bin/tandem-load" ./cmd/tandem-load
TANDEM=$work/bin/tandem
LOAD=$work/bin/tandem-load

T_PORT=$(free_port)
T_MC_PORT=$(free_port)
R_PORT=$(free_port)
M_PORT=$(free_port)

"$TANDEM" --port "$T_PORT" --memcached-port "$T_MC_PORT" --save "" --bind 127.0.0.1 \
  --dir "$work/tandem" >"$OUT/tandem.log" 2>&1 &
T_PID=$!; pids+=("$T_PID")
redis-server --port "$R_PORT" --bind 127.0.0.1 --save "" --appendonly no \
  --dir "$work/redis" --daemonize no --logfile "$OUT/redis.log" &
R_PID=$!; pids+=("$R_PID")
mc_user=(); [ "$(id -u)" = 0 ] && mc_user=(-u root)
memcached "${mc_user[@]}" -l 127.0.0.1 -p "$M_PORT" -U 0 -t "$MC_THREADS" -m 1024 -c 1024 \
  >"$OUT/memcached.log" 2>&1 &
M_PID=$!; pids+=("$M_PID")

wait_redis "$T_PORT" "$T_PID" || { echo "bench: Tandem did not start:" >&2; cat "$OUT/tandem.log" >&2; exit 1; }
wait_redis "$R_PORT" "$R_PID" || { echo "bench: redis-server did not start" >&2; exit 1; }
wait_mc "$M_PORT" "$M_PID" || { echo "bench: memcached did not start" >&2; exit 1; }
T_MC_OK=1
wait_mc "$T_MC_PORT" "$T_PID" || { T_MC_OK=0; log "Tandem's memcached port does not answer: memcached rows skipped"; }

T_VERSION=$("$TANDEM" --version | head -1)
R_VERSION=$(redis-server --version | head -1)
M_VERSION=$(memcached -V | head -1)

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc: $(nproc)"
  lscpu | head -n 16
  echo "go: $(go version)"
  echo "tandem: $T_VERSION (git $(git rev-parse --short HEAD 2>/dev/null || echo ?)$(git diff --quiet 2>/dev/null || echo ', uncommitted changes'))"
  echo "redis: $R_VERSION"
  echo "memcached: $M_VERSION (-t $MC_THREADS -m 1024 -c 1024 -U 0)"
  echo "params: ROUNDS=$ROUNDS N=$N XN=$XN R=$R D=$D C=$C PIPE=$PIPE TL_PROCS=$TL_PROCS"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/env.txt"
cat "$OUT/env.txt" >&2

# csv_col FILE TEST COLUMN prints COLUMN of the row of TEST in a CSV with a
# header (redis-benchmark --csv and tandem-load -csv share the first names).
csv_col() {
  tr -d '"\r' <"$1" | awk -F, -v t="$2" -v c="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == t && (c in col) { print $(col[c]); exit }'
}

# record CLIENT PIPE TARGET ROUND CSVFILE: one line per phase into $results.
record() {
  local client=$1 pipe=$2 target=$3 round=$4 file=$5 test ops p99 errs
  for test in SET GET; do
    ops=$(csv_col "$file" "$test" rps)
    p99=$(csv_col "$file" "$test" p99_latency_ms)
    errs=$(csv_col "$file" "$test" errors)
    if [ -z "$ops" ]; then
      log "  no $test figure in $file"
      continue
    fi
    printf '%s\t%s -P %s\t%s\t%s\t%s\t%s\t%s\n' "$client" "$test" "$pipe" "$target" "$round" "$ops" "${p99:-?}" "${errs:-n/a}" >>"$results"
    log "  $client $test -P $pipe $target: $ops ops/s, p99 ${p99:-?} ms${errs:+, errors $errs}"
  done
}

flush_redis() { redis-cli -p "$1" flushall >/dev/null; }

# bench_rb TARGET PORT PIPE ROUND: redis-benchmark, from an empty keyspace.
bench_rb() {
  local target=$1 port=$2 pipe=$3 round=$4 file
  file="$OUT/rb-$target-P$pipe-r$round.csv"
  flush_redis "$port"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -n "$N" -r "$R" -d "$D" -c "$C" -P "$pipe" --csv \
    >"$file" 2>"$file.err" || log "  redis-benchmark exited $? (see $file.err)"
  record redis-benchmark "$pipe" "$target" "$round" "$file"
}

# bench_tl PROTO TARGET PORT PIPE ROUND REQUESTS: tandem-load, -flush first.
bench_tl() {
  local proto=$1 target=$2 port=$3 pipe=$4 round=$5 n=$6 file rc=0
  file="$OUT/tl-$proto-$target-P$pipe-r$round.csv"
  "$LOAD" -proto "$proto" -addr "127.0.0.1:$port" -flush -t set,get -n "$n" -r "$R" -d "$D" -c "$C" \
    -P "$pipe" -procs "$TL_PROCS" -seed "$round" -csv >"$file" 2>"$file.err" || rc=$?
  [ "$rc" = 0 ] || log "  tandem-load exited $rc (3 = error replies; see $file)"
  record "tandem-load $proto" "$pipe" "$target" "$round" "$file"
}

start=$(date +%s)
for pipe in 1 "$PIPE"; do
  for round in $(seq "$ROUNDS"); do
    log "redis-benchmark -P $pipe, round $round/$ROUNDS"
    bench_rb tandem "$T_PORT" "$pipe" "$round"
    bench_rb redis-server "$R_PORT" "$pipe" "$round"
  done
done
if [ "$T_MC_OK" = 1 ]; then
  for pipe in 1 "$PIPE"; do
    for round in $(seq "$ROUNDS"); do
      log "tandem-load memcached -P $pipe, round $round/$ROUNDS"
      bench_tl memcached tandem "$T_MC_PORT" "$pipe" "$round" "$N"
      bench_tl memcached memcached "$M_PORT" "$pipe" "$round" "$N"
    done
  done
  # memcached 1.6 answers pipelined text "get"s with one sendmsg each, but
  # batches meta "mg" replies: the pipelined meta runs are the fairer
  # pipelined comparison (docs/benchmarks.md).
  for round in $(seq "$ROUNDS"); do
    log "tandem-load memcached-meta -P $PIPE, round $round/$ROUNDS"
    bench_tl memcached-meta tandem "$T_MC_PORT" "$PIPE" "$round" "$XN"
    bench_tl memcached-meta memcached "$M_PORT" "$PIPE" "$round" "$XN"
  done
fi
for pipe in 1 "$PIPE"; do
  for round in $(seq "$ROUNDS"); do
    log "tandem-load redis -P $pipe (cross-check), round $round/$ROUNDS"
    bench_tl redis tandem "$T_PORT" "$pipe" "$round" "$XN"
    bench_tl redis redis-server "$R_PORT" "$pipe" "$round" "$XN"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/env.txt"
log "measured in $(( $(date +%s) - start ))s; raw results in $OUT"

# The table: per client and workload, the Tandem row then the reference
# row; medians over the rounds; the ratio is Tandem's median ops/s over the
# reference's. Every run's ops/s is listed, in round order, to show spread.
awk -F'\t' -v rounds="$ROUNDS" -v mcok="$T_MC_OK" '
  function median(s,    a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function k(x) { return sprintf("%.0fk", x / 1000) }
  {
    g = $1 SUBSEP $2
    if (!(g in seen)) { seen[g] = 1; order[++ng] = g }
    key = g SUBSEP $3
    if (!(key in tg)) { tg[key] = 1; targets[g] = targets[g] (targets[g] == "" ? "" : "|") $3 }
    ops[key] = ops[key] " " $5; p99[key] = p99[key] " " $6; runs[key] = runs[key] (runs[key] == "" ? "" : " ") k($5)
    if ($7 != "n/a") errs[key] += $7; else noerr[key] = 1
  }
  END {
    print "| client | workload | target | ops/s (median) | p99 ms (median) | Tandem/ref ops/s | errors | ops/s per run |"
    print "|---|---|---|---:|---:|---:|---:|---|"
    for (i = 1; i <= ng; i++) {
      g = order[i]; split(g, gk, SUBSEP)
      nt = split(targets[g], ts, "|")
      ref = ""
      for (j = 1; j <= nt; j++) if (ts[j] != "tandem") ref = ts[j]
      tm = median(ops[g SUBSEP "tandem"]); rm = (ref == "" ? 0 : median(ops[g SUBSEP ref]))
      for (j = 1; j <= nt; j++) {
        key = g SUBSEP ts[j]
        ratio = (ts[j] == "tandem" && rm > 0) ? sprintf("**%.2f**", tm / rm) : ""
        e = (key in noerr) ? "n/a" : errs[key] + 0
        printf "| %s | %s | %s | %.0f | %.3f | %s | %s | %s |\n", gk[1], gk[2], ts[j], median(ops[key]), median(p99[key]), ratio, e, runs[key]
      }
    }
    if (mcok != 1) print "\nTandem'"'"'s memcached port did not answer: no memcached-protocol rows."
  }' "$results" | tee "$OUT/table.md"
