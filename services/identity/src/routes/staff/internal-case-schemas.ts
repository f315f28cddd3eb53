import { z } from 'zod';
import { REVIEW_REASON_CODES } from '../../domain/review/review-case.js';
import { caseDetailSchema, caseHistoryEntrySchema, caseStatusSchema, documentTypeSchema, reviewVerdictSchema } from '../case-schemas.js';

// The review routes' bodies, each a named component of the staff document: the console's types are generated from them.

const pageEnvelope = { page: z.number().int(), pageSize: z.number().int(), totalCount: z.number().int(), totalPages: z.number().int() };
const tenantSummarySchema = z.object({ id: z.uuid(), name: z.string() });

export const caseClaimSchema = z
  .object({ staffId: z.uuid(), email: z.string(), expiresAt: z.string() })
  .meta({ id: 'CaseClaim', description: 'A reviewer holds the case for 15 minutes (renewed by claiming again); others cannot decide it meanwhile' });

export const reviewQueueItemSchema = z
  .object({
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
  })
  .meta({ id: 'ReviewQueueItem' });

export const reviewQueuePageSchema = z
  .object({
    items: z.array(reviewQueueItemSchema),
    ...pageEnvelope,
    oldestWaitingSeconds: z.number().int(),
    tenants: z.array(tenantSummarySchema).meta({ description: 'Every tenant with a case waiting, for the filter' }),
  })
  .meta({ id: 'ReviewQueuePage', description: 'Cases waiting for manual review, longest waiting first' });

export const mrzFieldComparisonSchema = z
  .object({ field: z.string(), ocr: z.string().nullable(), mrz: z.string().nullable(), matches: z.boolean().nullable() })
  .meta({ id: 'MrzFieldComparison', description: 'One OCR field beside the same field read from the MRZ; matches is null when either is missing' });

export const staffCaseViewSchema = z
  .object({
    case: caseDetailSchema,
    tenant: tenantSummarySchema,
    timeline: z.array(caseHistoryEntrySchema),
    claim: caseClaimSchema.nullable(),
    mrzComparison: z.array(mrzFieldComparisonSchema),
  })
  .meta({ id: 'StaffCaseView' });

export const reviewReasonCodeSchema = z.enum(REVIEW_REASON_CODES).meta({ id: 'ReviewReasonCode' });

export const reviewBodySchema = z
  .strictObject({
    decision: reviewVerdictSchema,
    reasonCode: reviewReasonCodeSchema.optional(),
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

export const reviewOutcomeSchema = z.object({ caseId: z.uuid(), status: caseStatusSchema }).meta({ id: 'ReviewOutcome' });

export const reviewHistoryScopeSchema = z.enum(['mine', 'everyone']).meta({ id: 'ReviewHistoryScope', description: "Your own decisions, or everyone's (ReviewLead only)" });

export const reviewHistoryItemSchema = z
  .object({
    id: z.uuid(),
    caseId: z.uuid(),
    tenantName: z.string(),
    documentType: z.string(),
    reviewer: z.object({ id: z.uuid(), email: z.string() }),
    decision: reviewVerdictSchema,
    reasonCode: z.string().nullable().meta({ description: 'A ReviewReasonCode, as recorded when the decision was taken' }),
    reason: z.string(),
    decidedAt: z.string(),
  })
  .meta({ id: 'ReviewHistoryItem' });

export const reviewHistoryPageSchema = z.object({ items: z.array(reviewHistoryItemSchema), ...pageEnvelope }).meta({ id: 'ReviewHistoryPage', description: 'Decisions, newest first' });
