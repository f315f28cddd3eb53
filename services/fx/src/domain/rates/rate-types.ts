import type { FxExecutor } from '../../db/executor.js';

/** The two rate sources: the central bank's official rate and the market rate. */
export const RATE_SOURCES = ['CBS', 'MARKET'] as const;
export type RateSource = (typeof RATE_SOURCES)[number];

/** A move of a watched mid (CBS: the official mid; MARKET: the effective one, overrides included). */
export interface RateChange {
  currency: string;
  source: RateSource;
  /** The watched mid before this update; null when there was none. */
  previous: string | null;
  current: string;
}

/**
 * Called by every rate writer (ingestion, overrides) inside its transaction, under the
 * stream's lock, once per watched mid that moved. Rate alerts plug in here, so the rates
 * module never imports whoever listens to it.
 */
export type RateChangeListener = (tx: FxExecutor, change: RateChange, now: Date) => Promise<unknown>;
