import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../db/schema.js';
import type { EvidenceVault } from '../domain/evidence/evidence-vault.js';
import { claimCase, releaseClaim } from '../domain/review/claims.js';
import { REVIEW_REASON_CODES, reviewCase } from '../domain/review/review-case.js';
import { reviewHistory } from '../domain/review/review-history.js';
import { reviewQueue } from '../domain/review/review-queue.js';
import { openStaffEvidence, staffCaseView, staffLivenessFrames } from '../domain/review/staff-case-view.js';
import { createFrameStrips } from '../domain/review/liveness-frames.js';
import { contentDisposition } from '../domain/evidence/evidence-download.js';
import { caseDetailSchema, caseHistoryEntrySchema, caseIdParams, caseStatusSchema, documentTypeSchema } from './case-schemas.js';
import { pageQueryShape } from './page-query.js';
import { requireStaff } from './staff-request.js';

export interface InternalCaseRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  storage: EvidenceVault;
  ffmpegPath: string;
}

const claimSchema = z.object({ staffId: z.uuid(), email: z.string(), expiresAt: z.string() });
const pageEnvelope = { page: z.number().int(), pageSize: z.number().int(), totalCount: z.number().int(), totalPages: z.number().int() };
const tenantIdFilter = z.uuid({ error: 'must be a tenant id (a UUID)' });

const reviewBodySchema = z
  .strictObject({
    decision: z.enum(['Approved', 'Rejected']),
    reasonCode: z.enum(REVIEW_REASON_CODES).optional(),
    reason: z.string().trim().max(1000, 'must be at most 1000 characters').default(''),
    corrections: z
      .strictObject({
        fields: z
          .record(z.string().min(1).max(100), z.string({ error: 'must be a string' }).max(1000, 'must be at most 1000 characters'))
          .refine((fields) => Object.keys(fields).length > 0, 'must name at least one field')
          .refine((fields) => Object.keys(fields).length <= 100, 'must name at most 100 fields'),
        notes: z.string().max(2000, 'must be at most 2000 characters').optional(),
      })
      .optional(),
  })
  // A reason from the list may stand alone; without one (or with `other`) the words are the reason.
  .refine((body) => body.reason.length > 0 || (body.reasonCode !== undefined && body.reasonCode !== 'other'), { path: ['reason'], message: 'must not be empty without a reasonCode other than "other"' });

export const internalCaseRoutes: FastifyPluginAsync<InternalCaseRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  const strips = createFrameStrips({ ffmpegPath: options.ffmpegPath });

  typed.get(
    '/review-queue',
    {
      schema: {
        hide: true,
        querystring: z.strictObject({
          ...pageQueryShape,
          tenantId: tenantIdFilter.optional(),
          documentType: documentTypeSchema.optional(),
          reason: z.string().trim().min(1).max(200, 'must be at most 200 characters').optional(),
        }),
        response: {
          200: z.object({
            items: z.array(
              z.object({
                id: z.uuid(),
                tenantId: z.uuid(),
                tenantName: z.string(),
                sandbox: z.boolean(),
                externalReference: z.string().nullable(),
                status: caseStatusSchema,
                documentType: documentTypeSchema,
                compositeRiskScore: z.number().nullable(),
                decisionReason: z.string().nullable(),
                fraudSignalTypes: z.array(z.string()),
                waitingSeconds: z.number().int(),
                claim: z.object({ email: z.string(), expiresAt: z.string() }).nullable(),
                createdAt: z.string(),
                completedAt: z.string().nullable(),
              }),
            ),
            ...pageEnvelope,
            oldestWaitingSeconds: z.number().int(),
            tenants: z.array(z.object({ id: z.uuid(), name: z.string() })),
          }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED' }),
        },
      },
    },
    async (request) => reviewQueue(db, request.query, clock()),
  );

  typed.get(
    '/cases/:caseId',
    {
      schema: {
        hide: true,
        params: caseIdParams,
        response: {
          200: z.object({
            case: caseDetailSchema,
            tenant: z.object({ id: z.uuid(), name: z.string() }), timeline: z.array(caseHistoryEntrySchema),
            claim: claimSchema.nullable(),
            mrzComparison: z.array(z.object({ field: z.string(), ocr: z.string().nullable(), mrz: z.string().nullable(), matches: z.boolean().nullable() })),
          }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND' }),
        },
      },
    },
    async (request) => staffCaseView(db, request.params.caseId, requireStaff(request), request.id, clock()),
  );

  typed.post(
    '/cases/:caseId/claim',
    {
      schema: {
        hide: true,
        params: caseIdParams,
        response: {
          200: claimSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED', 404: 'NOT_FOUND', 409: 'CASE_CLAIMED (claimedBy names the holder) or INVALID_CASE_STATE' }),
        },
      },
    },
    async (request) => db.transaction((tx) => claimCase(tx, { caseId: request.params.caseId, staff: requireStaff(request), correlationId: request.id }, clock())),
  );

  typed.delete(
    '/cases/:caseId/claim',
    {
      schema: {
        hide: true,
        params: caseIdParams,
        response: {
          204: z.null(),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: "FORBIDDEN: another reviewer's claim (ReviewLead only), or CSRF_REJECTED", 404: 'NOT_FOUND: unknown case, or not claimed' }),
        },
      },
    },
    async (request, reply) => {
      await db.transaction((tx) => releaseClaim(tx, { caseId: request.params.caseId, staff: requireStaff(request), correlationId: request.id }, clock()));
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/cases/:caseId/review',
    {
      schema: {
        hide: true,
        params: caseIdParams,
        body: reviewBodySchema,
        response: {
          200: z.object({ caseId: z.uuid(), status: caseStatusSchema }),
          ...problemResponses({
            400: 'VALIDATION_ERROR (including a correction of a field the OCR did not extract)',
            401: 'UNAUTHENTICATED',
            403: 'CSRF_REJECTED',
            404: 'NOT_FOUND: unknown case, or corrections without an OCR result',
            409: "INVALID_CASE_STATE: not in PendingManualReview; CASE_CLAIMED: another reviewer's claim",
          }),
        },
      },
    },
    async (request) => {
      const reviewer = requireStaff(request);
      return db.transaction((tx) => reviewCase(tx, { caseId: request.params.caseId, reviewerId: reviewer.staffId, ...request.body, correlationId: request.id }, clock(), options.storage.keyRing.documentNumberDigest));
    },
  );

  typed.get(
    '/review-history',
    {
      schema: {
        hide: true,
        querystring: z.strictObject({ ...pageQueryShape, scope: z.enum(['mine', 'everyone']).default('mine'), caseId: z.uuid({ error: 'must be a case id (a UUID)' }).optional() }),
        response: {
          200: z.object({
            items: z.array(
              z.object({
                id: z.uuid(),
                caseId: z.uuid(),
                tenantName: z.string(),
                documentType: z.string(),
                reviewer: z.object({ id: z.uuid(), email: z.string() }),
                decision: z.enum(['Approved', 'Rejected']),
                reasonCode: z.string().nullable(),
                reason: z.string(),
                decidedAt: z.string(),
              }),
            ),
            ...pageEnvelope,
          }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: "FORBIDDEN: everyone's history needs ReviewLead" }),
        },
      },
    },
    async (request) => reviewHistory(db, requireStaff(request), request.query),
  );

  typed.get(
    '/evidence/:evidenceId/file',
    {
      schema: {
        hide: true,
        params: z.object({ evidenceId: z.uuid({ error: 'must be an evidence id (a UUID)' }) }),
        response: { 200: z.any(), ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND' }) },
      },
    },
    async (request, reply) => {
      const file = await openStaffEvidence(db, options.storage, request.params.evidenceId, requireStaff(request), request.id, clock());
      return reply
        .header('Content-Type', file.contentType)
        .header('Content-Length', String(file.sizeBytes))
        .header('Content-Disposition', contentDisposition(file.fileName))
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'private, no-store')
        .send(file.body);
    },
  );

  typed.get(
    '/evidence/:evidenceId/frames',
    {
      schema: {
        hide: true,
        params: z.object({ evidenceId: z.uuid({ error: 'must be an evidence id (a UUID)' }) }),
        response: { 200: z.any(), ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND: unknown, or not a liveness video', 422: 'FRAMES_UNAVAILABLE' }) },
      },
    },
    async (request, reply) => {
      const strip = await staffLivenessFrames(db, options.storage, strips, request.params.evidenceId, requireStaff(request), request.id, clock());
      return reply.header('Content-Type', 'image/jpeg').header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'private, no-store').send(strip);
    },
  );
};
