import { and, eq } from 'drizzle-orm';
import { portalUsers, type IdentityExecutor } from '../../db/schema.js';
import type { IdentityMailer } from '../mail/identity-mailer.js';

/**
 * One mail to each active PartnerAdmin of the endpoint's tenant, queued in the transaction that
 * disabled the endpoint. The worker has no request, so no Accept-Language: each mail is in the
 * admin's own language (the one they last signed in with) when known, else the default.
 */
export async function mailEndpointDisabled(tx: IdentityExecutor, mailer: IdentityMailer, endpoint: { tenantId: string; url: string; lastError: string }, now: Date): Promise<number> {
  const admins = await tx
    .select({ id: portalUsers.id, email: portalUsers.email, language: portalUsers.preferredLanguage })
    .from(portalUsers)
    .where(and(eq(portalUsers.tenantId, endpoint.tenantId), eq(portalUsers.role, 'PartnerAdmin'), eq(portalUsers.status, 'active')));
  for (const admin of admins) {
    await mailer.enqueue(tx, { to: admin.email, language: admin.language, template: 'webhook-endpoint-disabled', data: { url: endpoint.url, lastError: endpoint.lastError, disabledAt: now.toISOString() }, subjectId: admin.id }, now);
  }
  return admins.length;
}
