import { z } from 'zod';
import { COIN_NAMES, cryptoKey, dateFromEpoch } from '../quotes.js';
import { baseOf, type Connector } from './connector.js';

// GET /api/v3/simple/price?ids=...&vs_currencies=usd&include_24hr_change=true&include_last_updated_at=true
const payloadSchema = z.record(z.string(), z.object({ usd: z.number().positive(), usd_24h_change: z.number().optional(), last_updated_at: z.number().int().optional() }));

/** CoinGecko coin ids of the symbols served. */
const COINGECKO_IDS: Record<string, string> = { BTC: 'bitcoin', ETH: 'ethereum', USDT: 'tether', BNB: 'binancecoin', SOL: 'solana', XRP: 'ripple', PAXG: 'pax-gold' };

export const coingecko: Connector = {
  baseUrl: 'https://api.coingecko.com',
  defaultSymbols: ['BTC', 'ETH', 'USDT', 'BNB', 'SOL'],
  requiresKey: false,
  request(context) {
    const ids = context.symbols.flatMap((symbol) => (COINGECKO_IDS[symbol] ? [COINGECKO_IDS[symbol]] : [])).join(',');
    // The demo (free) plan's key header; without a key the public limits apply.
    const headers: Record<string, string> = context.apiKey ? { 'x-cg-demo-api-key': context.apiKey } : {};
    return { url: `${baseOf(this, context)}/api/v3/simple/price?ids=${ids}&vs_currencies=usd&include_24hr_change=true&include_last_updated_at=true`, headers };
  },
  parse(payload, context) {
    const prices = payloadSchema.parse(payload);
    return context.symbols.flatMap((symbol) => {
      const entry = prices[COINGECKO_IDS[symbol] ?? ''];
      if (!entry) return [];
      return [
        {
          key: cryptoKey(symbol),
          value: entry.usd,
          denomination: 'USD' as const,
          name: COIN_NAMES[symbol],
          ...(entry.usd_24h_change === undefined ? {} : { changePercent24h: entry.usd_24h_change }),
          observedAt: dateFromEpoch(entry.last_updated_at) ?? context.fetchedAt,
        },
      ];
    });
  },
};
