import { resolveUserPath } from '@svc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { FxConfig } from '../config.js';
import { loadSourcesFile } from '../sources/sources-file.js';
import { SourceLease } from './source-lease.js';
import { SourceRunner } from './source-runner.js';
import type { RatePollerWiring } from './rate-poller.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The FX_SOURCES_FILE runner, null when unset (tests drive it with pollDue()). */
    upstreamSources: SourceRunner | null;
  }
}

/**
 * The sources of FX_SOURCES_FILE, read and validated now (a bad file stops the start with a
 * message naming its line), polled once the server listens (never in app.inject tests) and
 * stopped when the app closes. Null when the variable is unset: no connector runs unconfigured.
 */
export async function startUpstreamSources(app: FastifyInstance, wiring: RatePollerWiring, env: Record<string, string | undefined>): Promise<SourceRunner | null> {
  const config: FxConfig = wiring.config;
  if (!config.FX_SOURCES_FILE) return null;
  // A relative path is read from where the user ran npm/pnpm (INIT_CWD), as the CLI reads its files.
  const sources = await loadSourcesFile(resolveUserPath(config.FX_SOURCES_FILE, env), env);
  const runner = new SourceRunner({
    sources,
    db: wiring.db,
    clock: wiring.clock,
    log: app.log,
    live: wiring.live,
    onRateChanged: wiring.onRateChanged,
    onIngested: wiring.onIngested,
    allowPrivateTargets: config.FX_SOURCES_ALLOW_PRIVATE_TARGETS,
    timeoutMs: config.FX_SOURCES_TIMEOUT_MS,
    registry: app.metrics.registry,
    lease: new SourceLease(wiring.db, config.FX_SOURCES_LEASE_SECONDS),
  });
  app.log.info({ sources: runner.names }, 'upstream sources configured');
  app.addHook('onListen', () => runner.start());
  app.addHook('onClose', () => runner.stop());
  return runner;
}
