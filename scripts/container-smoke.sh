#!/usr/bin/env bash
# Builds the Dockerfile with podman (no Docker engine, no registry: local
# stand-ins for the base images) and checks the image serves both
# protocols: a key SET through the Redis port is read through the memcached
# port and the other way round, and the health check answers, also for a
# container started with --port and --requirepass after the image name.
set -euo pipefail
cd "$(dirname "$0")/.."
RPORT=${RPORT:-17379}; MPORT=${MPORT:-17211}; APORT=${APORT:-17679}; AMPORT=${AMPORT:-17680}; IMG=localhost/tandem:smoke
export DEBIAN_FRONTEND=noninteractive
command -v podman >/dev/null && command -v runc >/dev/null && command -v debootstrap >/dev/null ||
  { apt-get update -qq && apt-get install -y -qq podman runc debootstrap >/dev/null; }
# This sandbox lacks CAP_SYS_RESOURCE (podman's default nofile is refused)
# and has hybrid cgroups that crun refuses; runc works.
mkdir -p /etc/containers && cat > /etc/containers/containers.conf <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
GOV=$(go env GOVERSION); BUILDER=localhost/golang:${GOV#go}-bookworm-local; RUNTIME=localhost/static-runtime:local
if ! podman image exists "$BUILDER"; then   # stand-in for golang:1.26-bookworm: Debian minbase + this Go
  r=$(mktemp -d); mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  debootstrap --variant=minbase bookworm "$r" "$mirror" >/dev/null
  rm -rf "$r"/var/cache/apt/archives/*.deb; mkdir -p "$r/etc/ssl/certs"; cp /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/"
  cp -a "$(go env GOROOT)" "$r/usr/local/go"
  tar -C "$r" -c . | podman import -q -c 'ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'ENV GOPATH=/go' -c 'ENV GOTOOLCHAIN=local' -c "ENV GOPROXY=$(go env GOPROXY)" -c 'WORKDIR /go' - "$BUILDER" >/dev/null; rm -rf "$r"
fi
if ! podman image exists "$RUNTIME"; then   # stand-in for distroless/static: CA certs, tzdata, nonroot user, /tmp
  d=$(mktemp -d); mkdir -p "$d"/etc/ssl/certs "$d"/tmp "$d"/home/nonroot "$d"/usr/share
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$d/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$d/etc/group"
  cp /etc/ssl/certs/ca-certificates.crt "$d/etc/ssl/certs/"; cp -a /usr/share/zoneinfo "$d/usr/share/"
  chmod 1777 "$d/tmp"; chown 65532:65532 "$d/home/nonroot"; tar -C "$d" -c . | podman import -q - "$RUNTIME" >/dev/null; rm -rf "$d"
fi
# Vendor modules so the build needs no network inside the container.
go mod vendor
trap 'rm -rf vendor' EXIT
podman build -q --format docker --network host -f Dockerfile -t "$IMG" --build-arg BUILDER_IMAGE="$BUILDER" --build-arg RUNTIME_IMAGE="$RUNTIME" . >/dev/null
vol=$(mktemp -d); chmod 777 "$vol"
cid=$(podman run -d --no-healthcheck --network host -v "$vol:/data" -e TANDEM_BIND=127.0.0.1 "$IMG" --port "$RPORT" --memcached-port "$MPORT")
trap 'podman rm -f -t 2 "$cid" >/dev/null 2>&1; rm -rf vendor "$vol"' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$RPORT") 2>/dev/null && break; sleep 0.1; done

pass=0; fail=0
check() { # name, want, got
  if [ "$2" = "$3" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $1: want $(printf %q "$2") got $(printf %q "$3")"; fi
}
talk() { # port, bytes → reply (first lines)
  exec 3<>"/dev/tcp/127.0.0.1/$1"; printf "$2" >&3; timeout 3 head -c "$3" <&3 || true; exec 3>&-
}
check "RESP SET" $'+OK\r' "$(talk "$RPORT" '*3\r\n$3\r\nSET\r\n$4\r\nsmk1\r\n$5\r\nhello\r\n' 5 | head -n1)"
check "memcached get of a RESP value" $'VALUE smk1 0 5\r\nhello\r\nEND\r' "$(talk "$MPORT" 'get smk1\r\n' 28)"
check "memcached set" $'STORED\r' "$(talk "$MPORT" 'set smk2 7 0 3\r\nabc\r\n' 8 | head -n1)"
check "RESP GET of a memcached value" $'$3\r\nabc\r' "$(talk "$RPORT" '*2\r\n$3\r\nGET\r\n$4\r\nsmk2\r\n' 9)"
if podman exec "$cid" /usr/local/bin/tandem healthcheck --port "$RPORT" >/dev/null 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL healthcheck"; fi
# The image's own HEALTHCHECK must follow flags given after the image name.
# (Without systemd podman logs that it cannot schedule the check; `podman
# healthcheck run` below runs it.)
vol2=$(mktemp -d); chmod 777 "$vol2"
cid2=$(podman run -d --network host -v "$vol2:/data" -e TANDEM_BIND=127.0.0.1 "$IMG" --port "$APORT" --memcached-port "$AMPORT" --requirepass pw)
trap 'podman rm -f -t 2 "$cid" "$cid2" >/dev/null 2>&1; rm -rf vendor "$vol" "$vol2"' EXIT
for _ in $(seq 100); do podman exec "$cid2" /usr/local/bin/tandem healthcheck >/dev/null 2>&1 && break; sleep 0.1; done
if podman exec "$cid2" /usr/local/bin/tandem healthcheck >/dev/null 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL healthcheck with --port $APORT --requirepass pw"; fi
if podman healthcheck run "$cid2" >/dev/null 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL image HEALTHCHECK with --port $APORT --requirepass pw"; fi
check "NOAUTH without the password" $'-NOAUTH Authentication required.\r' "$(talk "$APORT" '*1\r\n$4\r\nPING\r\n' 34)"
[ "$fail" = 0 ] || { podman logs "$cid" | tail -20; podman logs "$cid2" | tail -20; }
echo "container: $pass passed, $fail failed"
[ "$fail" = 0 ]
