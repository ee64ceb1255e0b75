# syntax=docker/dockerfile:1
# dggs-api image: `docker build -t dggs-api .`, `docker run -p 8080:8080 dggs-api`.
# The demo config and data are included; mount your own config (DGGS_CONFIG) and data for real use.
# scripts/check-dockerfile.sh builds and runs it (or, with no container engine, replays the stages).

# Build stage: every dependency, compile src/ to dist/, make the demo data.
FROM node:24-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY config ./config
COPY data/demo ./data/demo
RUN npm run build && npm run demo-data && mkdir -p data/runtime

# Runtime stage: production dependencies only, the compiled service, run as the unprivileged `node`
# user; the code is root-owned and read-only to it, only data/runtime (SQLite, order results) is its.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production UV_THREADPOOL_SIZE=12
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
COPY --from=build /app/data/demo ./data/demo
COPY --from=build --chown=node:node /app/data/runtime ./data/runtime
USER node
EXPOSE 8080
# Slim images have no curl: Node's own fetch probes the liveness route, on PORT when it is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
