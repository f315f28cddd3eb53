import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../db/schema.js';
import { reviewCase, reviewQueue } from '../domain/cases/review-case.js';
import { authenticateStaffSession, staffLogin, type StaffPrincipal } from '../domain/staff.js';
import { emailSchema } from '../domain/tenants.js';
import { bearerCredential } from '../plugins/authentication.js';
import { caseIdParams, caseStatusSchema, documentTypeSchema, pageQueryShape } from './case-schemas.js';

export const INTERNAL_BASE_PATH = '/api/internal/v1';

export interface InternalReviewRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    staff: StaffPrincipal | null;
  }
}

/**
 * The operators' manual review, apart from the partner API: its own base path, its own staff
 * sessions (svc_ss_), left out of the partner OpenAPI document. A partner token or portal
 * session is simply not a staff session, so it gets a 401 here.
 */
export const internalReviewRoutes: FastifyPluginAsync<InternalReviewRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  app.decorateRequest('staff', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === `${INTERNAL_BASE_PATH}/login`) return;
    request.staff = await authenticateStaffSession(db, bearerCredential(request), clock());
  });

  typed.post(
    '/login',
    {
      schema: {
        hide: true,
        body: z.strictObject({ email: emailSchema, password: z.string().min(1).max(256) }),
        response: {
          200: z.object({ sessionToken: z.string(), expiresAt: z.string() }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 429: 'ACCOUNT_LOCKED or RATE_LIMITED' }),
        },
      },
    },
    async (request, reply) => {
      const session = await staffLogin(db, { ...request.body, correlationId: request.id }, clock());
      reply.header('Cache-Control', 'no-store');
      return { sessionToken: session.sessionToken, expiresAt: session.expiresAt.toISOString() };
    },
  );

  typed.get(
    '/review-queue',
    {
      schema: {
        hide: true,
        querystring: z.strictObject(pageQueryShape),
        response: {
          200: z.object({
            items: z.array(
              z.object({
                id: z.uuid(),
                tenantId: z.uuid(),
                sandbox: z.boolean(),
                externalReference: z.string().nullable(),
                status: caseStatusSchema,
                documentType: documentTypeSchema,
                compositeRiskScore: z.number().nullable(),
                decisionReason: z.string().nullable(),
                createdAt: z.string(),
                completedAt: z.string().nullable(),
              }),
            ),
            page: z.number().int(),
            pageSize: z.number().int(),
            totalCount: z.number().int(),
            totalPages: z.number().int(),
          }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED' }),
        },
      },
    },
    async (request) => reviewQueue(db, request.query),
  );

  typed.post(
    '/cases/:caseId/review',
    {
      schema: {
        hide: true,
        params: caseIdParams,
        body: z.strictObject({ decision: z.enum(['Approved', 'Rejected']), reason: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters') }),
        response: {
          200: z.object({ caseId: z.uuid(), status: caseStatusSchema }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND', 409: 'INVALID_CASE_STATE: not in PendingManualReview' }),
        },
      },
    },
    async (request) => {
      const reviewer = request.staff;
      if (!reviewer) throw new Error('staff hook did not run');
      return db.transaction((tx) =>
        reviewCase(tx, { caseId: request.params.caseId, reviewerId: reviewer.staffId, decision: request.body.decision, reason: request.body.reason, correlationId: request.id }, clock()),
      );
    },
  );
};
