import { z } from 'zod';
import { COIN_NAMES, cryptoKey } from '../quotes.js';
import { baseOf, type Connector } from './connector.js';

// GET /v2/exchange-rates?currency=USD: {data: {currency: "USD", rates: {BTC: "0.0000105", ...}}}, units of each per 1 USD.
const payloadSchema = z.object({ data: z.object({ currency: z.literal('USD'), rates: z.record(z.string(), z.string()) }) });

export const coinbase: Connector = {
  baseUrl: 'https://api.coinbase.com',
  defaultSymbols: ['BTC', 'ETH', 'USDT', 'SOL'],
  requiresKey: false,
  request(context) {
    return { url: `${baseOf(this, context)}/v2/exchange-rates?currency=USD`, headers: {} };
  },
  parse(payload, context) {
    const { rates } = payloadSchema.parse(payload).data;
    return context.symbols.flatMap((symbol) => {
      const perUsd = Number(rates[symbol]);
      if (!(perUsd > 0)) return [];
      return [{ key: cryptoKey(symbol), value: 1 / perUsd, denomination: 'USD' as const, name: COIN_NAMES[symbol], observedAt: context.fetchedAt }];
    });
  },
};
