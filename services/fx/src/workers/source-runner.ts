import { createGuardedDispatcher } from '@svc/outbound-http';
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Dispatcher } from 'undici';
import type { FxExecutor } from '../db/executor.js';
import type { LiveRecorder } from '../domain/live/live-recorder.js';
import type { RateChangeListener } from '../domain/rates/rate-types.js';
import { combineQuotes, type CombineResult } from '../sources/combine.js';
import { fetchSourceQuotes, SourceFetchError, symbolsOf } from '../sources/fetch-source.js';
import { publishCombined } from '../sources/publish-combined.js';
import { cryptoKey, GOLD_KEY, type Quote } from '../sources/quotes.js';
import type { ResolvedSource, ResolvedSources } from '../sources/sources-file.js';
import type { SharedSourcesState, SourceLease } from './source-lease.js';

/** One configured source as /health lists it. */
export interface UpstreamStatus {
  name: string;
  kind: 'rates' | 'crypto' | 'gold';
  connector: string | null;
  /** A stand-in price (PAXG for gold). */
  proxy: boolean;
  lastSuccessUtc: string | null;
  lastError: string | null;
  /** Age of its newest quote (of its last success when it had none); null before the first success. */
  ageSeconds: number | null;
  stale: boolean;
  /** Whether its quotes are in the prices served now. */
  contributing: boolean;
  nextAttemptUtc: string;
}

interface SourceState {
  source: ResolvedSource;
  lastSuccess: Date | null;
  lastError: string | null;
  consecutiveFailures: number;
  nextAttemptAt: number;
  quotes: Quote[];
  /** Prices this source has quoted at least once: it counts as configured for them. */
  seenKeys: Set<string>;
}

const MAX_BACKOFF_MS = 3_600_000;
const TICK_MS = 1000;

export interface SourceRunnerOptions {
  sources: ResolvedSources;
  db: FxExecutor;
  clock: () => Date;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  live: LiveRecorder;
  onRateChanged: RateChangeListener;
  /** After an accepted ingestion (cache invalidation, waking the alert worker). */
  onIngested: () => Promise<void>;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  registry?: Registry;
  /** Fleet-wide: only its holder fetches; every instance reports the state the holder wrote. */
  lease: SourceLease;
}

export interface UpstreamsReport {
  sources: UpstreamStatus[];
  stalePrices: string[];
}

/**
 * Polls every configured source on its own interval (backing off after failures and 429s),
 * combines the fresh quotes into one price per coin, gold and rate (combine.ts), and writes
 * a price only when a fresh quote moved it forward: a source that stops leaves the last good
 * price, with its true time, and /health reports the source stale.
 */
export class SourceRunner {
  private readonly states: SourceState[];
  private readonly lastPublishedAt = new Map<string, number>();
  private contributing = new Set<string>();
  private stalePrices = new Set<string>();
  private dispatcher: Dispatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Whether this instance held the lease at its last tick. */
  private leading = false;
  private readonly metrics: { fetches?: Counter<'source' | 'outcome'>; latency?: Histogram<'source'> } = {};

  constructor(private readonly options: SourceRunnerOptions) {
    this.states = options.sources.sources.map((source) => ({ source, lastSuccess: null, lastError: null, consecutiveFailures: 0, nextAttemptAt: 0, quotes: [], seenKeys: new Set() }));
    if (options.registry) this.registerMetrics(options.registry);
  }

  get names(): string[] {
    return this.states.map((state) => state.source.name);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.pollDue(), TICK_MS);
    this.timer.unref();
    void this.pollDue();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.dispatcher?.close();
    if (this.leading) {
      this.leading = false;
      await this.options.lease.release().catch((error: unknown) => this.options.log.warn({ err: error }, 'could not release the upstream sources lease; another instance takes over when it runs out'));
    }
  }

  /** Whether this instance fetches the sources now (holds the lease). */
  get isFetching(): boolean {
    return this.leading;
  }

  /** Renews or takes the lease; when held, polls the sources whose next attempt is due, then publishes what changed. Overlapping calls share one run. */
  async pollDue(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Fetches one source now, without ingesting (sources:test). */
  async testSource(name: string): Promise<{ quotes: Quote[]; combined: CombineResult }> {
    const state = this.states.find((candidate) => candidate.source.name === name);
    if (!state) throw new Error(`no source named ${name}; the file has ${this.names.join(', ')}`);
    const { quotes } = await fetchSourceQuotes(state.source, await this.fetchOptions());
    const now = this.options.clock();
    const combined = combineQuotes({ sources: [{ source: name, quotes, maxAgeMs: this.maxAgeMs(state.source) }], now, maxDeviationPercent: this.options.sources.aggregation.maxDeviationPercent, configuredFor: () => 1 });
    return { quotes, combined };
  }

  /** Every source as the fetching instance (maybe another) last wrote it: the same answer on every instance. */
  async upstreams(): Promise<UpstreamsReport> {
    // Unreadable (database down): every source is listed, unknown and so stale, rather than hidden.
    const shared = await this.options.lease.readState().catch(() => null);
    const byName = new Map((shared?.sources ?? []).map((entry) => [entry.name, entry]));
    const now = this.options.clock().getTime();
    const sources = this.states.map(({ source }) => {
      const entry = byName.get(source.name);
      const newest = entry?.newestUtc ? Date.parse(entry.newestUtc) : undefined;
      const ageSeconds = newest === undefined ? null : Math.max(0, Math.floor((now - newest) / 1000));
      return {
        name: source.name,
        kind: source.kind,
        connector: source.connector ?? null,
        proxy: source.kind === 'gold' && symbolsOf(source).includes('PAXG'),
        lastSuccessUtc: entry?.lastSuccessUtc ?? null,
        lastError: entry?.lastError ?? null,
        ageSeconds,
        stale: ageSeconds === null || ageSeconds * 1000 > this.maxAgeMs(source),
        contributing: entry?.contributing ?? false,
        nextAttemptUtc: entry?.nextAttemptUtc ?? new Date(now).toISOString(),
      };
    });
    return { sources, stalePrices: shared?.stalePrices ?? [] };
  }

  /** What the other instances report: each source's state, the prices left stale, and what was published (so a taker-over does not write it again). */
  private sharedState(): SharedSourcesState {
    return {
      sources: this.states.map(({ source, lastSuccess, lastError, consecutiveFailures, quotes, nextAttemptAt }) => {
        const newest = quotes.length > 0 ? Math.max(...quotes.map((quote) => quote.observedAt.getTime())) : lastSuccess?.getTime();
        return {
          name: source.name,
          lastSuccessUtc: lastSuccess?.toISOString() ?? null,
          lastError,
          consecutiveFailures,
          newestUtc: newest === undefined ? null : new Date(newest).toISOString(),
          contributing: this.contributing.has(source.name),
          nextAttemptUtc: new Date(nextAttemptAt).toISOString(),
        };
      }),
      stalePrices: [...this.stalePrices].sort(),
      publishedAt: Object.fromEntries(this.lastPublishedAt),
    };
  }

  /** On taking the lease over: carry on the schedule, backoff and published prices of the previous holder. */
  private async resume(): Promise<void> {
    const shared = await this.options.lease.readState();
    if (!shared) return;
    for (const state of this.states) {
      const entry = shared.sources.find((candidate) => candidate.name === state.source.name);
      if (!entry) continue;
      state.lastSuccess = entry.lastSuccessUtc ? new Date(entry.lastSuccessUtc) : null;
      state.lastError = entry.lastError;
      state.consecutiveFailures = entry.consecutiveFailures;
      state.nextAttemptAt = Date.parse(entry.nextAttemptUtc);
    }
    for (const [key, at] of Object.entries(shared.publishedAt)) this.lastPublishedAt.set(key, Math.max(at, this.lastPublishedAt.get(key) ?? 0));
    this.stalePrices = new Set(shared.stalePrices);
  }

  private maxAgeMs(source: ResolvedSource): number {
    return (source.maxAgeSeconds ?? this.options.sources.aggregation.maxAgeSeconds) * 1000;
  }

  private async fetchOptions() {
    this.dispatcher ??= await createGuardedDispatcher({ allowPrivateTargets: this.options.allowPrivateTargets }, { connectTimeoutMs: this.options.timeoutMs });
    return { dispatcher: this.dispatcher, allowPrivateTargets: this.options.allowPrivateTargets, timeoutMs: this.options.timeoutMs, now: this.options.clock };
  }

  private async run(): Promise<void> {
    let holds: boolean;
    try {
      holds = await this.options.lease.acquire();
      if (holds && !this.leading) await this.resume();
    } catch (error) {
      this.options.log.warn({ err: error }, 'upstream sources lease check failed; not fetching this tick');
      return;
    }
    this.leading = holds;
    if (!holds) return;
    const now = this.options.clock().getTime();
    const due = this.states.filter((state) => state.nextAttemptAt <= now);
    if (due.length === 0) return;
    await Promise.all(due.map((state) => this.poll(state)));
    await this.publish();
    await this.options.lease.writeState(this.sharedState()).catch((error: unknown) => this.options.log.warn({ err: error }, 'could not share the upstream sources state'));
  }

  private async poll(state: SourceState): Promise<void> {
    const { source } = state;
    const intervalMs = source.intervalSeconds * 1000;
    const started = performance.now();
    try {
      const { quotes } = await fetchSourceQuotes(source, await this.fetchOptions());
      state.quotes = quotes;
      for (const quote of quotes) state.seenKeys.add(quote.key);
      state.lastSuccess = this.options.clock();
      state.lastError = null;
      state.consecutiveFailures = 0;
      state.nextAttemptAt = this.options.clock().getTime() + intervalMs;
      this.metrics.fetches?.inc({ source: source.name, outcome: 'ok' });
    } catch (error) {
      state.consecutiveFailures += 1;
      state.lastError = error instanceof Error ? error.message : String(error);
      // Exponential from the interval, capped at an hour; a Retry-After is honoured when longer.
      const backoff = Math.min(intervalMs * 2 ** Math.min(state.consecutiveFailures, 10), Math.max(MAX_BACKOFF_MS, intervalMs));
      const retryAfter = error instanceof SourceFetchError ? (error.retryAfterMs ?? 0) : 0;
      state.nextAttemptAt = this.options.clock().getTime() + Math.max(backoff, retryAfter);
      this.metrics.fetches?.inc({ source: source.name, outcome: error instanceof SourceFetchError && error.rateLimited ? 'rate_limited' : 'failed' });
      this.options.log.warn({ source: source.name, error: state.lastError, consecutiveFailures: state.consecutiveFailures, nextAttemptUtc: new Date(state.nextAttemptAt).toISOString() }, 'upstream source fetch failed');
    } finally {
      this.metrics.latency?.observe({ source: source.name }, (performance.now() - started) / 1000);
    }
  }

  /** How many sources are configured for a price: those asking for the coin, every gold source, and any that quoted it before. */
  private configuredFor(key: string): number {
    return this.states.filter(({ source, seenKeys }) => {
      if (seenKeys.has(key)) return true;
      if (key === GOLD_KEY) return source.kind === 'gold';
      return source.kind === 'crypto' && symbolsOf(source).some((symbol) => cryptoKey(symbol) === key);
    }).length;
  }

  private async publish(): Promise<void> {
    const now = this.options.clock();
    const result = combineQuotes({
      sources: this.states.map((state) => ({ source: state.source.name, quotes: state.quotes, maxAgeMs: this.maxAgeMs(state.source) })),
      now,
      maxDeviationPercent: this.options.sources.aggregation.maxDeviationPercent,
      configuredFor: (key) => this.configuredFor(key),
    });
    for (const outlier of result.outliers) this.options.log.warn(outlier, 'upstream quote dropped as an outlier');
    for (const withheld of result.withheld) this.options.log.warn(withheld, 'upstream sources disagree; the previous price stays');
    this.contributing = new Set(result.served.flatMap((price) => price.contributors));
    const servedKeys = new Set(result.served.map((price) => price.key));
    this.stalePrices = new Set([...this.lastPublishedAt.keys(), ...result.withheld.map((entry) => entry.key)].filter((key) => !servedKeys.has(key)));
    const fresh = result.served.filter((price) => price.observedAt.getTime() > (this.lastPublishedAt.get(price.key) ?? 0));
    if (fresh.length === 0) return;
    try {
      await this.options.db.transaction((tx) => publishCombined(tx, fresh, { now, live: this.options.live, onRateChanged: this.options.onRateChanged }));
      for (const price of fresh) this.lastPublishedAt.set(price.key, price.observedAt.getTime());
      await this.options.onIngested();
    } catch (error) {
      this.options.log.error({ err: error, prices: fresh.map((price) => price.key) }, 'combined upstream prices were refused by ingestion');
    }
  }

  private registerMetrics(registry: Registry): void {
    const registers = [registry];
    this.metrics.fetches = new Counter({ name: 'fx_source_fetches_total', help: 'Upstream source fetches by outcome (ok, failed, rate_limited).', labelNames: ['source', 'outcome'] as const, registers });
    this.metrics.latency = new Histogram({ name: 'fx_source_fetch_duration_seconds', help: 'Time of one upstream source fetch, failures included.', labelNames: ['source'] as const, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    const upstreams = () => this.upstreams();
    new Gauge({
      name: 'fx_source_age_seconds',
      help: 'Age of the newest quote of each upstream source (absent before its first success).',
      labelNames: ['source'] as const,
      registers,
      async collect() {
        const { sources } = await upstreams();
        this.reset();
        for (const upstream of sources) if (upstream.ageSeconds !== null) this.set({ source: upstream.name }, upstream.ageSeconds);
      },
    });
  }
}
