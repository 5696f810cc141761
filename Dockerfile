# Weir in a container: one binary on a slim base, data in the /data volume.
#   docker build -t weir .
#   docker run -d --name weir -p 8080:8080 -v weir-data:/data weir
# Not built in the project's dev environment (no Docker engine there); see docs/install.md.

# --- build: the pinned Bun (package.json packageManager) compiles dist/weir -------------------
FROM oven/bun:1.4.5 AS build
WORKDIR /src
# Dependencies first so this layer is cached until package.json or bun.lock change.
COPY package.json bun.lock bunfig.toml ./
RUN bun install --frozen-lockfile
COPY . .
# Builds the UI when ui/package.json exists, embeds it, compiles with .env/bunfig autoload off.
RUN bash scripts/build

# --- runtime: the binary, and ping for ping monitors ----------------------------------------------
FROM debian:bookworm-slim
# ping monitors run the host's ping (Weir opens no raw sockets itself).
RUN apt-get update \
    && apt-get install -y --no-install-recommends iputils-ping \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --user-group --uid 10001 --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin weir \
    && mkdir -p /data \
    && chown weir:weir /data \
    && chmod 0700 /data
COPY --from=build /src/dist/weir /usr/local/bin/weir
ENV WEIR_DATA_DIR=/data WEIR_HOST=0.0.0.0 WEIR_PORT=8080
USER weir
WORKDIR /data
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["weir", "healthcheck"]
ENTRYPOINT ["weir"]
CMD ["serve"]
