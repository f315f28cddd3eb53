import { z } from 'zod';
import { COIN_NAMES, cryptoKey } from '../quotes.js';
import { baseOf, type Connector } from './connector.js';

// GET /0/public/Ticker?pair=...: {error: [], result: {PAIRNAME: {c: [last price, lot volume], o: today's opening price, ...}}}.
const payloadSchema = z.object({
  error: z.array(z.string()),
  result: z.record(z.string(), z.object({ c: z.tuple([z.string(), z.string()]), o: z.string() })).optional(),
});

/** Kraken names Bitcoin XBT, and some pairs by their legacy X…Z… names (XXBTZUSD). */
const krakenAsset = (symbol: string) => (symbol === 'BTC' ? 'XBT' : symbol);

export const kraken: Connector = {
  baseUrl: 'https://api.kraken.com',
  defaultSymbols: ['BTC', 'ETH', 'USDT', 'SOL'],
  requiresKey: false,
  request(context) {
    const pairs = context.symbols.map((symbol) => `${krakenAsset(symbol)}USD`).join(',');
    return { url: `${baseOf(this, context)}/0/public/Ticker?pair=${pairs}`, headers: {} };
  },
  parse(payload, context) {
    const parsed = payloadSchema.parse(payload);
    if (parsed.error.length > 0) throw new Error(`kraken: ${parsed.error.join('; ')}`);
    const result = parsed.result ?? {};
    return context.symbols.flatMap((symbol) => {
      const asset = krakenAsset(symbol);
      const entry = result[`${asset}USD`] ?? result[`X${asset}ZUSD`] ?? result[`${asset}ZUSD`];
      if (!entry) return [];
      const value = Number(entry.c[0]);
      const open = Number(entry.o);
      if (!(value > 0)) return [];
      // Kraken's "o" is today's (UTC) open, the nearest it documents to a 24-hour change.
      return [{ key: cryptoKey(symbol), value, denomination: 'USD' as const, name: COIN_NAMES[symbol], ...(open > 0 ? { changePercent24h: ((value - open) / open) * 100 } : {}), observedAt: context.fetchedAt }];
    });
  },
};
