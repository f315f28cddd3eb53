#!/usr/bin/env node
import { z } from 'zod';
import { createLocalChecks } from './provider.js';
import { buildChecksServer } from './server-app.js';

/** Empty counts as unset, so `PORT=` in an env file falls back to the default. */
const unsetIfEmpty = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const wholeNumber = (fallback: number, min: number, max: number) => z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).default(fallback));

const environmentSchema = z.object({
  PORT: wholeNumber(3010, 0, 65535),
  HOST: z.preprocess(unsetIfEmpty, z.string().default('127.0.0.1')),
  LOG_LEVEL: z.preprocess(unsetIfEmpty, z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  CHECKS_CONCURRENCY: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(64).optional()),
  CHECKS_LOAD_TIMEOUT_MS: wholeNumber(30_000, 100, 600_000),
  CHECKS_INFERENCE_TIMEOUT_MS: wholeNumber(20_000, 100, 600_000),
  CHECKS_QUEUE_TIMEOUT_MS: wholeNumber(10_000, 0, 600_000),
  FFMPEG_PATH: z.preprocess(unsetIfEmpty, z.string().optional()),
});

/** Time in-flight checks get to finish after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * checks-local-server: the only place that reads the environment, listens and handles signals.
 * It listens first and loads the models right after, so /health answers 503 "loading" rather
 * than refusing connections; a model that fails to load is logged and retried by the next check.
 */
async function main(): Promise<void> {
  const parsed = environmentSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  - ${issue.path.join('.')}: ${issue.message}`);
    process.stderr.write(`checks-local-server: cannot start. Invalid configuration:\n${problems.join('\n')}\n`);
    process.exit(1);
  }
  const config = parsed.data;
  const checks = createLocalChecks({
    loadTimeoutMs: config.CHECKS_LOAD_TIMEOUT_MS,
    inferenceTimeoutMs: config.CHECKS_INFERENCE_TIMEOUT_MS,
    queueTimeoutMs: config.CHECKS_QUEUE_TIMEOUT_MS,
    ...(config.CHECKS_CONCURRENCY === undefined ? {} : { concurrency: config.CHECKS_CONCURRENCY }),
    ...(config.FFMPEG_PATH === undefined ? {} : { ffmpegPath: config.FFMPEG_PATH }),
  });
  const app = await buildChecksServer({ checks, logger: { level: config.LOG_LEVEL } });

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight checks');
    setTimeout(() => {
      app.log.error('in-flight checks did not finish in time: exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    // The app first (it stops taking requests and waits for running ones), then the engines they used.
    app
      .close()
      .then(() => checks.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    process.stderr.write(`checks-local-server: cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}\n`);
    await checks.close();
    process.exit(1);
  }
  const started = performance.now();
  try {
    await checks.warm();
    app.log.info({ ms: Math.round(performance.now() - started), models: (await checks.status()).models }, 'models loaded: ready');
  } catch (error) {
    app.log.error({ problems: (await checks.status()).problems, err: error }, 'models failed to load: checks will go to manual review until a later load succeeds');
  }
}

await main();
