import { asc, desc } from 'drizzle-orm';
import { cryptoPrices, goldPrices } from '../../db/schema.js';
import type { Language } from '../../i18n/languages.js';
import { toFixedPoint } from '../rates/decimal.js';
import type { FxExecutor } from '../../db/executor.js';
import { loadLatestRates } from '../rates/latest-rates.js';

export const GRAMS_PER_TROY_OUNCE = '31.1034768';

/**
 * USD to the cent; prices under one dollar (small coins) keep 6 decimals. A change is
 * rounded like the price it belongs to, so a $84 price never shows a $0.555254 change.
 */
function roundUsd(value: string, priceForPrecision: string = value): number {
  const decimals = Math.abs(Number(priceForPrecision)) >= 1 ? 100 : 1e6;
  return Math.round(Number(value) * decimals) / decimals;
}

function roundNullable(value: string | null, decimals: number): number | null {
  if (value === null) return null;
  const factor = 10 ** decimals;
  return Math.round(Number(value) * factor) / factor;
}

export async function loadLatestCrypto(db: FxExecutor) {
  const rows = await db
    .selectDistinctOn([cryptoPrices.symbol])
    .from(cryptoPrices)
    .orderBy(asc(cryptoPrices.symbol), desc(cryptoPrices.observedAt));
  return rows.map((row) => ({
    symbol: row.symbol,
    name: row.name,
    priceUsd: roundUsd(row.priceUsd),
    change24h: row.change24h === null ? null : roundUsd(row.change24h, row.priceUsd),
    changePercent24h: roundNullable(row.changePercent24h, 2),
    timestampUtc: row.observedAt.toISOString(),
  }));
}

const UNIT_NAMES: Record<Language, { ounce: string; gram: string; gold: string }> = {
  ar: { ounce: 'أونصة', gram: 'غرام', gold: 'ذهب' },
  en: { ounce: 'troy ounce', gram: 'gram', gold: 'Gold' },
  de: { ounce: 'Feinunze', gram: 'Gramm', gold: 'Gold' },
  tr: { ounce: 'ons', gram: 'gram', gold: 'Altın' },
  ku: { ounce: 'ئۆنس', gram: 'گرام', gold: 'زێڕ' },
  kmr: { ounce: 'ons', gram: 'gram', gold: 'Zêr' },
};

/**
 * Latest gold prices with, for each, the price of one gram in SYP at the effective USD
 * rate (what people in Syria ask for); null while there is no USD rate.
 */
export async function loadLatestGold(db: FxExecutor, language: Language, now: Date) {
  const [rows, rates] = await Promise.all([
    db
      .selectDistinctOn([goldPrices.unit, goldPrices.karat])
      .from(goldPrices)
      .orderBy(asc(goldPrices.unit), desc(goldPrices.karat), desc(goldPrices.observedAt)),
    loadLatestRates(db, now),
  ]);
  const usd = rates.effective.find((rate) => rate.currency === 'USD');
  const names = UNIT_NAMES[language];
  return rows.map((row) => {
    const perGramUsd = row.unit === 'ounce' ? (toFixedPoint(row.priceUsd) * 10n ** 8n) / toFixedPoint(GRAMS_PER_TROY_OUNCE) : toFixedPoint(row.priceUsd);
    const perGramSyp = usd ? Math.round((Number(perGramUsd) / 1e8) * Number(usd.mid)) : null;
    return {
      unit: row.unit,
      karat: row.karat,
      name: `${names.gold} ${row.karat}K / ${names[row.unit]}`,
      priceUsd: roundUsd(row.priceUsd),
      change24h: row.change24h === null ? null : roundUsd(row.change24h, row.priceUsd),
      changePercent24h: roundNullable(row.changePercent24h, 2),
      pricePerGramSyp: perGramSyp,
      timestampUtc: row.observedAt.toISOString(),
    };
  });
}
