import { AccountDisabledError, ForbiddenError, UnauthenticatedError } from '@svc/problem-json';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { announceCredentialsChanged, type CredentialCache } from '../common/credential-cache.js';
import { preparedPerDatabase } from '../../db/prepared.js';
import { accessTokens, oauthClients, tenants, type IdentityExecutor } from '../../db/schema.js';
import { x5tS256 } from './certificates.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import { invalidClient, OAuthError, tenantDisabled } from './oauth-errors.js';
import { normaliseScopes, splitScopes } from './scopes.js';

export const ACCESS_TOKEN_PREFIX = 'svc_at_';
export const ACCESS_TOKEN_SECONDS = 3600;
const ACCESS_TOKEN_SHAPE = /^svc_at_[0-9a-f]{64}$/;

export interface TokenPrincipal {
  tenantId: string;
  clientEntityId: string;
  clientId: string;
  scopes: string[];
}

/** The client whose registered certificate the caller presented, with its tenant's status. */
async function clientByCertificate(db: IdentityExecutor, thumbprint: string) {
  const [row] = await db
    .select({ client: oauthClients, tenantStatus: tenants.status })
    .from(oauthClients)
    .innerJoin(tenants, eq(tenants.id, oauthClients.tenantId))
    .where(and(eq(oauthClients.certificateThumbprint, thumbprint), isNull(oauthClients.revokedAt)));
  return row ?? null;
}

/** client_credentials with mTLS client authentication (RFC 8705 §2): the certificate is the credential. */
export async function issueAccessToken(
  db: IdentityExecutor,
  input: { clientId: string; scope: string | undefined; thumbprint: string | null },
  now: Date,
): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string; cnf: { 'x5t#S256': string }; clientEntityId: string }> {
  if (!input.thumbprint) throw invalidClient('No client certificate was presented. Call the token endpoint over mutual TLS with the registered certificate.');
  const [row] = await db
    .select({ client: oauthClients, tenantStatus: tenants.status })
    .from(oauthClients)
    .innerJoin(tenants, eq(tenants.id, oauthClients.tenantId))
    .where(eq(oauthClients.clientId, input.clientId));
  // Unknown, revoked and mismatched clients read alike: nothing tells a prober which it was.
  if (!row || row.client.revokedAt || row.client.certificateThumbprint !== input.thumbprint) {
    throw invalidClient('Client authentication failed: unknown or revoked client_id, or the certificate is not the one registered for it.');
  }
  if (row.client.certificateNotAfter.getTime() <= now.getTime()) {
    throw invalidClient(`The registered client certificate expired at ${row.client.certificateNotAfter.toISOString()}. Register a client with a new certificate.`);
  }
  if (row.tenantStatus !== 'active') throw tenantDisabled();
  let scope = row.client.allowedScopes;
  if (input.scope !== undefined) {
    const requested = normaliseScopes(input.scope);
    if ('error' in requested) throw new OAuthError(400, 'invalid_scope', `scope ${requested.error}.`);
    const allowed = splitScopes(row.client.allowedScopes);
    const excess = splitScopes(requested.scopes).filter((item) => !allowed.includes(item));
    if (excess.length > 0) throw new OAuthError(400, 'invalid_scope', `The client is not allowed the scope ${excess.join(' ')}; its allowed scopes are: ${row.client.allowedScopes}.`);
    scope = requested.scopes;
  }
  const token = generateOpaqueToken(ACCESS_TOKEN_PREFIX, 32);
  await db.insert(accessTokens).values({
    tokenHash: hashToken(token),
    tenantId: row.client.tenantId,
    clientEntityId: row.client.id,
    certificateThumbprint: input.thumbprint,
    scope,
    issuedAt: now,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
  });
  return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope, cnf: { 'x5t#S256': x5tS256(input.thumbprint) }, clientEntityId: row.client.id };
}

/** Token, client and tenant in one indexed query (token_hash is unique), prepared once: it runs on every API call. */
const tokenLookup = preparedPerDatabase((db) =>
  db
    .select({
      tenantId: accessTokens.tenantId,
      clientEntityId: accessTokens.clientEntityId,
      thumbprint: accessTokens.certificateThumbprint,
      scope: accessTokens.scope,
      issuedAt: accessTokens.issuedAt,
      expiresAt: accessTokens.expiresAt,
      revokedAt: accessTokens.revokedAt,
      clientId: oauthClients.clientId,
      clientRevokedAt: oauthClients.revokedAt,
      tenantStatus: tenants.status,
    })
    .from(accessTokens)
    .innerJoin(oauthClients, eq(oauthClients.id, accessTokens.clientEntityId))
    .innerJoin(tenants, eq(tenants.id, accessTokens.tenantId))
    .where(eq(accessTokens.tokenHash, sql.placeholder('tokenHash')))
    .prepare('identity_token_lookup'),
);

type TokenRow = NonNullable<Awaited<ReturnType<ReturnType<typeof tokenLookup>['execute']>>[number]>;

async function findToken(db: IdentityExecutor, token: string, cache?: CredentialCache): Promise<TokenRow | null> {
  if (!ACCESS_TOKEN_SHAPE.test(token)) return null;
  const key = `at:${hashToken(token)}`;
  const cached = cache?.get<TokenRow>(key);
  if (cached) return cached;
  const generation = cache?.generation ?? 0;
  const [row] = await tokenLookup(db).execute({ tokenHash: key.slice(3) });
  if (row) cache?.set(key, row, generation);
  return row ?? null;
}

/**
 * The API's bearer check. The certificate binding is checked before anything about the
 * client or tenant is revealed, so a stolen token without its certificate learns nothing.
 */
export async function authenticateAccessToken(db: IdentityExecutor, token: string, thumbprint: string | null, now: Date, cache?: CredentialCache): Promise<TokenPrincipal> {
  // The cached row is checked like a fresh one (certificate, expiry); revocations empty the cache.
  const row = await findToken(db, token, cache);
  if (!row) throw new UnauthenticatedError();
  if (!thumbprint || thumbprint !== row.thumbprint) {
    throw new UnauthenticatedError('The access token is bound to a client certificate, and the request did not present that certificate.');
  }
  if (row.clientRevokedAt) throw new ForbiddenError('The OAuth client of this token has been revoked.');
  if (row.tenantStatus !== 'active') throw new AccountDisabledError();
  if (row.revokedAt || row.expiresAt.getTime() <= now.getTime()) throw new UnauthenticatedError('The access token has expired or was revoked.');
  return { tenantId: row.tenantId, clientEntityId: row.clientEntityId, clientId: row.clientId, scopes: splitScopes(row.scope) };
}

/** The caller of introspect/revoke: an active client, identified by the certificate it presents. */
export async function authenticateCallingClient(db: IdentityExecutor, thumbprint: string | null): Promise<{ tenantId: string; clientEntityId: string }> {
  if (!thumbprint) throw invalidClient('No client certificate was presented. This endpoint requires mutual TLS with a registered client certificate.');
  const caller = await clientByCertificate(db, thumbprint);
  if (!caller) throw invalidClient('The presented certificate does not belong to an active OAuth client.');
  if (caller.tenantStatus !== 'active') throw tenantDisabled();
  return { tenantId: caller.client.tenantId, clientEntityId: caller.client.id };
}

/** RFC 7662: another tenant's token, like an unknown one, is simply inactive. */
export async function introspectToken(db: IdentityExecutor, callerTenantId: string, token: string, now: Date) {
  const row = await findToken(db, token);
  const active =
    row !== null && row.tenantId === callerTenantId && !row.revokedAt && !row.clientRevokedAt && row.tenantStatus === 'active' && row.expiresAt.getTime() > now.getTime();
  if (!active) return { active: false as const };
  return {
    active: true as const,
    client_id: row.clientId,
    scope: row.scope,
    tenant_id: row.tenantId,
    exp: Math.floor(row.expiresAt.getTime() / 1000),
    iat: Math.floor(row.issuedAt.getTime() / 1000),
    token_type: 'Bearer' as const,
    cnf: { 'x5t#S256': x5tS256(row.thumbprint) },
  };
}

/**
 * RFC 7009: the answer never says whether the token existed or was the caller's. Returns whether a
 * token was revoked now: only then is there a credential change whose announcement to wait for.
 */
export async function revokeToken(db: IdentityExecutor, callerTenantId: string, token: string, now: Date): Promise<boolean> {
  if (!ACCESS_TOKEN_SHAPE.test(token)) return false;
  return db.transaction(async (tx) => {
    const revoked = await tx
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(and(eq(accessTokens.tokenHash, hashToken(token)), eq(accessTokens.tenantId, callerTenantId), isNull(accessTokens.revokedAt)))
      .returning({ id: accessTokens.id });
    if (revoked.length === 0) return false;
    await announceCredentialsChanged(tx);
    return true;
  });
}
