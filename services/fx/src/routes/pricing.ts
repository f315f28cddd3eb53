import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { LimitsConfiguration } from '../domain/limits/plans.js';
import { publicReadErrors, publicReadSecurity } from './openapi.js';

const pricingSchema = z
  .object({
    anonymous: z.object({ perMinute: z.number().int(), perHour: z.number().int() }),
    plans: z.array(
      z.object({
        name: z.string(),
        monthlyQuota: z.number().int().nullable().describe('null = unlimited'),
        perMinute: z.number().int(),
        webhookAllowance: z.number().int(),
        maxStreams: z.number().int().describe('live streams (/rates/stream) open at once'),
      }),
    ),
  })
  .meta({ id: 'Pricing' });

/** Serves the same limits object the limiter enforces. */
export const pricingRoutes: FastifyPluginAsync<{ limits: LimitsConfiguration }> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/v1/pricing',
    {
      schema: { operationId: 'getPricing', summary: 'Anonymous limits and plans', tags: ['pricing'], security: publicReadSecurity, querystring: z.strictObject({}), response: { 200: pricingSchema, ...publicReadErrors('An unknown query parameter') } },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', `public, max-age=300`);
      return options.limits;
    },
  );
};
