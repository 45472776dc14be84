# Tandem: Redis + memcached protocols over one keyspace.
# Base images are build arguments so the image can be built without a
# registry (see scripts/container-smoke.sh, which passes local stand-ins).
ARG BUILDER_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
COPY . .
ARG VERSION=dev
# COMMIT: the source revision for the start-up banner; without it the
# binary reports the one go build stamps when .git is in the context.
ARG COMMIT=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o /out/tandem ./cmd/tandem \
 && mkdir -p /out/data

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/tandem /usr/local/bin/tandem
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 6379 11211
# In a container listen on every interface; data lives in the volume.
# Protected mode stays on, as in Redis 7.0: with no password, clients that
# are not on the container's loopback (published ports included) are
# refused with DENIED on both ports. Set TANDEM_REQUIREPASS (or pass
# --requirepass) to serve them, or TANDEM_PROTECTED_MODE=no on a network
# you trust; the log warns at start.
ENV TANDEM_BIND="0.0.0.0" TANDEM_DIR="/data"
# The check cannot see flags given after the image name (--port,
# --requirepass): it reads the health file the server writes in /data
# (cmd/tandem/healthcheck.go says why).
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["/usr/local/bin/tandem", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/tandem"]
