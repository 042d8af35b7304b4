# telemem: one static-ish binary over one SQLite file in /data.
#
#   docker build -t telemem .
#   docker run -d --name telemem --env-file .env -v telemem-data:/data \
#     -p 127.0.0.1:8080:8080 telemem
#
# or `docker compose up -d` with docker-compose.yml. The database lives in the /data volume;
# /healthz and /metrics answer on port 8080.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
# Queries are checked against the committed .sqlx/ data: no database at build time.
ENV SQLX_OFFLINE=true \
    CARGO_TERM_COLOR=never

# Dependencies first, in a layer of their own that only Cargo.toml and Cargo.lock invalidate:
# build them against placeholder sources (the manifest names a bench and a test, so those need a
# file too), then throw the placeholder crate away.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches tests/it \
 && echo 'fn main() {}' > src/main.rs \
 && touch src/lib.rs \
 && echo 'fn main() {}' > benches/storage.rs \
 && echo 'fn main() {}' > tests/it/main.rs \
 && cargo build --release --locked --bin telemem \
 && rm -rf src

COPY .sqlx .sqlx
COPY migrations migrations
COPY src src
# COPY keeps the files' old timestamps; touching them makes cargo rebuild the crate instead of
# trusting the placeholder's fingerprint.
RUN touch src/main.rs src/lib.rs \
 && cargo build --release --locked --bin telemem \
 && cp target/release/telemem /usr/local/bin/telemem


# Debian's CA bundle, without the package around it: ca-certificates depends on OpenSSL, which
# telemem never uses (its TLS is rustls), so only the bundle moves on to the runtime image.
FROM debian:bookworm-slim AS certs
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates


FROM debian:bookworm-slim
COPY --from=certs /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# A fixed uid, so a bind-mounted /data can be chowned to it on the host: chown 10001 ./data
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home telemem \
 && mkdir /data \
 && chown telemem:telemem /data
COPY --from=build /usr/local/bin/telemem /usr/local/bin/telemem

USER telemem
WORKDIR /data
VOLUME /data
ENV DATABASE_URL=sqlite:///data/telemem.db \
    HTTP_ADDR=0.0.0.0:8080
EXPOSE 8080
# telemem stops taking updates on SIGTERM and lets the turns in flight finish; give it the time
# with `docker stop -t 30` (compose: stop_grace_period).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
    CMD ["telemem", "healthcheck"]
ENTRYPOINT ["telemem"]
CMD ["run"]
