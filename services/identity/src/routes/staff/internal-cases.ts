import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import type { EvidenceVault } from '../../domain/evidence/evidence-vault.js';
import { claimCase, releaseClaim } from '../../domain/review/claims.js';
import { reviewCase } from '../../domain/review/review-case.js';
import { reviewHistory } from '../../domain/review/review-history.js';
import { reviewQueue } from '../../domain/review/review-queue.js';
import { openStaffEvidence, staffCaseView, staffLivenessFrames } from '../../domain/review/staff-case-view.js';
import { createFrameStrips } from '../../domain/review/liveness-frames.js';
import { caseIdParams, documentTypeSchema } from '../case-schemas.js';
import { caseClaimSchema, reviewBodySchema, reviewHistoryPageSchema, reviewHistoryScopeSchema, reviewOutcomeSchema, reviewQueuePageSchema, staffCaseViewSchema } from './internal-case-schemas.js';
import { EVIDENCE_FILE_DESCRIPTION, sendEvidenceFile } from '../evidence-file-reply.js';
import { RATE_LIMITED, staffSecurity } from '../openapi.js';
import { pageQueryShape } from '../page-query.js';
import { requireStaff } from './staff-request.js';

export interface InternalCaseRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  storage: EvidenceVault;
  ffmpegPath: string;
}

const tenantIdFilter = z.uuid({ error: 'must be a tenant id (a UUID)' });
const evidenceIdParams = z.object({ evidenceId: z.uuid({ error: 'must be an evidence id (a UUID)' }) });
const tags = ['review'];
const security = staffSecurity;

export const internalCaseRoutes: FastifyPluginAsync<InternalCaseRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  const strips = createFrameStrips({ ffmpegPath: options.ffmpegPath });

  typed.get(
    '/review-queue',
    {
      schema: {
        operationId: 'listReviewQueue',
        summary: 'Cases waiting for manual review',
        description: "Every tenant's cases in PendingManualReview, longest waiting first, with who holds a claim; filtered by tenant, document type, or words of the automated decision's reason or a fraud signal type.",
        tags,
        security,
        querystring: z.strictObject({
          ...pageQueryShape,
          tenantId: tenantIdFilter.optional(),
          documentType: documentTypeSchema.optional(),
          reason: z.string().trim().min(1).max(200, 'must be at most 200 characters').optional(),
        }),
        response: {
          200: reviewQueuePageSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => reviewQueue(db, request.query, clock()),
  );

  typed.get(
    '/cases/:caseId',
    {
      schema: {
        operationId: 'getCaseForReview',
        summary: 'A case with everything its review needs',
        description: 'The case (any tenant), its tenant, its timeline, the current claim and the OCR fields beside the MRZ. Every view is audited with the reviewer.',
        tags,
        security,
        params: caseIdParams,
        response: {
          200: staffCaseViewSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND', 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => staffCaseView(db, request.params.caseId, requireStaff(request), request.id, clock()),
  );

  typed.post(
    '/cases/:caseId/claim',
    {
      schema: {
        operationId: 'claimCaseForReview',
        summary: 'Claim a case, or renew your claim',
        tags,
        security,
        params: caseIdParams,
        response: {
          200: caseClaimSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: 'CSRF_REJECTED', 404: 'NOT_FOUND', 409: 'CASE_CLAIMED (claimedBy names the holder) or INVALID_CASE_STATE', 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => db.transaction((tx) => claimCase(tx, { caseId: request.params.caseId, staff: requireStaff(request), correlationId: request.id }, clock())),
  );

  typed.delete(
    '/cases/:caseId/claim',
    {
      schema: {
        operationId: 'releaseCaseClaim',
        summary: 'Release a claim',
        description: "Your own claim; a ReviewLead may release another reviewer's.",
        tags,
        security,
        params: caseIdParams,
        response: {
          204: z.null().describe('Released'),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: "FORBIDDEN: another reviewer's claim (ReviewLead only), or CSRF_REJECTED", 404: 'NOT_FOUND: unknown case, or not claimed', 429: RATE_LIMITED }),
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
        operationId: 'decideCaseReview',
        summary: 'Approve or reject a case in manual review',
        description: 'The decision with a reason code or the words of a reason, and optional corrections of OCR fields. Not while another reviewer holds a claim.',
        tags,
        security,
        params: caseIdParams,
        body: reviewBodySchema,
        response: {
          200: reviewOutcomeSchema,
          ...problemResponses({
            400: 'VALIDATION_ERROR (including a correction of a field the OCR did not extract)',
            401: 'UNAUTHENTICATED',
            403: 'CSRF_REJECTED',
            404: 'NOT_FOUND: unknown case, or corrections without an OCR result',
            409: "INVALID_CASE_STATE: not in PendingManualReview; CASE_CLAIMED: another reviewer's claim",
            429: RATE_LIMITED,
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
        operationId: 'listReviewHistory',
        summary: 'Review decisions, newest first',
        description: "Your own decisions (scope=mine), or everyone's (scope=everyone, ReviewLead only); optionally those on one case.",
        tags,
        security,
        querystring: z.strictObject({ ...pageQueryShape, scope: reviewHistoryScopeSchema.default('mine'), caseId: z.uuid({ error: 'must be a case id (a UUID)' }).optional() }),
        response: {
          200: reviewHistoryPageSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 403: "FORBIDDEN: everyone's history needs ReviewLead", 429: RATE_LIMITED }),
        },
      },
    },
    async (request) => reviewHistory(db, requireStaff(request), request.query),
  );

  typed.get(
    '/evidence/:evidenceId/file',
    {
      schema: {
        operationId: 'downloadEvidenceForReview',
        summary: 'Download an evidence file for review',
        description: "The original bytes of any case's evidence, decrypted; every access is audited with the reviewer.",
        tags,
        security,
        params: evidenceIdParams,
        response: {
          200: z.any().meta({ description: EVIDENCE_FILE_DESCRIPTION }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND', 429: RATE_LIMITED }),
        },
      },
    },
    async (request, reply) => {
      const file = await openStaffEvidence(db, options.storage, request.params.evidenceId, requireStaff(request), request.id, clock());
      return sendEvidenceFile(reply, file);
    },
  );

  typed.get(
    '/evidence/:evidenceId/frames',
    {
      schema: {
        operationId: 'getLivenessFrames',
        summary: 'Stills of a liveness video',
        description: 'A JPEG strip of frames taken from the video, so a reviewer sees the motion without playing it.',
        tags,
        security,
        params: evidenceIdParams,
        response: { 200: z.any().meta({ description: 'A JPEG image' }), ...problemResponses({ 400: 'VALIDATION_ERROR', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND: unknown, or not a liveness video', 422: 'FRAMES_UNAVAILABLE', 429: RATE_LIMITED }) },
      },
    },
    async (request, reply) => {
      const strip = await staffLivenessFrames(db, options.storage, strips, request.params.evidenceId, requireStaff(request), request.id, clock());
      return reply.header('Content-Type', 'image/jpeg').header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'private, no-store').send(strip);
    },
  );
};
