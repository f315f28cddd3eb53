import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GOLD_KARATS, GOLD_UNITS, ingestCryptoPrices, ingestGoldPrices } from '../domain/prices/ingest-prices.js';
import { loadLatestCrypto, loadLatestGold } from '../domain/prices/latest-prices.js';
import type { FxExecutor } from '../db/executor.js';
import type { LiveRecorder } from '../domain/live/live-recorder.js';
import type { ResponseCache } from '../http/response-cache.js';
import { disclaimerFor, negotiateLanguage, PRICE_LANGUAGES } from '../i18n/languages.js';
import { requireAdminToken } from '../plugins/admin-auth.js';
import { sendCached } from '../http/send-cached.js';
import { positiveAmount } from './amounts.js';
import { problemResponses } from '@svc/problem-json';
import { ADMIN_UNAUTHENTICATED, publicReadErrors, publicReadSecurity } from './openapi.js';

export interface PriceRouteOptions {
  db: FxExecutor;
  cache: ResponseCache;
  clock: () => Date;
}

const change = {
  change24h: z.number().nullable().describe('USD change against the newest price at least 24 h older; null with less than a day of history'),
  changePercent24h: z.number().nullable(),
};

const cryptoResponseSchema = z
  .object({
    disclaimer: z.string(),
    timestampUtc: z.string(),
    prices: z.array(z.object({ symbol: z.string(), name: z.string(), priceUsd: z.number(), ...change, timestampUtc: z.string() })),
  })
  .meta({ id: 'CryptoPrices' });

const goldResponseSchema = z
  .object({
    disclaimer: z.string(),
    timestampUtc: z.string(),
    prices: z.array(
      z.object({
        unit: z.enum(GOLD_UNITS),
        karat: z.number().int(),
        name: z.string(),
        priceUsd: z.number(),
        ...change,
        pricePerGramSyp: z.number().nullable().describe('one gram of this karat in SYP at the effective USD rate; null without a USD rate'),
        timestampUtc: z.string(),
      }),
    ),
  })
  .meta({ id: 'GoldPrices' });

const langQuery = z.strictObject({ lang: z.string().optional().describe('ar (default), en, de; else Accept-Language') });
const notModified = z.null().describe('Not Modified: the If-None-Match ETag is current');

export const priceRoutes: FastifyPluginAsync<PriceRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/api/v1/crypto/latest',
    { schema: { operationId: 'getLatestCryptoPrices', summary: 'Latest cryptocurrency prices in USD with 24-hour change', tags: ['prices'], security: publicReadSecurity, querystring: langQuery, response: { 200: cryptoResponseSchema, 304: notModified, ...publicReadErrors('An unknown query parameter') } } },
    async (request, reply) => {
      const language = negotiateLanguage(request.query.lang, request.headers['accept-language'], PRICE_LANGUAGES);
      const entry = await options.cache.getOrCompute(`crypto:${language}`, async (): Promise<z.infer<typeof cryptoResponseSchema>> => ({
        disclaimer: disclaimerFor(language),
        timestampUtc: options.clock().toISOString(),
        prices: await loadLatestCrypto(options.db),
      }));
      return sendCached(request, reply, entry);
    },
  );

  typed.get(
    '/api/v1/gold/latest',
    {
      schema: {
        operationId: 'getLatestGoldPrices',
        summary: 'Latest gold prices in USD per ounce or gram and karat, with the SYP price of one gram',
        tags: ['prices'],
        security: publicReadSecurity,
        querystring: langQuery,
        response: { 200: goldResponseSchema, 304: notModified, ...publicReadErrors('An unknown query parameter') },
      },
    },
    async (request, reply) => {
      const language = negotiateLanguage(request.query.lang, request.headers['accept-language'], PRICE_LANGUAGES);
      const entry = await options.cache.getOrCompute(`gold:${language}`, async (): Promise<z.infer<typeof goldResponseSchema>> => ({
        disclaimer: disclaimerFor(language),
        timestampUtc: options.clock().toISOString(),
        prices: await loadLatestGold(options.db, language, options.clock()),
      }));
      return sendCached(request, reply, entry);
    },
  );
};

const security = [{ adminToken: [] }];

export const adminPriceRoutes: FastifyPluginAsync<PriceRouteOptions & { adminToken: string; live: LiveRecorder }> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // onRequest: a caller without the token learns nothing about the body schema (401 before validation).
  app.addHook('onRequest', requireAdminToken(options.adminToken));
  const acceptedChange = { change24h: z.string().nullable(), changePercent24h: z.string().nullable() };

  typed.post(
    '/api/v1/admin/crypto',
    {
      schema: {
        operationId: 'ingestCryptoPrices',
        summary: 'Ingest cryptocurrency prices (the 24-hour change is computed from stored history)',
        tags: ['admin'],
        security,
        body: z.strictObject({
          prices: z
            .array(
              z.strictObject({
                symbol: z.string().regex(/^[A-Za-z0-9]{2,10}$/, 'must be 2-10 letters or digits'),
                name: z.string().trim().min(1).max(100),
                priceUsd: positiveAmount,
                timestampUtc: z.iso.datetime().optional(),
              }),
            )
            .min(1)
            .max(200),
        }),
        response: {
          201: z.object({ accepted: z.array(z.object({ symbol: z.string(), priceUsd: z.string(), ...acceptedChange })) }),
          ...problemResponses({ 400: 'Invalid body, a symbol given twice, or a time in the future', 401: ADMIN_UNAUTHENTICATED }),
        },
      },
    },
    async (request, reply) => {
      const now = options.clock();
      const accepted = await options.db.transaction(async (tx) => {
        const prices = await ingestCryptoPrices(tx, request.body.prices, now);
        await options.live.cryptoChanged(tx, prices.map((price) => price.symbol), now);
        return prices;
      });
      await options.cache.invalidate();
      return reply.code(201).send({ accepted });
    },
  );

  typed.post(
    '/api/v1/admin/gold',
    {
      schema: {
        operationId: 'ingestGoldPrices',
        summary: 'Ingest gold prices (the 24-hour change is computed from stored history)',
        tags: ['admin'],
        security,
        body: z.strictObject({
          prices: z
            .array(
              z.strictObject({
                unit: z.enum(GOLD_UNITS),
                karat: z.union(GOLD_KARATS.map((karat) => z.literal(karat))),
                priceUsd: positiveAmount,
                timestampUtc: z.iso.datetime().optional(),
              }),
            )
            .min(1)
            .max(50),
        }),
        response: {
          201: z.object({ accepted: z.array(z.object({ unit: z.enum(GOLD_UNITS), karat: z.number(), priceUsd: z.string(), ...acceptedChange })) }),
          ...problemResponses({ 400: 'Invalid body, a unit and karat given twice, or a time in the future', 401: ADMIN_UNAUTHENTICATED }),
        },
      },
    },
    async (request, reply) => {
      const now = options.clock();
      const accepted = await options.db.transaction(async (tx) => {
        const prices = await ingestGoldPrices(tx, request.body.prices, now);
        await options.live.goldChanged(tx, prices, now);
        return prices;
      });
      await options.cache.invalidate();
      return reply.code(201).send({ accepted });
    },
  );
};
