import { z } from 'zod';
import { dateFromEpoch, GOLD_KEY } from '../quotes.js';
import { baseOf, type Connector } from './connector.js';

// goldapi.io GET /api/XAU/USD (header x-access-token): spot gold in USD per troy ounce.
const goldApiPayload = z.object({ metal: z.literal('XAU'), currency: z.literal('USD'), price: z.number().positive(), timestamp: z.number().int(), chp: z.number().optional() });

export const goldapi: Connector = {
  baseUrl: 'https://www.goldapi.io',
  defaultSymbols: [],
  requiresKey: true,
  request(context) {
    return { url: `${baseOf(this, context)}/api/XAU/USD`, headers: { 'x-access-token': context.apiKey ?? '' } };
  },
  parse(payload, context) {
    const parsed = goldApiPayload.parse(payload);
    return [{ key: GOLD_KEY, value: parsed.price, denomination: 'USD', ...(parsed.chp === undefined ? {} : { changePercent24h: parsed.chp }), observedAt: dateFromEpoch(parsed.timestamp) ?? context.fetchedAt }];
  },
};

// metals.dev GET /v1/latest?api_key=…&currency=USD&unit=toz: {status: "success", unit: "toz", metals: {gold, …}, timestamps: {metal}}.
const metalsDevPayload = z.object({
  status: z.literal('success'),
  currency: z.literal('USD'),
  unit: z.literal('toz'),
  metals: z.object({ gold: z.number().positive() }),
  timestamps: z.object({ metal: z.iso.datetime({ offset: true }) }),
});

export const metalsdev: Connector = {
  baseUrl: 'https://api.metals.dev',
  defaultSymbols: [],
  requiresKey: true,
  request(context) {
    // metals.dev takes its key only in the query; the runner never logs URLs.
    return { url: `${baseOf(this, context)}/v1/latest?api_key=${encodeURIComponent(context.apiKey ?? '')}&currency=USD&unit=toz`, headers: {} };
  },
  parse(payload) {
    const parsed = metalsDevPayload.parse(payload);
    return [{ key: GOLD_KEY, value: parsed.metals.gold, denomination: 'USD', observedAt: new Date(parsed.timestamps.metal) }];
  },
};
