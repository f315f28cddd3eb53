import { z } from 'zod';
import { COIN_NAMES, cryptoKey, dateFromEpoch } from '../quotes.js';
import { baseOf, type Connector } from './connector.js';

// GET /api/v3/ticker/24hr?symbols=[...]: an array of 24-hour tickers, decimals as strings.
const ticker = z.object({
  symbol: z.string(),
  lastPrice: z.string().regex(/^\d+(\.\d+)?$/),
  priceChangePercent: z.string(),
  closeTime: z.number().int(),
});

/** Binance spot: coins against USDT (Binance has no USD book), converted through a USDT/USD price. */
export const binance: Connector = {
  baseUrl: 'https://api.binance.com',
  defaultSymbols: ['BTC', 'ETH', 'BNB', 'SOL'],
  requiresKey: false,
  request(context) {
    const pairs = context.symbols.filter((symbol) => symbol !== 'USDT').map((symbol) => `${symbol}USDT`);
    return { url: `${baseOf(this, context)}/api/v3/ticker/24hr?symbols=${encodeURIComponent(JSON.stringify(pairs))}`, headers: {} };
  },
  parse(payload, context) {
    const tickers = z.array(ticker).parse(payload);
    return tickers.flatMap((entry) => {
      const symbol = entry.symbol.endsWith('USDT') ? entry.symbol.slice(0, -4) : null;
      if (!symbol || !context.symbols.includes(symbol)) return [];
      const value = Number(entry.lastPrice);
      if (!(value > 0)) return [];
      return [{ key: cryptoKey(symbol), value, denomination: 'USDT' as const, name: COIN_NAMES[symbol], changePercent24h: Number(entry.priceChangePercent), observedAt: dateFromEpoch(entry.closeTime) ?? context.fetchedAt }];
    });
  },
};
