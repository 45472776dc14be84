# Tandem: Redis + memcached protocols over one keyspace.
# Base images are build arguments so the image can be built without a
# registry (see scripts/container-smoke.sh, which passes local stand-ins).
ARG BUILDER_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${BUILDER_IMAGE} AS build
WORKDIR /src
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/tandem ./cmd/tandem \
 && mkdir -p /out/data

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/tandem /usr/local/bin/tandem
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 6379 11211
# In a container listen on every interface; data lives in the volume.
ENV TANDEM_BIND="0.0.0.0" TANDEM_DIR="/data"
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["/usr/local/bin/tandem", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/tandem"]
