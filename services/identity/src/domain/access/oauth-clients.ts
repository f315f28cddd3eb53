import { BadRequestProblem } from '../common/problems.js';
import { ConflictError, NotFoundError } from '@svc/problem-json';
import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import { accessTokens, oauthClients, type IdentityExecutor } from '../../db/schema.js';
import { announceCredentialsChanged } from '../common/credential-cache.js';
import { preparedPerDatabase } from '../../db/prepared.js';
import { writeAudit } from '../common/audit.js';
import { parseRegistrationCertificate } from './certificates.js';
import { generateOpaqueToken } from '@svc/accounts';
import { parseAllowedScopes } from './scopes.js';

export const MAX_ACTIVE_CLIENTS = 5;

export type OAuthClientRow = typeof oauthClients.$inferSelect;

/** The spec's OAuth client resource (metadata only: a client has no secret, its certificate is the credential). */
export function toOAuthClient(row: OAuthClientRow) {
  return {
    id: row.id,
    clientId: row.clientId,
    clientName: row.clientName,
    certificateThumbprint: row.certificateThumbprint,
    certificateSubjectDN: row.certificateSubjectDn,
    certificateNotBefore: row.certificateNotBefore.toISOString(),
    certificateNotAfter: row.certificateNotAfter.toISOString(),
    allowedScopes: row.allowedScopes,
    isActive: row.revokedAt === null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

interface Actor {
  tenantId: string;
  userId: string;
  correlationId: string;
}

export async function registerClient(
  db: IdentityExecutor,
  actor: Actor,
  input: { clientName: string; certificatePem: string; allowedScopes?: string | undefined },
  now: Date,
): Promise<OAuthClientRow> {
  const certificate = parseRegistrationCertificate(input.certificatePem, now);
  const allowedScopes = parseAllowedScopes(input.allowedScopes);
  return db.transaction(async (tx) => {
    // Serialises registrations of one tenant, so two racing requests cannot both be the fifth.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`identity.oauth_clients:${actor.tenantId}`}, 0))`);
    const [active] = await tx.select({ n: count() }).from(oauthClients).where(and(eq(oauthClients.tenantId, actor.tenantId), isNull(oauthClients.revokedAt)));
    if ((active?.n ?? 0) >= MAX_ACTIVE_CLIENTS) {
      throw new ConflictError(`The tenant already has ${MAX_ACTIVE_CLIENTS} active OAuth clients, the maximum. Revoke one before registering another.`);
    }
    const [row] = await tx
      .insert(oauthClients)
      .values({
        tenantId: actor.tenantId,
        clientId: generateOpaqueToken('svc_', 16),
        clientName: input.clientName,
        certificateThumbprint: certificate.thumbprint,
        certificateSubjectDn: certificate.subjectDn,
        certificateNotBefore: certificate.notBefore,
        certificateNotAfter: certificate.notAfter,
        allowedScopes,
        createdAt: now,
      })
      .onConflictDoNothing({ target: oauthClients.certificateThumbprint, where: sql`${oauthClients.revokedAt} is null` })
      .returning();
    // Any tenant's: the same 409 whoever holds it, and nothing about the holder.
    if (!row) throw new ConflictError('This certificate is already registered to an active OAuth client. Each client needs its own certificate.');
    await writeAudit(tx, { tenantId: actor.tenantId, actor: `user:${actor.userId}`, action: 'oauth_client.registered', target: `oauth_client:${row.id}`, correlationId: actor.correlationId, after: toOAuthClient(row) }, now);
    return row;
  });
}

/** Prepared once per database: the list is read on every portal and API dashboard load. */
/** Exported for the bench, whose reference runs this very statement (services/identity/bench). */
export const tenantClients = preparedPerDatabase((db) =>
  db
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.tenantId, sql.placeholder('tenantId')))
    .orderBy(asc(oauthClients.createdAt), asc(oauthClients.id))
    .prepare('identity_tenant_clients'),
);

export async function listClients(db: IdentityExecutor, tenantId: string): Promise<OAuthClientRow[]> {
  return tenantClients(db).execute({ tenantId });
}

/** Revokes the client and every token it holds in one transaction: nothing it issued works afterwards. */
export async function revokeClient(db: IdentityExecutor, actor: Actor, clientEntityId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(oauthClients)
      .where(and(eq(oauthClients.id, clientEntityId), eq(oauthClients.tenantId, actor.tenantId)))
      .for('update');
    if (!before) throw new NotFoundError(`No OAuth client with id ${clientEntityId}.`);
    if (before.revokedAt) throw new BadRequestProblem('CLIENT_ALREADY_REVOKED', `The OAuth client ${clientEntityId} was already revoked at ${before.revokedAt.toISOString()}.`);
    const [after] = await tx.update(oauthClients).set({ revokedAt: now }).where(eq(oauthClients.id, clientEntityId)).returning();
    const revoked = await tx
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(and(eq(accessTokens.clientEntityId, clientEntityId), isNull(accessTokens.revokedAt)))
      .returning({ id: accessTokens.id });
    await announceCredentialsChanged(tx);
    await writeAudit(
      tx,
      {
        tenantId: actor.tenantId,
        actor: `user:${actor.userId}`,
        action: 'oauth_client.revoked',
        target: `oauth_client:${clientEntityId}`,
        correlationId: actor.correlationId,
        before: toOAuthClient(before),
        after: { ...(after ? toOAuthClient(after) : {}), tokensRevoked: revoked.length },
      },
      now,
    );
  });
}
