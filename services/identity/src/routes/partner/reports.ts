import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { CASE_STATUSES } from '../../domain/cases/case-states.js';
import { EXPORT_COLUMNS, EXPORT_ROW_LIMIT, openCasesExport } from '../../domain/reports/csv-export.js';
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, resolveReportWindow } from '../../domain/reports/report-window.js';
import { summariseTenantCases } from '../../domain/reports/summary.js';
import { requirePartner } from '../../plugins/authentication.js';
import { RATE_LIMITED, partnerSecurity } from '../openapi.js';

export interface ReportRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
}

const AUTH_ERRORS = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN (scope reports missing, client revoked) or ACCOUNT_DISABLED', 429: RATE_LIMITED } as const;
const WINDOW_ERRORS = `VALIDATION_ERROR naming the parameter: not an ISO 8601 timestamp with an offset, from after to, a window over ${MAX_WINDOW_DAYS} days, an unknown parameter`;

// `+` in a query string decodes to a space, so the message says how to send an offset.
const timestamp = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 timestamp with an offset, such as 2025-01-31T00:00:00Z (send + as %2B)' })
  .optional();

/** Both reports take the same window; a typo such as `form` is refused, not ignored. */
const reportWindowQuery = z.strictObject({
  from: timestamp.meta({ description: `Inclusive, on createdAt; default ${DEFAULT_WINDOW_DAYS} days before to` }),
  to: timestamp.meta({ description: 'Inclusive; default now' }),
});

const summarySchema = z.object({
  from: z.string().meta({ description: 'The window as applied (UTC)' }),
  to: z.string(),
  totalCases: z.number().int(),
  byStatus: z.object(Object.fromEntries(CASE_STATUSES.map((status) => [status, z.number().int()])) as Record<(typeof CASE_STATUSES)[number], z.ZodNumber>).meta({
    description: 'Every one of the eleven states, 0 where none',
  }),
  automationRate: z.number().meta({
    description: 'Cases that reached Approved or Rejected with no manual review decision ÷ all cases that reached Approved or Rejected; 0 when none; 4 decimals',
  }),
});

export const reportRoutes: FastifyPluginAsync<ReportRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;

  typed.get(
    '/reports/summary',
    {
      schema: {
        operationId: 'getReportSummary',
        summary: 'Summarise the verification cases of a window',
        description: `Cases created in [from, to], both inclusive (default the last ${DEFAULT_WINDOW_DAYS} days, at most ${MAX_WINDOW_DAYS} days), counted by their current status.`,
        tags: ['reports'],
        security: partnerSecurity,
        querystring: reportWindowQuery,
        response: { 200: summarySchema, ...problemResponses({ 400: WINDOW_ERRORS, ...AUTH_ERRORS }) },
      },
    },
    async (request) => summariseTenantCases(db, requirePartner(request).tenantId, resolveReportWindow(request.query, clock())),
  );

  typed.get(
    '/reports/export',
    {
      schema: {
        operationId: 'exportReport',
        summary: 'Export the verification cases of a window as CSV',
        description: [
          `UTF-8 CSV (RFC 4180: header row, CRLF, quoted where needed), columns ${EXPORT_COLUMNS.join(', ')}; timestamps ISO 8601 UTC, empty cells for null.`,
          `Cases created in [from, to] (same window rules as the summary), newest first, at most ${EXPORT_ROW_LIMIT.toLocaleString('en')}:`,
          'X-Total-Count gives every matching case and X-Truncated says whether rows were left out (narrow the window to get them).',
          "Text cells starting with =, +, -, @, tab or CR are prefixed with ' so spreadsheets do not evaluate them.",
        ].join(' '),
        tags: ['reports'],
        security: partnerSecurity,
        querystring: reportWindowQuery,
        response: {
          200: {
            description: 'The CSV file (Content-Disposition: attachment; filename="verifications_YYYYMMDD.csv", X-Total-Count, X-Truncated)',
            // Streamed, so never serialised: the schema only tells OpenAPI readers it is text.
            content: { 'text/csv': { schema: z.any().meta({ type: 'string' }) } },
          },
          ...problemResponses({ 400: WINDOW_ERRORS, ...AUTH_ERRORS }),
        },
      },
    },
    async (request, reply) => {
      const tenantId = requirePartner(request).tenantId;
      const now = clock();
      const file = await openCasesExport(db, tenantId, resolveReportWindow(request.query, now), now);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${file.fileName}"`)
        .header('X-Total-Count', String(file.totalCount))
        .header('X-Truncated', String(file.truncated))
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'private, no-store')
        .send(file.body);
    },
  );
};
