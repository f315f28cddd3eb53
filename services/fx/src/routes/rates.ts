import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ValidationError } from '@svc/problem-json';
import { z } from 'zod';
import { parseCurrencyList } from '../domain/rates/currencies.js';
import type { FxExecutor } from '../db/executor.js';
import { loadHistory, MAX_HISTORY_DAYS, type Redenomination } from '../domain/rates/history.js';
import { latestRateLists, loadLatestRates, usdCrossRates } from '../domain/rates/latest-rates.js';
import { serialisedResponse, taggedText, type ResponseCache } from '../http/response-cache.js';
import { addVary, sendCached } from '../http/send-cached.js';
import { HISTORY_INTERVALS, historyCsv, historyNdjson } from '../domain/rates/history-buckets.js';
import { disclaimerFor, negotiateLanguage, RATE_LANGUAGES } from '../i18n/languages.js';
import { publicReadErrors, publicReadSecurity } from './openapi.js';
import { RATE_SOURCES } from '../domain/rates/rate-types.js';

export interface RatesRouteOptions {
  db: FxExecutor;
  cache: ResponseCache;
  clock: () => Date;
  redenomination: Redenomination;
}

const rateEntrySchema = z
  .object({
    currency: z.string(),
    buy: z.number(),
    sell: z.number(),
    mid: z.number(),
    timestampUtc: z.string().describe('update time of the entry'),
    isManualOverride: z.boolean(),
    previousMid: z
      .number()
      .nullable()
      .describe("the previous day's close: mid of the newest observation on an earlier UTC day (rescaled across the redenomination); null without one and for a manual override"),
  })
  .meta({ id: 'RateEntry' });

const latestRatesSchema = z
  .object({
    disclaimer: z.string(),
    timestampUtc: z.string().describe('when this response was computed (rates change → recomputed)'),
    cbsRates: z.array(rateEntrySchema),
    marketRates: z.array(rateEntrySchema),
    effectiveRates: z.array(rateEntrySchema),
  })
  .meta({ id: 'LatestRates' });

const usdBasedSchema = z
  .object({
    disclaimer: z.string(),
    base: z.literal('USD'),
    date: z.string().nullable().describe('date (YYYY-MM-DD) of the newest underlying update; null with no data'),
    timestampUtc: z.string(),
    rates: z.array(z.object({ currency: z.string(), buy: z.number(), sell: z.number(), mid: z.number(), timestampUtc: z.string() })),
  })
  .meta({ id: 'UsdBasedRates' });

const historySchema = z
  .object({
    currency: z.string(),
    source: z.enum(RATE_SOURCES),
    startDate: z.string(),
    endDate: z.string(),
    denomination: z.enum(['current', 'original']),
    interval: z.enum(HISTORY_INTERVALS),
    points: z.array(
      z.object({
        date: z.string().describe('the day, or the first day of the week or month'),
        buy: z.number(),
        sell: z.number(),
        mid: z.number(),
        open: z.number(),
        high: z.number(),
        low: z.number(),
        close: z.number(),
        denomination: z.enum(['SYP', 'SYP_OLD']),
        rescaled: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'RateHistory' });

/** The history's representation from Accept: CSV or NDJSON when asked for by name (with q > 0), else JSON. */
function historyFormat(accept: string | undefined): 'json' | 'csv' | 'ndjson' {
  const ranked = (accept ?? '')
    .split(',')
    .map((part, order) => {
      const [type = '', ...parameters] = part.trim().toLowerCase().split(';');
      const q = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
      return { type: type.trim(), quality: q === undefined ? 1 : Number(q.slice(2)) || 0, order };
    })
    .filter((entry) => entry.quality > 0)
    .sort((left, right) => right.quality - left.quality || left.order - right.order);
  for (const { type } of ranked) {
    if (type === 'text/csv') return 'csv';
    if (type === 'application/x-ndjson') return 'ndjson';
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return 'json';
  }
  return 'json';
}

const langQuery = z.enum(RATE_LANGUAGES).optional().describe('ar (default), en, de, tr, ku (Sorani), kmr (Kurmanji); else Accept-Language');
const notModified = z.null().describe('Not Modified: the If-None-Match ETag is current');

export const ratesRoutes: FastifyPluginAsync<RatesRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // lang is checked by negotiateLanguage, not the enum, so the 400 names the supported set.
  const langParameter = z.string().optional();

  typed.get(
    '/api/v1/rates/latest',
    {
      schema: {
        operationId: 'getLatestRates',
        summary: 'Latest official (CBS), market and effective SYP rates',
        tags: ['rates'],
        security: publicReadSecurity,
        querystring: z.strictObject({ currencies: z.string().optional().describe('comma-separated ISO 4217 codes'), lang: langParameter.describe(langQuery.description ?? '') }),
        response: { 200: latestRatesSchema, 304: notModified, ...publicReadErrors('An unsupported currency code, or an unknown query parameter') },
      },
    },
    async (request, reply) => {
      const language = negotiateLanguage(request.query.lang, request.headers['accept-language'], RATE_LANGUAGES);
      const currencies = request.query.currencies === undefined ? null : parseCurrencyList(request.query.currencies, 'query.currencies').sort();
      const entry = await options.cache.getOrCompute(`latest:${language}:${currencies?.join(',') ?? '*'}`, async (): Promise<z.infer<typeof latestRatesSchema>> => ({
        disclaimer: disclaimerFor(language),
        timestampUtc: options.clock().toISOString(),
        ...(await latestRateLists(options.db, options.clock(), options.redenomination, currencies)),
      }));
      return sendCached(request, reply, entry);
    },
  );

  typed.get(
    '/api/v1/rates/usd-based',
    {
      schema: {
        operationId: 'getUsdBasedRates',
        summary: 'USD cross rates derived from the effective SYP rates',
        description: '1 USD = mid units of the currency; buy/sell crossed so the spread widens. SYP itself included.',
        tags: ['rates'],
        security: publicReadSecurity,
        querystring: z.strictObject({ lang: langParameter.describe(langQuery.description ?? '') }),
        response: { 200: usdBasedSchema, 304: notModified, ...publicReadErrors('An unknown query parameter') },
      },
    },
    async (request, reply) => {
      const language = negotiateLanguage(request.query.lang, request.headers['accept-language'], RATE_LANGUAGES);
      const entry = await options.cache.getOrCompute(`usd-based:${language}`, async (): Promise<z.infer<typeof usdBasedSchema>> => {
        const latest = await loadLatestRates(options.db, options.clock());
        const cross = usdCrossRates(latest.effective);
        return {
          disclaimer: disclaimerFor(language),
          base: 'USD' as const,
          date: cross.newest ? cross.newest.toISOString().slice(0, 10) : null,
          timestampUtc: options.clock().toISOString(),
          rates: cross.rates,
        };
      });
      return sendCached(request, reply, entry);
    },
  );

  typed.get(
    '/api/v1/rates/history',
    {
      schema: {
        operationId: 'getRateHistory',
        summary: 'History (close and OHLC of mid) for one currency and source, by day, ISO week or month',
        description: [
          `startDate/endDate win over days (default 30, max ${MAX_HISTORY_DAYS}). Days before the redenomination are rescaled to the current pound unless denomination=original.`,
          'interval=week|month: one point per UTC bucket, dated on its first day (ISO weeks start on Monday, months on the 1st; buckets at the ends of the range hold only its days), open/close the first and last daily close, high/low the extremes;',
          'with denomination=original a bucket spanning the redenomination is split there (the new-pound part dated on its first day with data).',
          'Accept: text/csv gives RFC 4180 CSV (header row naming the point fields, CRLF); Accept: application/x-ndjson one JSON point per line.',
        ].join(' '),
        tags: ['rates'],
        security: publicReadSecurity,
        querystring: z.strictObject({
          currency: z.string().describe('ISO 4217 code'),
          source: z.enum(RATE_SOURCES).default('MARKET'),
          days: z.coerce
            .number({ error: 'must be a whole number of days' })
            .int('must be a whole number of days')
            .min(1, 'must be at least 1')
            .max(MAX_HISTORY_DAYS, `must be at most ${MAX_HISTORY_DAYS}`)
            .default(30),
          startDate: z.iso.date().optional(),
          endDate: z.iso.date().optional(),
          denomination: z.enum(['current', 'original']).default('current'),
          interval: z.enum(HISTORY_INTERVALS).default('day'),
        }),
        response: {
          200: {
            description: 'The history as JSON, CSV or NDJSON (Accept)',
            content: {
              'application/json': { schema: historySchema },
              'text/csv': { schema: z.any().meta({ type: 'string', description: 'header row date,buy,sell,mid,open,high,low,close,denomination,rescaled' }) },
              'application/x-ndjson': { schema: z.any().meta({ type: 'string', description: 'one point object per line' }) },
            },
          },
          304: notModified,
          ...publicReadErrors('Not exactly one supported currency, an invalid window, or an unknown query parameter'),
        },
      },
    },
    async (request, reply) => {
      const codes = parseCurrencyList(request.query.currency, 'query.currency');
      const [currency] = codes;
      if (codes.length !== 1 || currency === undefined) {
        throw new ValidationError('Give exactly one currency.', [{ path: 'query.currency', message: 'must be exactly one currency code' }]);
      }
      const history = await loadHistory(options.db, { ...request.query, currency }, options.clock(), options.redenomination);
      // Not kept in the response cache (any window may be asked for), but tagged like the other public reads.
      reply.header('vary', addVary(reply.getHeader('vary'), 'Accept'));
      const format = historyFormat(request.headers.accept);
      if (format === 'csv') return sendCached(request, reply, taggedText(historyCsv(history.points)), 'text/csv; charset=utf-8');
      if (format === 'ndjson') return sendCached(request, reply, taggedText(historyNdjson(history.points)), 'application/x-ndjson; charset=utf-8');
      return sendCached(request, reply, serialisedResponse(history));
    },
  );
};
