import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { requestRedaction } from '../../domain/redaction/request-redaction.js';
import { requirePartner } from '../../plugins/authentication.js';
import { caseIdParams } from '../case-schemas.js';
import { RATE_LIMITED, partnerSecurity } from '../openapi.js';

export interface RedactionRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  /** Starts the job at once in this process (the poll and NOTIFY reach other workers). */
  afterRequest: () => void;
}

const redactionAcceptedSchema = z
  .object({
    caseId: z.uuid(),
    redactionRequestedAt: z.string().meta({ description: 'ISO 8601, UTC: when redaction was first asked for (a repeated request answers the same time)' }),
  })
  .meta({ id: 'RedactionAccepted' });

export const redactionRoutes: FastifyPluginAsync<RedactionRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/verifications/:caseId/redact',
    {
      schema: {
        operationId: 'redactVerification',
        summary: "Redact a closed case's evidence and personal data",
        description:
          "Allowed on Approved, Rejected, Expired, Cancelled and Failed cases (cancel an open case first). A job destroys the evidence's data keys (crypto-shredding), deletes the files and blanks the OCR fields, MRZ text and file names; status, decision, scores, timestamps, fraud signal types, evidence hashes and sizes, externalReference and the audit trail stay. When done, the case's `redactedAt` is set and a `verification.redacted` event is sent; evidence downloads answer 410 from the request on. Idempotent: a repeated request answers 202 with the first request's time. Scope `verifications`; in the portal, PartnerAdmin.",
        tags: ['verifications'],
        security: partnerSecurity,
        params: caseIdParams,
        response: {
          202: redactionAcceptedSchema,
          ...problemResponses({
            400: 'VALIDATION_ERROR: not a UUID',
            401: 'UNAUTHENTICATED',
            403: 'FORBIDDEN (scope verifications missing, client revoked, PartnerReadOnly) or ACCOUNT_DISABLED',
            404: "NOT_FOUND: no such case (another tenant's included)",
            409: 'INVALID_CASE_STATE: the case is still open',
            429: RATE_LIMITED,
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      const accepted = await options.db.transaction((tx) => requestRedaction(tx, tenantId, request.params.caseId, { ...actor, reason: 'request' }, options.clock()));
      options.afterRequest();
      return reply.code(202).send(accepted);
    },
  );
};
