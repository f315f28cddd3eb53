import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { problemResponses } from '@svc/problem-json';
import { z } from 'zod';
import type { FxExecutor } from '../db/executor.js';
import { convertAmount } from '../domain/rates/convert.js';
import { isSupportedCurrency } from '../domain/rates/currencies.js';
import type { Redenomination } from '../domain/rates/history.js';
import { listServedCurrencies } from '../domain/rates/served-currencies.js';
import { MAX_AMOUNT } from '../domain/rates/decimal.js';
import { serialisedResponse, type ResponseCache } from '../http/response-cache.js';
import { negotiateLanguage, RATE_LANGUAGES } from '../i18n/languages.js';
import { publicReadErrors, publicReadSecurity } from './openapi.js';
import { sendCached } from '../http/send-cached.js';
import { RATE_SOURCES } from '../domain/rates/rate-types.js';

export interface ReferenceRouteOptions {
  db: FxExecutor;
  cache: ResponseCache;
  clock: () => Date;
  redenomination: Redenomination;
}

const notModified = z.null().describe('Not Modified: the If-None-Match ETag is current');

/** A currency code of the conversion: a served one, or SYP itself. */
const conversionCode = (field: string) =>
  z
    .string()
    .transform((value) => value.trim().toUpperCase())
    .refine((code) => code === 'SYP' || isSupportedCurrency(code), { message: `unsupported currency (see /api/v1/currencies)`, path: [] })
    .describe(`ISO 4217 code: SYP or one of /api/v1/currencies (${field})`);

/** A plain decimal, so "1e3", "0x10", "Infinity" and " " never slip through number coercion. */
const amountParameter = z
  .string({ error: 'is required' })
  .regex(/^\d{1,13}(\.\d{1,8})?$/, 'must be a positive decimal number such as 250 or 99.5')
  .transform(Number)
  .refine((value) => value > 0, 'must be greater than 0')
  .refine((value) => value <= MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
  .describe(`the amount of \`from\`, greater than 0 and at most ${MAX_AMOUNT}`);

const conversionSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    amount: z.number(),
    source: z.enum(RATE_SOURCES),
    rate: z.number().describe('units of `to` per one `from` (mid rates, crossed through SYP), 10 significant digits'),
    rateTimestampUtc: z.string().describe('time of the older rate used'),
    result: z.number().describe('amount × rate, to 8 decimals'),
  })
  .meta({ id: 'Conversion' });

const currenciesSchema = z
  .object({
    currencies: z.array(
      z.object({
        code: z.string(),
        name: z.string().describe('in the requested language (Sorani: Arabic names)'),
        sources: z.array(z.enum(RATE_SOURCES)).describe('the sources that quote it'),
        firstDate: z.string().nullable().describe('first UTC day with a rate; null without history'),
        lastDate: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'Currencies' });

export const referenceRoutes: FastifyPluginAsync<ReferenceRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/api/v1/convert',
    {
      schema: {
        operationId: 'convertAmount',
        summary: 'Convert an amount between two currencies at mid rates',
        description:
          'MARKET (default) uses the effective rate (a manual override wins); CBS the official one. With date, that UTC day\'s close (the newest rate on or before it). Rates from before the redenomination are rescaled, so SYP is always the current pound.',
        tags: ['rates'],
        security: publicReadSecurity,
        querystring: z.strictObject({
          from: conversionCode('from'),
          to: conversionCode('to'),
          amount: amountParameter,
          source: z.enum(RATE_SOURCES).default('MARKET'),
          date: z.iso.date().optional().describe('YYYY-MM-DD, today or earlier'),
        }),
        response: {
          200: conversionSchema,
          304: notModified,
          ...publicReadErrors('An unsupported code, a missing, zero, negative or too large amount, a future date, or an unknown query parameter'),
          ...problemResponses({ 404: 'No rate for one of the currencies (on or before the date)' }),
        },
      },
    },
    async (request, reply) => {
      const conversion = await convertAmount(options.db, request.query, options.clock(), options.redenomination);
      return sendCached(request, reply, serialisedResponse(conversion));
    },
  );

  typed.get(
    '/api/v1/currencies',
    {
      schema: {
        operationId: 'listCurrencies',
        summary: 'The served currencies with their names, sources and span of history',
        tags: ['rates'],
        security: publicReadSecurity,
        querystring: z.strictObject({ lang: z.string().optional().describe('ar (default), en, de, tr, ku (Sorani), kmr (Kurmanji); else Accept-Language') }),
        response: { 200: currenciesSchema, 304: notModified, ...publicReadErrors('An unknown query parameter or language') },
      },
    },
    async (request, reply) => {
      const language = negotiateLanguage(request.query.lang, request.headers['accept-language'], RATE_LANGUAGES);
      const entry = await options.cache.getOrCompute(`currencies:${language}`, async (): Promise<z.infer<typeof currenciesSchema>> => ({ currencies: await listServedCurrencies(options.db, language) }));
      return sendCached(request, reply, entry);
    },
  );
};
