#!/usr/bin/env bash
# Runs every test Tandem has, after installing what they need: the real
# redis-server 7.0 and memcached 1.6 the differential suite compares with.
#   scripts/test.sh            everything (what CI runs)
#   FUZZTIME=60s scripts/test.sh   longer fuzzing (a duration or an input count like 500000x)
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v memcached >/dev/null || need+=(memcached)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
redis-server --version
memcached -V

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== go test -race (-timeout 20m: on 2 busy cores memproto's race run has passed go test's 10-minute default)"
go test -race -count=1 -timeout 20m ./...

echo "== fuzz (${FUZZTIME:=50000x} per target: an input count, not a duration, so a loaded machine cannot end a target mid-run)"
# Every Fuzz* function in the tree, each for FUZZTIME.
for file in $(grep -rl --include='*_test.go' '^func Fuzz' .); do
  pkg=$(dirname "$file")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    echo "-- $pkg $target"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 0 "$pkg"
  done
done
echo "== all tests passed"
