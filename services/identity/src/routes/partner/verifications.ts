import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { cancelCase, correctOcrFields } from '../../domain/cases/case-commands.js';
import { createCase } from '../../domain/cases/create-case.js';
import { caseHistory } from '../../domain/cases/case-history.js';
import { createCaseCountCache } from '../../domain/cases/case-count-cache.js';
import { listCases } from '../../domain/cases/list-cases.js';
import { getCaseDetail } from '../../domain/cases/read-cases.js';
import { requirePartner } from '../../plugins/authentication.js';
import { applicantNameSchema, caseDetailSchema, caseHistoryEntrySchema, caseIdParams, caseListItemSchema, caseStatusSchema, documentTypeSchema, ocrResultSchema, returnUrlSchema } from '../case-schemas.js';
import { pageQueryShape } from '../page-query.js';
import { RATE_LIMITED, partnerSecurity } from '../openapi.js';

export interface VerificationRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  sessionTtlSeconds: number;
  /** Origin of the hosted capture page in captureUrl (CAPTURE_BASE_URL or where the service is reachable). */
  captureOrigin: string;
  /** http://localhost return URLs are accepted (development, WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowLocalhostReturnUrl: boolean;
  /** Keyed digest of a document number (reuse detection without keeping the number). */
  documentNumberDigest: (documentNumber: string) => string;
}

/** Counted exactly on every request up to this many matching cases; beyond it, once per COUNT_TTL_MS. */
const COUNT_EXACT_UP_TO = 10_000;
const COUNT_TTL_MS = 60_000;

const AUTH_ERRORS = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN (scope verifications missing, client revoked) or ACCOUNT_DISABLED', 429: RATE_LIMITED } as const;

export const verificationRoutes: FastifyPluginAsync<VerificationRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  const caseCounts = createCaseCountCache({ exactUpTo: COUNT_EXACT_UP_TO, ttlMs: COUNT_TTL_MS, maxEntries: 10_000, clock });

  typed.post(
    '/verifications',
    {
      schema: {
        operationId: 'createVerification',
        summary: 'Create a verification case',
        description:
          'Returns the one-time session token for the end user (shown once, stored only as a hash). Idempotency-Key: the same key and body while the session is unused returns the same caseId with a freshly issued session token (the earlier token stops working); a different body, or a key whose session was used or has expired, is 409 CASE_EXISTS naming the original case.',
        tags: ['verifications'],
        security: partnerSecurity,
        headers: z.looseObject({
          'idempotency-key': z
            .string()
            .min(1, 'must not be empty')
            .max(128, 'must be at most 128 characters')
            .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII')
            .optional()
            .meta({ description: 'Up to 128 characters; one key per user action, reused on retries' }),
        }),
        body: z.strictObject({
          documentType: documentTypeSchema,
          externalReference: z.string().max(200, 'must be at most 200 characters').optional().meta({ description: "The partner's own identifier; never shown to the end user" }),
          returnUrl: returnUrlSchema(options.allowLocalhostReturnUrl).optional(),
          applicantName: applicantNameSchema.optional(),
        }),
        response: {
          201: z.object({
            caseId: z.uuid(),
            sessionToken: z.string().meta({ description: 'svc_st_…: hand it to the end user; it is exchanged once at POST /api/capture/v1/session' }),
            captureUrl: z.string().meta({
              description:
                "The hosted capture page for this session: <origin>/capture?case=<caseId>#<sessionToken>. Redirect the end user there (or send it to their phone), or open it inside your own page with @svc/capture-embed (your origin listed in /capture-settings). The token sits in the fragment, so it never reaches a server log, a proxy or a Referer; the case id in the query tells the server which tenant's framing rules apply. A replay's link carries the replay's new token.",
            }),
            status: z.literal('SessionIssued'),
            expiresAt: z.string(),
          }),
          ...problemResponses({ 400: 'VALIDATION_ERROR', 409: 'CASE_EXISTS: the Idempotency-Key was used; the original case id is in detail (and caseId)', ...AUTH_ERRORS }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      const created = await createCase(
        db,
        {
          tenantId,
          documentType: request.body.documentType,
          externalReference: request.body.externalReference ?? null,
          returnUrl: request.body.returnUrl ?? null,
          applicantName: request.body.applicantName ?? null,
          idempotencyKey: request.headers['idempotency-key'] ?? null,
        },
        actor,
        { sessionTtlSeconds: options.sessionTtlSeconds, now: clock() },
      );
      const captureUrl = `${options.captureOrigin}/capture?case=${created.caseId}#${created.sessionToken}`;
      return reply.code(201).send({ ...created, captureUrl, expiresAt: created.expiresAt.toISOString() });
    },
  );

  typed.get(
    '/verifications',
    {
      schema: {
        operationId: 'listVerifications',
        summary: "List the tenant's verification cases",
        description: [
          'Newest first (createdAt, then id). A page past the end is empty. `search` finds a case by its id (exact) or by the start of its external reference (case-insensitive).',
          'Two ways to page: `page` (skips rows, so deep pages get slower), or `cursor`: pass `nextCursor` of the previous answer, with the same `status` and `search`, to read the next page at the same speed however deep (not with `page`).',
          `\`totalCount\` is exact as of \`totalCountAsOf\`: up to ${COUNT_EXACT_UP_TO.toLocaleString('en')} matching cases it is counted on every request (\`totalCountAsOf\` is now); beyond that it is counted at most once every ${COUNT_TTL_MS / 1000} s per filter, so it may be up to a minute old.`,
        ].join('\n\n'),
        tags: ['verifications'],
        security: partnerSecurity,
        querystring: z
          .strictObject({
            status: caseStatusSchema.optional(),
            search: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
            page: pageQueryShape.page.unwrap().optional().meta({ description: '1-based, default 1; not with cursor' }),
            pageSize: pageQueryShape.pageSize,
            cursor: z.string().min(1, 'must not be empty').max(512, 'must be at most 512 characters').optional().meta({ description: 'nextCursor of the previous page, as it was' }),
          })
          .refine((query) => query.page === undefined || query.cursor === undefined, { path: ['page'], message: 'cannot be combined with cursor (the cursor knows its page)' }),
        response: {
          200: z.object({
            items: z.array(caseListItemSchema),
            page: z.number().int(),
            pageSize: z.number().int(),
            totalCount: z.number().int().meta({ description: 'Cases matching the filters, exact as of totalCountAsOf' }),
            totalPages: z.number().int(),
            totalCountAsOf: z.string().meta({ description: 'When totalCount was counted (ISO 8601, UTC): now up to 10,000 matching cases, else at most 60 s ago' }),
            nextCursor: z.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }),
          }),
          ...problemResponses({ 400: 'VALIDATION_ERROR: unknown status, page < 1, pageSize outside 1–100, page with cursor, a cursor not issued for these filters, unknown parameter', ...AUTH_ERRORS }),
        },
      },
    },
    async (request) => listCases(db, requirePartner(request).tenantId, request.query, caseCounts),
  );

  typed.get(
    '/verifications/:caseId',
    {
      schema: {
        operationId: 'getVerification',
        summary: 'Read a verification case',
        tags: ['verifications'],
        security: partnerSecurity,
        params: caseIdParams,
        response: { 200: caseDetailSchema, ...problemResponses({ 400: 'VALIDATION_ERROR: not a UUID', 404: "NOT_FOUND: unknown, or another tenant's case", ...AUTH_ERRORS }) },
      },
    },
    async (request) => getCaseDetail(db, requirePartner(request).tenantId, request.params.caseId),
  );

  typed.get(
    '/verifications/:caseId/history',
    {
      schema: {
        operationId: 'getVerificationHistory',
        summary: "A verification case's timeline",
        description:
          'Oldest first, from the audit trail: creation, every state change with who caused it and why (decision and cancel reasons), OCR corrections and reissued sessions. `actor` is `client:<clientId>`, `user:<portalUserId>`, `end-user:<sessionId>` or `system:<part>`.',
        tags: ['verifications'],
        security: partnerSecurity,
        params: caseIdParams,
        response: {
          200: z.object({ data: z.array(caseHistoryEntrySchema) }).meta({ id: 'CaseHistory' }),
          ...problemResponses({ 400: 'VALIDATION_ERROR: not a UUID', 404: "NOT_FOUND: unknown, or another tenant's case", ...AUTH_ERRORS }),
        },
      },
    },
    async (request) => caseHistory(db, requirePartner(request).tenantId, request.params.caseId),
  );

  typed.post(
    '/verifications/:caseId/cancel',
    {
      schema: {
        operationId: 'cancelVerification',
        summary: 'Cancel a verification case',
        description: 'Allowed from Requested, SessionIssued, CaptureStarted and PendingManualReview. The reason is kept in the audit trail.',
        tags: ['verifications'],
        security: partnerSecurity,
        params: caseIdParams,
        body: z.strictObject({ reason: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters') }),
        response: {
          204: z.null().describe('Cancelled'),
          ...problemResponses({
            400: 'INVALID_CASE_STATE: the case is in a terminal state; or VALIDATION_ERROR',
            404: 'NOT_FOUND',
            409: 'INVALID_CASE_STATE: the case is being processed (EvidenceUploaded, AutomatedChecksRunning)',
            ...AUTH_ERRORS,
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      await db.transaction((tx) => cancelCase(tx, tenantId, request.params.caseId, request.body.reason, actor, clock()));
      return reply.code(204).send(null);
    },
  );

  typed.patch(
    '/verifications/:caseId/ocr-fields',
    {
      schema: {
        operationId: 'correctOcrFields',
        summary: 'Correct extracted OCR fields',
        description: 'Keys must be fields the OCR extracted; values are strings. Allowed until the case is closed. Each change is audited with its before and after values and the notes.',
        tags: ['verifications'],
        security: partnerSecurity,
        params: caseIdParams,
        body: z.strictObject({
          fields: z
            .record(z.string().min(1).max(100), z.string({ error: 'must be a string' }).max(1000, 'must be at most 1000 characters'))
            .refine((fields) => Object.keys(fields).length > 0, 'must name at least one field')
            .refine((fields) => Object.keys(fields).length <= 100, 'must name at most 100 fields'),
          notes: z.string().max(2000, 'must be at most 2000 characters').optional(),
        }),
        response: {
          200: ocrResultSchema,
          ...problemResponses({
            400: 'VALIDATION_ERROR (unknown field, non-string value) or INVALID_CASE_STATE (terminal case)',
            404: 'NOT_FOUND: case unknown, or no OCR result yet',
            ...AUTH_ERRORS,
          }),
        },
      },
    },
    async (request) => {
      const { tenantId, actor } = requirePartner(request);
      return db.transaction((tx) => correctOcrFields(tx, tenantId, request.params.caseId, request.body, actor, clock(), options.documentNumberDigest));
    },
  );
};
