import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { ingestRates, type IngestRatesInput } from '../rates/ingest-rates.js';
import type { LiveRecorder } from '../live/live-recorder.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateChangeListener, RateSource } from '../rates/rate-types.js';

/** An upstream source: fetches and translates its payload into one ingestion. */
export interface RateSourceAdapter {
  readonly source: RateSource;
  fetchRates(signal: AbortSignal): Promise<IngestRatesInput>;
}

const upstreamPayload = z.object({
  timestampUtc: z.iso.datetime().optional(),
  rates: z.array(z.object({ currency: z.string(), buy: z.number(), sell: z.number(), mid: z.number().optional() })).min(1),
});

/** Adapter for an upstream serving `{timestampUtc?, rates: [{currency, buy, sell, mid?}]}` as JSON. */
export function jsonRateSource(source: RateSource, url: string): RateSourceAdapter {
  return {
    source,
    async fetchRates(signal) {
      const response = await fetch(url, { signal, headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`upstream ${source} answered ${response.status}`);
      const payload = upstreamPayload.parse(await response.json());
      return {
        source,
        observedAt: payload.timestampUtc ? new Date(payload.timestampUtc) : undefined,
        rates: payload.rates.map((rate) => ({ ...rate, currency: rate.currency.toUpperCase() })),
      };
    },
  };
}

export interface PollerStatus {
  lastSuccessUtc: string | null;
  lastError: string | null;
  consecutiveFailures: number;
}

/**
 * Polls one adapter on an interval through the same validated ingestion as the admin API.
 * A failure (network, bad payload, refused jump) is logged and counted, never thrown:
 * /health reports the source stale once its data ages past the limit.
 */
export class RatePoller {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  readonly status: PollerStatus = { lastSuccessUtc: null, lastError: null, consecutiveFailures: 0 };

  constructor(
    private readonly options: {
      adapter: RateSourceAdapter;
      db: FxExecutor;
      clock: () => Date;
      log: FastifyBaseLogger;
      intervalMs: number;
      timeoutMs?: number;
      /** Called after an accepted ingestion (cache invalidation, waking the alert worker). */
      onIngested?: () => Promise<void>;
      /** Told of every ingestion in its transaction, for live streams. */
      live?: LiveRecorder;
      /** Told of every watched rate the ingestion moves, in its transaction (rate alerts). */
      onRateChanged: RateChangeListener;
    },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.pollOnce(), this.options.intervalMs);
    this.timer.unref();
    void this.pollOnce();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One poll; overlapping calls share the poll in flight. Resolves true on success. */
  async pollOnce(): Promise<boolean> {
    if (this.running) {
      await this.running;
      return this.status.lastError === null;
    }
    this.running = this.poll().finally(() => {
      this.running = null;
    });
    await this.running;
    return this.status.lastError === null;
  }

  private async poll(): Promise<void> {
    const { adapter, db, clock, log } = this.options;
    try {
      const input = await adapter.fetchRates(AbortSignal.timeout(this.options.timeoutMs ?? 10_000));
      const now = clock();
      await db.transaction(async (tx) => {
        const accepted = await ingestRates(tx, input, now, this.options.onRateChanged);
        await this.options.live?.ratesChanged(tx, { kind: input.source, currencies: accepted.map((rate) => rate.currency) }, now);
      });
      await this.options.onIngested?.();
      this.status.lastSuccessUtc = now.toISOString();
      this.status.lastError = null;
      this.status.consecutiveFailures = 0;
    } catch (error) {
      this.status.lastError = error instanceof Error ? error.message : String(error);
      this.status.consecutiveFailures += 1;
      log.warn({ source: adapter.source, err: error, consecutiveFailures: this.status.consecutiveFailures }, 'rate poll failed');
    }
  }
}
