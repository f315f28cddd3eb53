import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { openEvidenceDownload } from '../../domain/evidence/evidence-download.js';
import type { EvidenceVault } from '../../domain/evidence/evidence-vault.js';
import { requirePartner } from '../../plugins/authentication.js';
import { EVIDENCE_FILE_DESCRIPTION, sendEvidenceFile } from '../evidence-file-reply.js';
import { RATE_LIMITED, partnerSecurity } from '../openapi.js';

export interface EvidenceRouteOptions {
  db: IdentityExecutor;
  storage: EvidenceVault;
  clock: () => Date;
}

export const evidenceRoutes: FastifyPluginAsync<EvidenceRouteOptions> = async (app, options) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/evidence/:evidenceId/file',
    {
      schema: {
        operationId: 'downloadEvidenceFile',
        summary: 'Download an evidence file',
        description: 'Streams the original bytes (decrypted on the fly: evidence is encrypted at rest) with the content type sniffed at upload; no JSON envelope. Scope `evidence`. Every access is audited.',
        tags: ['evidence'],
        security: partnerSecurity,
        params: z.object({ evidenceId: z.uuid({ error: 'must be an evidence id (a UUID)' }) }),
        response: {
          200: z.any().meta({ description: EVIDENCE_FILE_DESCRIPTION }),
          ...problemResponses({
            400: 'VALIDATION_ERROR: not a UUID',
            401: 'UNAUTHENTICATED',
            403: "FORBIDDEN: another tenant's evidence, scope evidence missing; or ACCOUNT_DISABLED",
            404: 'NOT_FOUND',
            410: 'EVIDENCE_REDACTED: the case was redacted (or its redaction is under way)',
            429: RATE_LIMITED,
            500: 'EVIDENCE_UNREADABLE: the stored object failed authentication (altered, or sealed under a key not configured)',
          }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      const file = await openEvidenceDownload(options.db, options.storage, tenantId, request.params.evidenceId, actor, options.clock());
      return sendEvidenceFile(reply, file);
    },
  );
};
