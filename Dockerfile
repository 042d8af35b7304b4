# telemem: one static binary over one SQLite file in /data, on an empty base image.
#
#   docker build -t telemem .
#   docker run -d --name telemem --env-file .env -v telemem-data:/data \
#     -p 127.0.0.1:8080:8080 telemem
#
# or `docker compose up -d` with docker-compose.yml. The database lives in the /data volume;
# /healthz and /metrics answer on port 8080.
#
# The image holds the binary and an empty /data, nothing else: no shell, no libc, no CA bundle.
# The binary is linked statically against musl; its TLS (rustls) trusts the Mozilla roots built
# into it (webpki-roots) and reads no certificate file; PDF text is extracted in memory. Programs
# an MCP server needs (`npx`, `uvx`, ...) are not in it: build an image FROM this one for those,
# or reach MCP servers over HTTP.

FROM rust:1.95-slim-bookworm AS build
# musl-gcc: the C parts (ring, the bundled SQLite, mimalloc) are compiled for musl too.
RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Queries are checked against the committed .sqlx/ data: no database at build time.
# The image's build only, optimised for size ("s") rather than speed: a turn's time goes to the
# model and Telegram, and level 3 makes a binary too big for a small image. `cargo build
# --release` outside Docker (the load benchmarks) keeps Cargo.toml's level 3.
ENV SQLX_OFFLINE=true \
    CARGO_TERM_COLOR=never \
    CARGO_PROFILE_RELEASE_OPT_LEVEL=s \
    TARGET=x86_64-unknown-linux-musl
# mimalloc replaces musl's malloc, which serialises the threads of a busy bot on one lock.
ENV FEATURES=mimalloc
# The rust images carry the host's target only; the musl one comes from rustup (a no-op where the
# toolchain has it already).
RUN rustup target add "$TARGET"

# Dependencies first, in a layer of their own that only Cargo.toml and Cargo.lock invalidate:
# build them against placeholder sources (the manifest names a bench and a test, so those need a
# file too), then throw the placeholder crate away.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches tests/it \
 && echo 'fn main() {}' > src/main.rs \
 && touch src/lib.rs \
 && echo 'fn main() {}' > benches/storage.rs \
 && echo 'fn main() {}' > tests/it/main.rs \
 && cargo build --release --locked --target "$TARGET" --features "$FEATURES" --bin telemem \
 && rm -rf src

COPY .sqlx .sqlx
COPY migrations migrations
COPY src src
# COPY keeps the files' old timestamps; touching them makes cargo rebuild the crate instead of
# trusting the placeholder's fingerprint.
RUN touch src/main.rs src/lib.rs \
 && cargo build --release --locked --target "$TARGET" --features "$FEATURES" --bin telemem \
 && cp "target/$TARGET/release/telemem" /usr/local/bin/telemem \
 && mkdir /empty


FROM scratch
COPY --from=build /usr/local/bin/telemem /usr/local/bin/telemem
# A fixed uid, so a bind-mounted /data can be chowned to it on the host: chown 10001 ./data
COPY --from=build --chown=10001:10001 /empty /data

USER 10001:10001
WORKDIR /data
VOLUME /data
ENV PATH=/usr/local/bin \
    DATABASE_URL=sqlite:///data/telemem.db \
    HTTP_ADDR=0.0.0.0:8080
EXPOSE 8080
# telemem stops taking updates on SIGTERM and lets the turns in flight finish; give it the time
# with `docker stop -t 30` (compose: stop_grace_period).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
    CMD ["telemem", "healthcheck"]
ENTRYPOINT ["telemem"]
CMD ["run"]
