# Herald's production image: a release build in the official Rust image, then the binary alone on a
# slim Debian runtime, running as an unprivileged user. The image needs DATABASE_URL (its zero-config
# private PostgreSQL is for development and is not in the image) and, for more than one process,
# one HERALD_SECRET_KEY shared by all of them. See docs/operations.md.
#
#   docker build -t herald .
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
# build.rs compiles the protos with protox: no protoc needed.
RUN cargo build --release --locked --bin herald

FROM debian:bookworm-slim
# ca-certificates: providers over TLS; curl: the health checks.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/herald --create-home herald
COPY --from=build /src/target/release/herald /usr/local/bin/herald
USER 10001:10001
ENV HERALD_ADDR=0.0.0.0:3000 \
    HERALD_METRICS_ADDR=0.0.0.0:9464 \
    HERALD_LOG_FORMAT=json \
    HERALD_DATA_DIR=/var/lib/herald
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD curl -fsS http://127.0.0.1:9464/readyz || exit 1
ENTRYPOINT ["herald"]
CMD ["serve"]
