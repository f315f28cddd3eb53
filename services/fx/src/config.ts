import { baseServiceEnvironment, parseEnvironment, requireSecretsKeyWithDatabase } from '@svc/service-kit';
import { z } from 'zod';

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const positiveInteger = (fallback: number) => z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(fallback));

export const fxEnvironmentSchema = baseServiceEnvironment(3002)
  .extend({
    /** Admin ingestion API; no admin routes at all when unset. */
    FX_ADMIN_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
    /** Anonymous per-IP limits (fixed windows); the bench raises them for its run. */
    RATE_LIMIT_ANON_PER_MINUTE: positiveInteger(60),
    RATE_LIMIT_ANON_PER_HOUR: positiveInteger(1200),
    /** A source whose newest rate is older than this is reported stale by /health. */
    FX_STALE_SOURCE_SECONDS: positiveInteger(6 * 3600),
    /** Upstream pollers (JSON `{timestampUtc?, rates: [...]}`); each is off when its URL is unset. */
    FX_POLL_CBS_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    FX_POLL_MARKET_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    FX_POLL_INTERVAL_SECONDS: positiveInteger(300),
    /** The Syrian pound redenomination: from this UTC date, 1 new pound = FACTOR old pounds. */
    FX_REDENOMINATION_DATE: z.preprocess(emptyAsUndefined, z.iso.date().default('2026-01-01')),
    FX_REDENOMINATION_FACTOR: positiveInteger(100),
    /** Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed; empty = use the socket address. */
    TRUSTED_PROXIES: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .optional()
        .transform((value) => (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0)),
    ),
  })
  .superRefine(requireSecretsKeyWithDatabase);

export type FxConfig = Readonly<z.output<typeof fxEnvironmentSchema>>;

export function loadFxConfig(env: Record<string, string | undefined> = process.env): FxConfig {
  return parseEnvironment(fxEnvironmentSchema, env);
}
