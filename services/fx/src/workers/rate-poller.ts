import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { FxConfig } from '../config.js';
import type { FxExecutor } from '../db/executor.js';
import type { LiveRecorder } from '../domain/live/live-recorder.js';
import { ingestRates } from '../domain/rates/ingest-rates.js';
import type { RateChangeListener } from '../domain/rates/rate-types.js';
import { jsonRateSource, type RateSourceAdapter } from '../sources/json-rate-source.js';

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

export interface RatePollerWiring {
  config: FxConfig;
  db: FxExecutor;
  clock: () => Date;
  live: LiveRecorder;
  onRateChanged: RateChangeListener;
  onIngested: () => Promise<void>;
}

/**
 * One poller per configured upstream URL, started once the server listens (never in
 * app.inject tests, which do not listen) and stopped when the app closes.
 */
export function startRatePollers(app: FastifyInstance, wiring: RatePollerWiring): RatePoller[] {
  const { config } = wiring;
  const upstreams = [
    ['CBS', config.FX_POLL_CBS_URL],
    ['MARKET', config.FX_POLL_MARKET_URL],
  ] as const;
  const pollers = upstreams.flatMap(([source, url]) =>
    url
      ? [
          new RatePoller({
            adapter: jsonRateSource(source, url),
            db: wiring.db,
            clock: wiring.clock,
            log: app.log,
            intervalMs: config.FX_POLL_INTERVAL_SECONDS * 1000,
            live: wiring.live,
            onRateChanged: wiring.onRateChanged,
            onIngested: wiring.onIngested,
          }),
        ]
      : [],
  );
  app.addHook('onListen', () => pollers.forEach((poller) => poller.start()));
  app.addHook('onClose', async () => {
    await Promise.all(pollers.map((poller) => poller.stop()));
  });
  return pollers;
}
