import { eq, sql } from 'drizzle-orm';
import { NotFoundError } from '@svc/problem-json';
import { z } from 'zod';
import { tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';

/** Enough for a partner's production, staging and a few brand sites; a longer list is a sign of a wildcard in disguise. */
export const MAX_CAPTURE_EMBED_ORIGINS = 20;

/**
 * Letters, digits, dots and hyphens only (IDNs in their xn-- form): the origin is written verbatim
 * into Content-Security-Policy and Permissions-Policy, so nothing that could end a directive or a
 * quoted string (`;`, `,`, `"`, `*`, spaces) may pass.
 */
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * One origin as a browser reports it (`https://partner.example`, `https://partner.example:8443`):
 * https only, no path, query, fragment, credentials or wildcard. A trailing slash is tolerated and
 * dropped. `allowLoopbackHttp` (the embedded default only) also admits http://localhost,
 * http://127.0.0.1 and http://[::1] with any port, for a partner's page in local development.
 */
export function captureEmbedOriginSchema(allowLoopbackHttp: boolean) {
  return z.string().transform((value, context) => {
    const refuse = (message: string) => {
      context.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (value.length > 300) return refuse('must be at most 300 characters');
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return refuse('must be an origin such as https://partner.example');
    }
    if (url.username || url.password || url.search || url.hash || url.pathname !== '/' || /[?#]/.test(value)) return refuse('must be an origin only: scheme, host and port, no path, query or credentials');
    const loopback = LOOPBACK_HOSTS.has(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && allowLoopbackHttp)) return refuse('must use https');
    if (!loopback && !HOST.test(url.hostname)) return refuse('must name one host by letters, digits, dots and hyphens (no wildcard)');
    return url.origin;
  });
}

export function captureEmbedOriginsSchema(allowLoopbackHttp: boolean) {
  return z
    .array(captureEmbedOriginSchema(allowLoopbackHttp))
    .max(MAX_CAPTURE_EMBED_ORIGINS, `must list at most ${MAX_CAPTURE_EMBED_ORIGINS} origins`)
    .transform((origins) => [...new Set(origins)]);
}

export async function captureEmbedOriginsOf(db: IdentityExecutor, tenantId: string): Promise<string[]> {
  const [tenant] = await db.select({ origins: tenants.captureEmbedOrigins }).from(tenants).where(eq(tenants.id, tenantId));
  if (!tenant) throw new NotFoundError(`No tenant with id ${tenantId}.`);
  return tenant.origins;
}

/** Replaces the list (already validated by captureEmbedOriginsSchema), audited with what it was. */
export async function setCaptureEmbedOrigins(tx: IdentityExecutor, tenantId: string, origins: string[], now: Date, actor: string): Promise<string[]> {
  const [before] = await tx.select({ captureEmbedOrigins: tenants.captureEmbedOrigins }).from(tenants).where(eq(tenants.id, tenantId)).for('update');
  if (!before) throw new NotFoundError(`No tenant with id ${tenantId}.`);
  await tx.update(tenants).set({ captureEmbedOrigins: origins, updatedAt: now }).where(eq(tenants.id, tenantId));
  await writeAudit(tx, { tenantId, actor, action: 'tenant.updated', target: `tenant:${tenantId}`, before, after: { captureEmbedOrigins: origins } }, now);
  return origins;
}

/**
 * The origins that may frame the capture page of one case: its tenant's list, looked up by the
 * case id the capture URL carries in its query (the session token, in the fragment, never
 * reaches the server with the page). An unknown or malformed id frames nowhere.
 */
export async function captureEmbedOriginsOfCase(db: IdentityExecutor, caseId: string | undefined): Promise<string[]> {
  if (!caseId || !z.uuid().safeParse(caseId).success) return [];
  const [row] = await db
    .select({ origins: tenants.captureEmbedOrigins })
    .from(verificationCases)
    .innerJoin(tenants, eq(tenants.id, verificationCases.tenantId))
    .where(sql`${verificationCases.id} = ${caseId}::uuid`);
  return row?.origins ?? [];
}
