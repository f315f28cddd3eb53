# One image per service, from the repository root as context:
#   docker build -f infra/docker/service.Dockerfile \
#     --build-arg SERVICE=identity --build-arg PORT=3001 --build-arg HEALTH_PATH=/health -t partner-services/identity .
#   docker build -f infra/docker/service.Dockerfile \
#     --build-arg SERVICE=fx --build-arg PORT=3002 --build-arg HEALTH_PATH=/api/v1/health -t partner-services/fx .
# docker-compose.yml passes the same arguments.

# Node 20 is the oldest line the project supports (engines: >=20.18) and what CI runs.
ARG NODE_IMAGE=node:20.20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Must equal packageManager in package.json, or pnpm would fetch that version itself.
ARG PNPM_VERSION=10.34.9
ENV CI=true \
    DO_NOT_TRACK=1
RUN npm install --global --no-fund --no-audit "pnpm@${PNPM_VERSION}" \
 && pnpm config set store-dir /pnpm/store
WORKDIR /repo

# pnpm fetch reads only the lockfile, so this layer (every third-party package, in the store)
# is rebuilt only when the lockfile changes, not when a package.json or source file does.
# The store stays in the layer rather than a cache mount: a cache mount can be emptied while
# this layer is still cached, and the offline install below would then fail.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch

COPY . .
RUN pnpm install --offline --frozen-lockfile

ARG SERVICE
RUN test -n "${SERVICE}" || { echo "build with --build-arg SERVICE=identity|fx" >&2; exit 1; }
# The service and the workspace packages it depends on, in dependency order.
RUN pnpm --filter "@svc/${SERVICE}..." run build

# --legacy: pnpm 10's default deploy needs inject-workspace-packages=true in the workspace,
# which would change how every developer's install links workspace packages. The legacy
# deploy copies each workspace dependency by its `files` (dist + package.json) into
# /out/node_modules, with production dependencies only.
# The committed SQL migrations are copied explicitly: the service's package.json need not
# list drizzle/ in `files`, and the migrator reads drizzle/ next to dist/ at start; data/ (the
# common-password list) is read the same way.
RUN pnpm --filter "@svc/${SERVICE}" deploy --prod --legacy --offline /out \
 && rm -rf /out/drizzle /out/src /out/test \
 && cp -R "services/${SERVICE}/drizzle" /out/drizzle \
 && if [ -d "services/${SERVICE}/data" ]; then rm -rf /out/data && cp -R "services/${SERVICE}/data" /out/data; fi \
 && test -f /out/dist/server.js && test -f /out/drizzle/meta/_journal.json

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ARG PORT
ARG HEALTH_PATH
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=${PORT} \
    HEALTH_PATH=${HEALTH_PATH} \
    DATA_DIR=/var/lib/partner-services
LABEL org.opencontainers.image.title="partner-services ${SERVICE}"

# Code stays root-owned and read-only to the process; only the data directory (embedded
# PGlite and the generated secrets key, used when DATABASE_URL is unset) is writable.
RUN test -n "${PORT}" && test -n "${HEALTH_PATH}" \
 && mkdir -p "${DATA_DIR}" && chown node:node "${DATA_DIR}"
WORKDIR /app
COPY --from=build /out ./

USER node
EXPOSE ${PORT}
# No curl in the slim image: Node's fetch. 200 is "ok" or "degraded", 503 is "down".
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}${process.env.HEALTH_PATH}`, { signal: AbortSignal.timeout(4000) }).then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# exec form, so SIGTERM reaches node (graceful shutdown); compose adds an init as PID 1.
CMD ["node", "dist/server.js"]
