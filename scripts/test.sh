#!/usr/bin/env bash
# Runs every test Tandem has, after installing what they need: the real
# redis-server 7.0 and memcached 1.6 the differential suite compares with,
# and the memcached binary-protocol clients internal/compat runs
# (clients_binary_test.go): pylibmc, Dalli, php-memcached, spymemcached
# (Debian packages, with Cyrus SASL for memcached -S) and memjs (npm);
# promtool (Debian's prometheus) checks the /metrics exposition;
# prometheus-redis-exporter scrapes Tandem and redis-server side by side.
#   scripts/test.sh            everything (what CI runs)
#   FUZZTIME=60s scripts/test.sh   longer fuzzing (a duration or an input count like 500000x)
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v memcached >/dev/null || need+=(memcached)
command -v promtool >/dev/null || need+=(prometheus) # promtool: metrics' exposition check
command -v prometheus-redis-exporter >/dev/null || need+=(prometheus-redis-exporter) # the exporter's series against both servers
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
for pkg in python3-pylibmc ruby ruby-dalli php-cli php-memcached libspymemcached-java sasl2-bin libsasl2-modules; do
  installed "$pkg" || need+=("$pkg")
done
command -v javac >/dev/null || need+=(default-jdk-headless) # java runs the client's .java source
command -v npm >/dev/null || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
redis-server --version
memcached -V

# memjs, pinned: internal/compat's memjsVersion must match. The test looks
# in $COMPAT_MEMJS_DIR, by default where this puts it.
memjs=1.3.2
export COMPAT_MEMJS_DIR="${COMPAT_MEMJS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-binclients}"
if ! grep -qs "\"version\": \"$memjs\"" "$COMPAT_MEMJS_DIR/node_modules/memjs/package.json"; then
  echo "== installing memjs@$memjs into $COMPAT_MEMJS_DIR"
  npm install --prefix "$COMPAT_MEMJS_DIR" --no-audit --no-fund --silent "memjs@$memjs" >/dev/null
fi

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== go test -race (-timeout 20m: on 2 busy cores memproto's race run has passed go test's 10-minute default)"
go test -race -count=1 -timeout 20m ./...

echo "== fuzz (${FUZZTIME:=20000x} per target: an input count, not a duration, so a loaded machine cannot end a target mid-run)"
# Every Fuzz* function in the tree, each for FUZZTIME.
for file in $(grep -rl --include='*_test.go' '^func Fuzz' .); do
  pkg=$(dirname "$file")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    echo "-- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 0 "$pkg"
  done
done
echo "== all tests passed"
