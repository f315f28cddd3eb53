import { queueSecurityNotice, type SecurityNotices } from '../../mail/security-notices.js';
import { NotFoundError, ProblemError } from '@svc/problem-json';
import type { AuthenticationResponseJSON, AuthenticatorTransportFuture, RegistrationResponseJSON } from '@simplewebauthn/server';
import { and, eq, gt, isNotNull, isNull, lt, type SQL } from 'drizzle-orm';
import type { IdentityExecutor } from '../../../db/schema.js';
import { secondFactors, webauthnChallenges } from '../../../db/schema-second-factors.js';
import { writeAudit } from '../../common/audit.js';
import { hashToken } from '@svc/accounts';
import type { FactorAccount } from './accounts.js';

/**
 * The WebAuthn library (and its CBOR and COSE dependencies, about 24 MB of RSS) loads on the first
 * passkey ceremony, not at every start: most processes never see one.
 */
const webauthn = () => import('@simplewebauthn/server');

/** The relying party: its id is the first origin's host name; every origin listed may use its passkeys. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

export function relyingPartyOf(origins: string[], name = 'Identity Verification'): RelyingParty {
  const first = origins[0];
  if (!first) throw new Error('WebAuthn needs at least one origin');
  return { id: new URL(first).hostname, name, origins };
}

/** Long enough for the browser's dialog and a fingerprint, the same as a pending sign-in. */
const CHALLENGE_SECONDS = 5 * 60;

/** 400: the browser's answer did not prove possession of a passkey this service knows (or the challenge was spent). */
export class PasskeyRejectedError extends ProblemError {
  constructor(detail = 'The passkey could not be verified: try again.') {
    super({ status: 400, code: 'PASSKEY_REJECTED', title: 'Passkey Rejected', detail });
  }
}

/** 409: the credential is a factor already (of this account or another); the browser excludes known ones, so this is a double submission or a copied key. */
export class PasskeyAlreadyRegisteredError extends ProblemError {
  constructor() {
    super({ status: 409, code: 'PASSKEY_ALREADY_REGISTERED', title: 'Passkey Already Registered', detail: 'This passkey is already registered.' });
  }
}

type Binding = { purpose: 'registration'; account: string } | { purpose: 'authentication'; account: string | null; pendingSignInId: string | null };

async function storeChallenge(db: IdentityExecutor, challenge: string, binding: Binding, now: Date): Promise<void> {
  // Old challenges are swept on the way: they are worthless after five minutes.
  await db.delete(webauthnChallenges).where(lt(webauthnChallenges.expiresAt, now));
  await db.insert(webauthnChallenges).values({
    challengeHash: hashToken(challenge),
    purpose: binding.purpose,
    account: binding.account,
    pendingSignInId: binding.purpose === 'authentication' ? binding.pendingSignInId : null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CHALLENGE_SECONDS * 1000),
  });
}

/**
 * Spends the challenge the browser signed, once: the conditional update lets one of two racing
 * requests win. The binding must match: a challenge issued for another account or sign-in is refused.
 */
async function spendChallenge(db: IdentityExecutor, clientDataJSON: string, binding: Binding, now: Date): Promise<string> {
  let challenge: unknown;
  try {
    challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    throw new PasskeyRejectedError('The browser sent unreadable client data.');
  }
  if (typeof challenge !== 'string') throw new PasskeyRejectedError('The browser sent no challenge.');
  const bound: SQL[] = [eq(webauthnChallenges.purpose, binding.purpose)];
  bound.push(binding.account === null ? isNull(webauthnChallenges.account) : eq(webauthnChallenges.account, binding.account));
  if (binding.purpose === 'authentication') {
    bound.push(binding.pendingSignInId === null ? isNull(webauthnChallenges.pendingSignInId) : eq(webauthnChallenges.pendingSignInId, binding.pendingSignInId));
  }
  const [spent] = await db
    .update(webauthnChallenges)
    .set({ usedAt: now })
    .where(and(eq(webauthnChallenges.challengeHash, hashToken(challenge)), isNull(webauthnChallenges.usedAt), gt(webauthnChallenges.expiresAt, now), ...bound))
    .returning({ id: webauthnChallenges.id });
  if (!spent) throw new PasskeyRejectedError('The challenge has expired or was already used: start again.');
  return challenge;
}

/** The options as JSON for the browser: passed through whole, only the challenge is read here. */
export type PasskeyOptionsJSON = { challenge: string; [key: string]: unknown };

const transportsOf = (stored: string | null) => (stored ? (stored.split(',') as AuthenticatorTransportFuture[]) : undefined);

async function accountPasskeys(db: IdentityExecutor, account: string) {
  return db
    .select({ credentialId: secondFactors.credentialId, transports: secondFactors.transports })
    .from(secondFactors)
    .where(and(eq(secondFactors.account, account), eq(secondFactors.kind, 'passkey'), isNotNull(secondFactors.confirmedAt)));
}

/** Options for the browser's navigator.credentials.create(): a discoverable credential, so it can later sign in alone. */
export async function passkeyRegistrationOptions(db: IdentityExecutor, rp: RelyingParty, account: FactorAccount, now: Date): Promise<PasskeyOptionsJSON> {
  const existing = await accountPasskeys(db, account.account);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: account.email,
    userID: new TextEncoder().encode(account.account),
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId!, transports: transportsOf(passkey.transports) })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await storeChallenge(db, options.challenge, { purpose: 'registration', account: account.account }, now);
  return { ...options };
}

/** The browser's answer to the registration options: the new passkey becomes a factor of the account. */
export async function registerPasskey(
  db: IdentityExecutor,
  rp: RelyingParty,
  account: FactorAccount,
  input: { response: RegistrationResponseJSON; name?: string | undefined },
  correlationId: string,
  now: Date,
  notices?: SecurityNotices,
): Promise<{ id: string }> {
  const expectedChallenge = await spendChallenge(db, input.response.response.clientDataJSON, { purpose: 'registration', account: account.account }, now);
  const verification = await (await webauthn()).verifyRegistrationResponse({ response: input.response, expectedChallenge, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: false }).catch(
    (error: unknown) => {
      throw new PasskeyRejectedError(`The passkey could not be registered: ${error instanceof Error ? error.message : 'invalid response'}`);
    },
  );
  if (!verification.verified) throw new PasskeyRejectedError('The passkey could not be registered.');
  const { credential } = verification.registrationInfo;
  return db.transaction(async (tx) => {
    // The unique index decides, not a look first: two registrations of one credential at once
    // both find it free, and the second insert then waits for the first and inserts nothing.
    const [factor] = await tx
      .insert(secondFactors)
      .values({
        account: account.account,
        tenantId: account.tenantId,
        kind: 'passkey',
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        signCount: credential.counter,
        transports: credential.transports?.join(',') ?? null,
        name: input.name?.trim() || 'Passkey',
        confirmedAt: now,
        createdAt: now,
      })
      .onConflictDoNothing({ target: secondFactors.credentialId })
      .returning({ id: secondFactors.id });
    if (!factor) throw new PasskeyAlreadyRegisteredError();
    await writeAudit(tx, { tenantId: account.tenantId, actor: account.account, target: account.account, correlationId, action: 'second_factor.enrolled', after: { kind: 'passkey', factorId: factor.id } }, now);
    await queueSecurityNotice(tx, notices, account, 'passkey-registered', now);
    return factor;
  });
}

/** A new name for one of the account's own passkeys (404 for anyone else's, and for the TOTP factor). */
export async function renamePasskey(db: IdentityExecutor, account: FactorAccount, factorId: string, name: string, correlationId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [renamed] = await tx
      .update(secondFactors)
      .set({ name })
      .where(and(eq(secondFactors.id, factorId), eq(secondFactors.account, account.account), eq(secondFactors.kind, 'passkey'), isNotNull(secondFactors.confirmedAt)))
      .returning({ id: secondFactors.id });
    if (!renamed) throw new NotFoundError(`You have no passkey with id ${factorId}.`);
    await writeAudit(tx, { tenantId: account.tenantId, actor: account.account, target: account.account, correlationId, action: 'second_factor.renamed', after: { kind: 'passkey', factorId, name } }, now);
  });
}

/**
 * Options for navigator.credentials.get(). With an account (the second step) only its passkeys
 * are offered; without one (a passkey alone) the browser offers every discoverable one it holds.
 */
export async function passkeyAuthenticationOptions(db: IdentityExecutor, rp: RelyingParty, binding: { account: string | null; pendingSignInId: string | null }, now: Date): Promise<PasskeyOptionsJSON> {
  const allowed = binding.account === null ? [] : await accountPasskeys(db, binding.account);
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: binding.account === null ? 'required' : 'preferred',
    allowCredentials: allowed.map((passkey) => ({ id: passkey.credentialId!, transports: transportsOf(passkey.transports) })),
  });
  await storeChallenge(db, options.challenge, { purpose: 'authentication', ...binding }, now);
  return { ...options };
}

/** The owner of the passkey the browser used, before its signature is checked (to throttle and audit by account). */
export async function passkeyOwner(db: IdentityExecutor, credentialId: string): Promise<string | null> {
  const [factor] = await db
    .select({ account: secondFactors.account })
    .from(secondFactors)
    .where(and(eq(secondFactors.credentialId, credentialId), eq(secondFactors.kind, 'passkey'), isNotNull(secondFactors.confirmedAt)));
  return factor?.account ?? null;
}

/**
 * Verifies an assertion against the stored public key, spending its challenge. The signature
 * counter must move forward when the authenticator keeps one (0 means it keeps none).
 * Returns the account the passkey belongs to, or null when it does not verify.
 */
export async function verifyPasskeyAssertion(
  db: IdentityExecutor,
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  binding: { account: string | null; pendingSignInId: string | null },
  now: Date,
): Promise<string | null> {
  const expectedChallenge = await spendChallenge(db, response.response.clientDataJSON, { purpose: 'authentication', ...binding }, now);
  const [factor] = await db
    .select({ id: secondFactors.id, account: secondFactors.account, publicKey: secondFactors.publicKey, signCount: secondFactors.signCount, transports: secondFactors.transports })
    .from(secondFactors)
    .where(and(eq(secondFactors.credentialId, response.id), eq(secondFactors.kind, 'passkey'), isNotNull(secondFactors.confirmedAt)));
  if (!factor?.publicKey || (binding.account !== null && factor.account !== binding.account)) return null;
  const verification = await (await webauthn()).verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    credential: { id: response.id, publicKey: new Uint8Array(Buffer.from(factor.publicKey, 'base64url')), counter: factor.signCount ?? 0, transports: transportsOf(factor.transports) },
    requireUserVerification: binding.account === null,
  }).catch(() => null);
  if (!verification?.verified) return null;
  const { newCounter } = verification.authenticationInfo;
  // Compare-and-set on the counter read above: of two assertions verified against the same stored
  // value at once (a cloned authenticator signing twice), only the first to write passes.
  const [moved] = await db
    .update(secondFactors)
    .set({ signCount: newCounter, lastUsedAt: now })
    .where(and(eq(secondFactors.id, factor.id), factor.signCount === null ? isNull(secondFactors.signCount) : eq(secondFactors.signCount, factor.signCount)))
    .returning({ id: secondFactors.id });
  return moved ? factor.account : null;
}
