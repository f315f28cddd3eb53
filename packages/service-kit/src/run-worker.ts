import closeWithGrace from 'close-with-grace';
import pino, { type Logger } from 'pino';
import { createServiceDependencies, type CommonEnvironment, type ServiceDependencies } from './dependencies.js';
import { ConfigError } from './environment.js';
import { startMetricsServer, type MetricsServer } from './metrics-server.js';
import { traceLogFields } from './logging.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics.js';
import { startConfiguredTelemetry, type TelemetryEnvironment } from './telemetry.js';

export interface BackgroundWorker {
  start(): void;
  /** Stops taking work and waits for the work in flight. */
  stop(): Promise<void>;
}

type WorkerEnvironment = CommonEnvironment & TelemetryEnvironment & { LOG_LEVEL: string; METRICS_PORT?: number | undefined; METRICS_HOST?: string | undefined };

export interface RunWorkerOptions<TConfig extends WorkerEnvironment, TSchema extends Record<string, unknown>> {
  /** Logged as the pino `service`, e.g. `fx-worker`. */
  name: string;
  loadConfig: () => TConfig;
  schemaName: string;
  migrationsFolder: string;
  schema?: TSchema;
  /** `metrics`: where the worker reports its queues; served on METRICS_PORT when set, as runService does. */
  createWorker: (context: { dependencies: ServiceDependencies<TSchema>; config: TConfig; log: Logger; metrics: ServiceMetrics }) => BackgroundWorker | Promise<BackgroundWorker>;
  /** Milliseconds the work in flight gets to finish after SIGTERM/SIGINT. */
  shutdownGraceMs?: number;
}

/**
 * A service's background worker as its own process (`pnpm --filter @svc/<service> worker`), for
 * deployments that scale workers apart from API instances. Like runService: one readable line
 * and exit 1 when it cannot start; on a signal it finishes its work in flight, then closes the
 * database and Redis.
 */
export async function runWorker<TConfig extends WorkerEnvironment, TSchema extends Record<string, unknown>>(
  options: RunWorkerOptions<TConfig, TSchema>,
): Promise<void> {
  let worker: BackgroundWorker;
  let dependencies: ServiceDependencies<TSchema>;
  let log: Logger;
  let metricsServer: MetricsServer | null = null;
  let flushTelemetry = () => Promise.resolve();
  try {
    const config = options.loadConfig();
    flushTelemetry = await startConfiguredTelemetry(config, options.name);
    log = pino({ level: config.LOG_LEVEL, base: { service: options.name }, ...traceLogFields() });
    dependencies = await createServiceDependencies({
      config,
      schemaName: options.schemaName,
      migrationsFolder: options.migrationsFolder,
      ...(options.schema ? { schema: options.schema } : {}),
    });
    const metrics = createServiceMetrics({ service: options.name, database: dependencies.database, log });
    worker = await options.createWorker({ dependencies, config, log, metrics });
    if (config.METRICS_PORT !== undefined) {
      metrics.collectProcessMetrics();
      metricsServer = await startMetricsServer({ metrics, port: config.METRICS_PORT, host: config.METRICS_HOST ?? '127.0.0.1', log });
    }
  } catch (error) {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`${options.name}: cannot start. ${message}\n`);
    process.exit(1);
  }
  worker.start();
  log.info({ database: dependencies.database.driver }, `${options.name} started`);
  closeWithGrace({ delay: options.shutdownGraceMs ?? 15_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an uncaught error');
    else log.info({ signal }, 'stopping: finishing the work in flight');
    await worker.stop();
    await metricsServer?.close();
    await dependencies.close();
    await flushTelemetry();
  });
}
