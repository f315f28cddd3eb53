import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { createServiceDependencies, type CommonEnvironment, type ServiceDependencies } from './dependencies.js';
import { ConfigError } from './environment.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { startConfiguredTelemetry, type TelemetryEnvironment } from './telemetry.js';

/** METRICS_PORT unset: no metrics listener. */
interface MetricsEnvironment {
  METRICS_PORT?: number | undefined;
  METRICS_HOST?: string | undefined;
}

export interface RunServiceOptions<TConfig extends CommonEnvironment & MetricsEnvironment & TelemetryEnvironment & { PORT: number; HOST: string }, TSchema extends Record<string, unknown>> {
  name: string;
  loadConfig: () => TConfig;
  schemaName: string;
  migrationsFolder: string;
  schema?: TSchema;
  buildApp: (dependencies: ServiceDependencies<TSchema> & { config: TConfig }) => Promise<FastifyInstance>;
  /** Milliseconds in-flight requests get to finish after SIGTERM/SIGINT. */
  shutdownGraceMs?: number;
}

/**
 * The only place that listens and handles signals. A configuration or start-up error
 * (bad variable, database locked by another process, Redis unreachable) prints one
 * readable message and exits 1, without a stack trace for the operator to decode.
 */
export async function runService<TConfig extends CommonEnvironment & MetricsEnvironment & TelemetryEnvironment & { PORT: number; HOST: string }, TSchema extends Record<string, unknown>>(
  options: RunServiceOptions<TConfig, TSchema>,
): Promise<void> {
  let config: TConfig;
  let app: FastifyInstance;
  let dependencies: ServiceDependencies<TSchema>;
  let metricsServer: MetricsServer | null = null;
  let flushTelemetry = () => Promise.resolve();
  try {
    config = options.loadConfig();
    if (config.METRICS_PORT !== undefined && config.METRICS_PORT === config.PORT) {
      throw new ConfigError([`METRICS_PORT: must differ from PORT (${config.PORT}): metrics are never served on the public port`]);
    }
    flushTelemetry = await startConfiguredTelemetry(config, options.name);
    dependencies = await createServiceDependencies({
      config,
      schemaName: options.schemaName,
      migrationsFolder: options.migrationsFolder,
      ...(options.schema ? { schema: options.schema } : {}),
    });
    try {
      app = await options.buildApp({ ...dependencies, config });
    } catch (error) {
      await dependencies.close();
      throw error;
    }
    app.log.info(
      { database: dependencies.database.driver, store: dependencies.redis ? 'redis' : 'memory', dataDir: dependencies.database.location ?? undefined },
      `${options.name} dependencies ready`,
    );
  } catch (error) {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`${options.name}: cannot start. ${message}\n`);
    process.exit(1);
  }

  closeWithGrace({ delay: options.shutdownGraceMs ?? 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stops accepting connections, waits for in-flight requests, runs the app's onClose hooks
    // (workers finish their batch, batched writes flush), and only then closes the database and
    // Redis. Not an onClose hook itself: Fastify runs those in reverse order of addition, so it
    // would run before the app's own.
    await app.close();
    await metricsServer?.close();
    await dependencies.close();
    await flushTelemetry();
  });

  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await app.close();
    await dependencies.close();
    process.stderr.write(`${options.name}: cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}\n`);
    process.exit(1);
  }

  if (config.METRICS_PORT === undefined) return;
  const metricsHost = config.METRICS_HOST ?? '127.0.0.1';
  try {
    app.metrics.collectProcessMetrics();
    metricsServer = await startMetricsServer({ metrics: app.metrics, port: config.METRICS_PORT, host: metricsHost, log: app.log });
    app.log.info({ address: `${metricsHost}:${metricsServer.address.port}` }, 'metrics served at /metrics');
  } catch (error) {
    // Asked for and unavailable is a deployment error: stop rather than run unobserved.
    await app.close();
    await dependencies.close();
    process.stderr.write(`${options.name}: cannot serve metrics on ${metricsHost}:${config.METRICS_PORT}: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
