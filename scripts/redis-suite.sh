#!/usr/bin/env bash
# Runs redis-server's own test units against Tandem in external-server
# mode, the conformance reference our users' clients were tested with:
#
#   scripts/redis-suite.sh unit/latency-monitor unit/type/stream [-- test_helper options]
#
# An integration/ unit (integration/aof, integration/aof-multi-part,
# integration/rdb, integration/replication-psync…) starts its own servers:
# it runs with Tandem standing in for src/redis-server (a shim that drops
# the unixsocket directive the framework adds and prints the " PID: "
# line of Redis's logo once Tandem listens), the real redis-cli,
# redis-check-aof and redis-check-rdb beside it, and the tests that kill
# a fork child (get_child_pid: Tandem forks none) or count on a child's
# copy-on-write skipped (FORK_TESTS below).
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

# Tests of integration/ units that need a fork child: they kill it, read
# its copy-on-write, or (after one of those) expect its file sequence.
FORK_TESTS='/child|COW|failed bgsave prevents writes|multiple rewrite failures|AOF enable during BGSAVE|trigger limit when AOFRW fails|open a temporary INCR AOF|doesn.t open new aof when AOF turn off|enable/disable auto gc|consecutive sequence number after reload'

# integration_tree makes a copy of the test tree whose src/ holds the shim.
integration_tree() {
	local tree="$work/redis-tests"
	[ -d "$tree" ] && return
	mkdir -p "$tree/src"
	cp -r "$src/tests" "$src/runtest" "$tree/"
	[ -d "$src/utils" ] && cp -r "$src/utils" "$tree/"
	for tool in redis-cli redis-check-aof redis-check-rdb redis-benchmark; do
		ln -sf "$(command -v "$tool")" "$tree/src/$tool"
	done
	cat > "$tree/src/redis-server" <<SHIM
#!/usr/bin/env bash
conf=\$1; shift
grep -v '^unixsocket' "\$conf" > "\$conf.tandem"
port=\$(awk '\$1=="port"{p=\$2} END{print p}' "\$conf.tandem")
me=\$\$
( for _ in \$(seq 2000); do
	kill -0 \$me 2>/dev/null || { echo " PID: \$me"; exit 0; }
	(exec 3<>/dev/tcp/127.0.0.1/\$port) 2>/dev/null && { echo " PID: \$me"; exit 0; }
	sleep 0.01
  done ) &
exec "$work/tandem" "\$conf.tandem" --memcached-port 0 "\$@"
SHIM
	chmod +x "$tree/src/redis-server"
}
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
	out="$work/$(echo "$unit" | tr / _).out"
	if [[ $unit == integration/* ]]; then
		integration_tree
		# A base port of its own, so that runs side by side do not collide.
		(cd "$work/redis-tests" && tclsh tests/test_helper.tcl --single "$unit" --clients 1 \
			--baseport $((22000 + RANDOM % 20000)) --skiptest "$FORK_TESTS" ${extra[@]+"${extra[@]}"}) 2>&1 |
			sed 's/\x1b\[[0-9;]*m//g' > "$out" || true
	else
		start
		(cd "$src" && tclsh tests/test_helper.tcl --host 127.0.0.1 --port "$port" --single "$unit" \
			--clients 1 ${extra[@]+"${extra[@]}"}) 2>&1 |
			sed 's/\x1b\[[0-9;]*m//g' > "$out" || true
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
	fi
	grep -E '^\[(err|exception)\]' "$out" || true
	ok=$(grep -c '^\[ok\]' "$out" || true); err=$(grep -c '^\[err\]' "$out" || true)
	exc=$(grep -c '^\[exception\]' "$out" || true)
	echo "$unit: $ok ok, $err err, $exc exception (full output: $out)"
	[ "$err" = 0 ] && [ "$exc" = 0 ] || failed=1
done
exit $failed
