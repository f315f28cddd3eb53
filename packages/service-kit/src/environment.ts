import { z } from 'zod';
import { emptyAsUndefined } from './blank-values.js';
import { listenerVariables } from './listener-guards.js';

/**
 * Configuration is parsed once at start from the environment with one zod schema per
 * service; nothing else reads process.env. A bad variable stops the process with a
 * message naming every offending variable, not a stack trace.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Empty strings count as unset, so `FOO=` in a .env file falls back to the default. */

export const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());

/**
 * A retry schedule: the delay before each attempt in milliseconds, so the count is the number of
 * attempts (`0,5000,30000`: at once, after 5 s, after 30 s). Configuration so tests run it in ms.
 */
export function retryScheduleVariable(fallback: string) {
  return z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default(fallback)
      .transform((value, context) => {
        const delays = value.split(',').map((entry) => Number(entry.trim()));
        if (delays.length === 0 || delays.length > 10 || delays.some((delay) => !Number.isInteger(delay) || delay < 0 || delay > 86_400_000)) {
          context.addIssue({ code: 'custom', message: `must be 1 to 10 comma-separated delays in milliseconds (0 to 86400000), e.g. ${fallback}` });
          return z.NEVER;
        }
        return delays;
      }),
  );
}

/**
 * Settings of a service's webhook delivery queue (@svc/outbox), the same names in both
 * services: how long a worker holds a delivery without news (renewed while a send runs, so
 * it bounds how long a crashed worker's deliveries wait, not how long a send may take), and
 * how long finished deliveries are kept.
 */
export function deliveryQueueVariables() {
  const bounded = (fallback: number, min: number, max: number, unit: string) =>
    z.preprocess(emptyAsUndefined, z.coerce.number({ error: `must be a number of ${unit}` }).int(`must be a whole number of ${unit}`).min(min, `must be at least ${min}`).max(max, `must be at most ${max}`).default(fallback));
  return {
    DELIVERY_LEASE_MS: bounded(15_000, 1_000, 600_000, 'milliseconds'),
    DELIVERY_RETENTION_DAYS: bounded(30, 1, 3650, 'days'),
  };
}

export function portVariable(defaultPort: number) {
  return z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(65535).default(defaultPort));
}

export const databaseUrlVariable = z.preprocess(
  emptyAsUndefined,
  z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
);

export const redisUrlVariable = z.preprocess(
  emptyAsUndefined,
  z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
);

export const logLevelVariable = z.preprocess(
  emptyAsUndefined,
  z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
);

/** 32 bytes as 64 hex characters, or the same 32 bytes base64 (or base64url) encoded. */
export function decodeSecretsKey(value: string): Buffer | null {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (decoded.length === 32) return decoded;
  }
  return null;
}

export const secretsKeyVariable = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .refine((value) => decodeSecretsKey(value) !== null, {
      error: 'must be 32 bytes written as 64 hex characters (openssl rand -hex 32) or as base64',
    })
    .optional(),
);

/**
 * Prometheus metrics on a listener of their own, never the public port: off unless
 * METRICS_PORT is set, and on loopback unless METRICS_HOST says otherwise (a scraper in
 * another container needs 0.0.0.0 there, with the port kept off the public network).
 */
export function metricsVariables() {
  return {
    METRICS_PORT: z.preprocess(emptyAsUndefined, z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(1, 'must be from 1 to 65535').max(65535, 'must be from 1 to 65535').optional()),
    METRICS_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
  };
}

/**
 * OpenTelemetry tracing (@svc/telemetry): on when an OTLP endpoint is set, off (nothing of the SDK
 * loaded) otherwise. The exporter reads the other standard OTEL_EXPORTER_OTLP_* variables itself
 * (headers, timeout, compression), the SDK OTEL_TRACES_SAMPLER and OTEL_BSP_*; these are parsed
 * here so a malformed endpoint stops the start with a readable message.
 */
export function telemetryVariables() {
  const endpoint = z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL of an OTLP/HTTP receiver' }).optional());
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
    OTEL_SERVICE_NAME: optionalString,
  };
}

/** The variables every service shares. */
export function baseServiceEnvironment(defaultPort: number) {
  return z.object({
    PORT: portVariable(defaultPort),
    HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
    ...metricsVariables(),
    DATABASE_URL: databaseUrlVariable,
    REDIS_URL: redisUrlVariable,
    /** Namespace of the rate-limit counters in Redis, so environments (or test runs) sharing one Redis never count each other's requests. */
    RATE_LIMIT_KEY_PREFIX: optionalString,
    DATA_DIR: optionalString,
    SECRETS_KEY: secretsKeyVariable,
    LOG_LEVEL: logLevelVariable,
    ...listenerVariables(),
    ...telemetryVariables(),
  });
}

/** With a real database the key must be supplied: a generated file would differ per instance. */
export function requireSecretsKeyWithDatabase(value: { DATABASE_URL?: string | undefined; SECRETS_KEY?: string | undefined }, context: z.core.$RefinementCtx): void {
  if (value.DATABASE_URL && !value.SECRETS_KEY) {
    context.addIssue({
      code: 'custom',
      path: ['SECRETS_KEY'],
      message: 'is required when DATABASE_URL is set (every instance must share it); generate one with: openssl rand -hex 32',
    });
  }
}

function describeValue(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (value === undefined) return '';
  // Never echo secrets back into logs.
  if (/SECRET|KEY|TOKEN|PASSWORD/.test(name)) return ' (value hidden)';
  return ` (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
}

export function parseEnvironment<Schema extends z.ZodType>(schema: Schema, env: Record<string, string | undefined>): Readonly<z.output<Schema>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = issue.path.map(String).join('.') || 'environment';
      return `${name}: ${issue.message}${describeValue(env, name)}`;
    });
    throw new ConfigError(problems);
  }
  return Object.freeze(result.data);
}
