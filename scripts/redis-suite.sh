#!/usr/bin/env bash
# Runs redis-server's own test units against Tandem in external-server
# mode, the conformance reference our users' clients were tested with:
#
#   scripts/redis-suite.sh unit/latency-monitor unit/type/stream [-- test_helper options]
#
# The tests come from REDIS_SRC (a Redis 7.0 source tree) or else from
# Debian's source package of the installed redis-server (apt-get source
# into a private apt directory; kept in ~/.cache/tandem/redis-<version>).
# Tandem is built from this checkout and started with DEBUG enabled,
# maxmemory 0 and noeviction, as redis-server runs by default; TANDEM_ARGS
# adds to its command line (TANDEM_ARGS="--appendonly yes" for the tests
# that DEBUG LOADAOF what their server's AOF holds: in external-server
# mode their appendonly override is a CONFIG SET, whose rewrite may still
# run). Tests tagged needs:debug and needs:repl (DEBUG LOADAOF, the
# replication stream read over SYNC) run too. Each unit prints its
# [ok]/[err] lines and a count; the script exits non-zero when a unit has
# an [err] or an [exception].
set -euo pipefail
cd "$(dirname "$0")/.."

units=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do units+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
extra=("$@")
[ ${#units[@]} -gt 0 ] || { echo "usage: $0 unit/name ... [-- test_helper options]" >&2; exit 2; }

src=${REDIS_SRC:-}
if [ -z "$src" ]; then
	version=$(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p')
	src="${XDG_CACHE_HOME:-$HOME/.cache}/tandem/redis-$version"
	if [ ! -f "$src/tests/test_helper.tcl" ]; then
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		mkdir -p "$tmp/apt/parts" "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial" "$tmp/dl"
		# apt's own deb sources, as deb-src
		sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/*.sources > "$tmp/apt/parts/src.sources"
		: > "$tmp/apt/sources.list"
		opts=(-qq -o "Dir::Etc::SourceList=$tmp/apt/sources.list" -o "Dir::Etc::SourceParts=$tmp/apt/parts"
			-o "Dir::State::Lists=$tmp/apt/lists" -o "Dir::Cache=$tmp/apt/cache" -o Debug::NoLocking=1)
		apt-get "${opts[@]}" update || true
		(cd "$tmp/dl" && apt-get "${opts[@]}" source --download-only "redis=$(dpkg-query -W -f='${source:Version}' redis-server)")
		mkdir -p "$src"
		tar -xf "$tmp"/dl/redis_"$version".orig.tar.* -C "$src" --strip-components=1 \
			"redis-$version/tests" "redis-$version/runtest" "redis-$version/utils" 2>/dev/null ||
			tar -xf "$tmp"/dl/redis_"$version".orig.tar.* -C "$src" --strip-components=1
	fi
fi

work=$(mktemp -d)
go build -o "$work/tandem" ./cmd/tandem
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start() {
	"$work/tandem" --port "$port" --memcached-port 0 --dir "$work" --save "" \
		--enable-debug-command yes --maxmemory 0 --maxmemory-policy noeviction ${TANDEM_ARGS:-} > "$work/tandem.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && return; sleep 0.1; done
	echo "Tandem did not start:" >&2; cat "$work/tandem.log" >&2; exit 1
}
failed=0
for unit in "${units[@]}"; do
	start
	out="$work/$(echo "$unit" | tr / _).out"
	(cd "$src" && tclsh tests/test_helper.tcl --host 127.0.0.1 --port "$port" --single "$unit" \
		--clients 1 ${extra[@]+"${extra[@]}"}) 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' > "$out" || true
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	grep -E '^\[(err|exception)\]' "$out" || true
	ok=$(grep -c '^\[ok\]' "$out" || true); err=$(grep -c '^\[err\]' "$out" || true)
	exc=$(grep -c '^\[exception\]' "$out" || true)
	echo "$unit: $ok ok, $err err, $exc exception (full output: $out)"
	[ "$err" = 0 ] && [ "$exc" = 0 ] || failed=1
done
exit $failed
