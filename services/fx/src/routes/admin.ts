import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { parseCurrencyList } from '../domain/rates/currencies.js';
import { ingestRates } from '../domain/rates/ingest-rates.js';
import type { FxExecutor } from '../db/executor.js';
import { RATE_SOURCES, type RateChangeListener } from '../domain/rates/rate-types.js';
import { removeOverride, setOverride } from '../domain/rates/overrides.js';
import type { LiveRecorder } from '../domain/live/live-recorder.js';
import type { ResponseCache } from '../http/response-cache.js';
import { requireAdminToken } from '../plugins/admin-auth.js';
import { positiveAmount } from './amounts.js';
import { problemResponses, ValidationError } from '@svc/problem-json';
import { ADMIN_UNAUTHENTICATED } from './openapi.js';

export interface AdminRouteOptions {
  db: FxExecutor;
  cache: ResponseCache;
  clock: () => Date;
  adminToken: string;
  /** Told of every watched rate a write moves, in its transaction (rate alerts). */
  onRateChanged: RateChangeListener;
  /** Told of every write in its transaction, for live streams. */
  live: LiveRecorder;
  /** After a committed rate change: deliver the alerts it fired without waiting for the next poll. */
  afterRatesChanged: () => void;
}

const security = [{ adminToken: [] }];

export const adminRoutes: FastifyPluginAsync<AdminRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  // onRequest: a caller without the token learns nothing about the body schema (401 before validation).
  app.addHook('onRequest', requireAdminToken(options.adminToken));

  typed.post(
    '/api/v1/admin/rates',
    {
      schema: {
        operationId: 'ingestRates',
        summary: 'Ingest rates from one source',
        description: 'buy ≤ sell, positive; a move over 50% against the latest rate is refused unless force is true.',
        tags: ['admin'],
        security,
        body: z.strictObject({
          source: z.enum(RATE_SOURCES),
          timestampUtc: z.iso.datetime().optional(),
          force: z.boolean().optional(),
          rates: z.array(z.strictObject({ currency: z.string().min(3).max(3), buy: positiveAmount, sell: positiveAmount, mid: positiveAmount.optional() })).min(1).max(200),
        }),
        response: {
          201: z.object({ accepted: z.array(z.object({ currency: z.string(), buy: z.string(), sell: z.string(), mid: z.string(), previousMid: z.string().nullable() })) }),
          ...problemResponses({ 400: 'Invalid body, an unsupported currency, or a move over 50% without force', 401: ADMIN_UNAUTHENTICATED }),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const now = options.clock();
      const accepted = await options.db.transaction(async (tx) => {
        const rates = await ingestRates(tx, { source: body.source, observedAt: body.timestampUtc ? new Date(body.timestampUtc) : undefined, force: body.force, rates: body.rates }, now, options.onRateChanged);
        await options.live.ratesChanged(tx, { kind: body.source, currencies: rates.map((rate) => rate.currency) }, now);
        return rates;
      });
      await options.cache.invalidate();
      options.afterRatesChanged();
      return reply.code(201).send({ accepted });
    },
  );

  typed.post(
    '/api/v1/admin/overrides',
    {
      schema: {
        operationId: 'setRateOverride',
        summary: 'Set the manual override of a currency (replaces an active one)',
        tags: ['admin'],
        security,
        body: z
          .strictObject({
            currency: z.string().min(3).max(3),
            buy: positiveAmount,
            sell: positiveAmount,
            reason: z.string().trim().min(1).max(500),
            expiresUtc: z.iso.datetime().optional().describe('when the override ends by itself (live streams and alerts are told within seconds); absent: until removed'),
          })
          .refine((value) => value.buy <= value.sell, { path: ['buy'], message: 'must not exceed sell' }),
        response: {
          201: z.object({ currency: z.string(), buy: z.string(), sell: z.string(), mid: z.string(), expiresUtc: z.string().nullable() }),
          ...problemResponses({ 400: 'Invalid body, an unsupported currency, or buy above sell', 401: ADMIN_UNAUTHENTICATED }),
        },
      },
    },
    async (request, reply) => {
      const [currency = ''] = parseCurrencyList(request.body.currency, 'body.currency');
      const now = options.clock();
      const expiresAt = request.body.expiresUtc === undefined ? undefined : new Date(request.body.expiresUtc);
      if (expiresAt && expiresAt.getTime() <= now.getTime()) throw new ValidationError('expiresUtc must be in the future.', [{ path: 'body.expiresUtc', message: 'must be in the future' }]);
      const override = await options.db.transaction(async (tx) => {
        const written = await setOverride(tx, { ...request.body, currency, setBy: 'admin-token', expiresAt }, now, options.onRateChanged);
        await options.live.ratesChanged(tx, { kind: 'OVERRIDE', currencies: [currency] }, now);
        return written;
      });
      await options.cache.invalidate();
      options.afterRatesChanged();
      return reply.code(201).send({ ...override, expiresUtc: expiresAt?.toISOString() ?? null });
    },
  );

  typed.delete(
    '/api/v1/admin/overrides/:currency',
    {
      schema: {
        operationId: 'removeRateOverride',
        summary: 'Remove the active manual override of a currency',
        tags: ['admin'],
        security,
        params: z.object({ currency: z.string() }),
        response: { 204: z.null(), ...problemResponses({ 400: 'An unsupported currency', 401: ADMIN_UNAUTHENTICATED, 404: 'No active override for the currency' }) },
      },
    },
    async (request, reply) => {
      const [currency = ''] = parseCurrencyList(request.params.currency, 'params.currency');
      const now = options.clock();
      await options.db.transaction(async (tx) => {
        await removeOverride(tx, currency, now, options.onRateChanged);
        await options.live.ratesChanged(tx, { kind: 'OVERRIDE', currencies: [currency] }, now);
      });
      await options.cache.invalidate();
      options.afterRatesChanged();
      return reply.code(204).send(null);
    },
  );
};
