import type { FxExecutor } from '../../db/executor.js';
import { RATE_LANGUAGES, type Language } from '../../i18n/languages.js';
import { loadLatestCrypto, loadLatestGold } from '../prices/latest-prices.js';
import type { Redenomination } from '../rates/history.js';
import { latestRateLists } from '../rates/latest-rates.js';
import type { RateSource } from '../rates/rate-types.js';
import { appendStreamEvent } from './stream-events.js';

/** What a rate write moved: a source's published rates, or a manual override (the effective rate only). */
export type RateWriteKind = RateSource | 'OVERRIDE';

/**
 * Every data write tells the recorder what it changed, inside its own transaction; the recorder
 * stores the changed entries as they are now served (language-neutral; the gold names in every
 * language), so a stream sends the same values /rates/latest would and a resume replays them.
 */
export interface LiveRecorder {
  ratesChanged(tx: FxExecutor, change: { kind: RateWriteKind; currencies: readonly string[] }, now: Date): Promise<void>;
  cryptoChanged(tx: FxExecutor, symbols: readonly string[], now: Date): Promise<void>;
  goldChanged(tx: FxExecutor, items: readonly { unit: string; karat: number }[], now: Date): Promise<void>;
}

export function createLiveRecorder(redenomination: Redenomination): LiveRecorder {
  return {
    async ratesChanged(tx, change, now) {
      const lists = await latestRateLists(tx, now, redenomination, change.currencies);
      // A market rate under an active override leaves the effective rate where it is.
      const payload = {
        timestampUtc: now.toISOString(),
        cbsRates: change.kind === 'CBS' ? lists.cbsRates : [],
        marketRates: change.kind === 'MARKET' ? lists.marketRates : [],
        effectiveRates: change.kind === 'CBS' ? [] : lists.effectiveRates.filter((entry) => change.kind === 'OVERRIDE' || !entry.isManualOverride),
      };
      if (payload.cbsRates.length + payload.marketRates.length + payload.effectiveRates.length === 0) return;
      await appendStreamEvent(tx, 'rates', payload, now);
    },
    async cryptoChanged(tx, symbols, now) {
      const prices = (await loadLatestCrypto(tx)).filter((price) => symbols.includes(price.symbol));
      if (prices.length > 0) await appendStreamEvent(tx, 'crypto', { timestampUtc: now.toISOString(), prices }, now);
    },
    async goldChanged(tx, items, now) {
      const wanted = new Set(items.map((item) => `${item.unit}:${item.karat}`));
      const byLanguage: Partial<Record<Language, unknown[]>> = {};
      for (const language of RATE_LANGUAGES) {
        byLanguage[language] = (await loadLatestGold(tx, language, now)).filter((price) => wanted.has(`${price.unit}:${price.karat}`));
      }
      await appendStreamEvent(tx, 'gold', { timestampUtc: now.toISOString(), prices: byLanguage }, now);
    },
  };
}
