import { ConflictError, NotFoundError } from '@svc/problem-json';
import type { SecretBox } from '@svc/service-kit';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import { and, count, eq, isNotNull, isNull, or, lt } from 'drizzle-orm';
import type { IdentityExecutor } from '../../../db/schema.js';
import { recoveryCodes, secondFactors } from '../../../db/schema-second-factors.js';
import { writeAudit } from '../../common/audit.js';
import { hashToken } from '@svc/accounts';
import { InvalidCodeError, type FactorAccount } from './accounts.js';
import { queueSecurityNotice, type SecurityNotices } from '../../mail/security-notices.js';
import { generateTotpSecret, matchingTotpStep, toBase32, totpUri } from './totp.js';

export const RECOVERY_CODE_COUNT = 10;
const TOTP_ISSUER = 'Identity Verification';

const mine = (account: FactorAccount) => eq(secondFactors.account, account.account);
const auditOf = (account: FactorAccount, correlationId: string) => ({ tenantId: account.tenantId, actor: account.account, target: account.account, correlationId });

/** The account's confirmed factors, oldest first (unconfirmed enrolments are not factors yet). */
export async function listFactors(db: IdentityExecutor, account: FactorAccount) {
  const factors = await db
    .select({ id: secondFactors.id, kind: secondFactors.kind, name: secondFactors.name, createdAt: secondFactors.createdAt, lastUsedAt: secondFactors.lastUsedAt })
    .from(secondFactors)
    .where(and(mine(account), isNotNull(secondFactors.confirmedAt)))
    .orderBy(secondFactors.createdAt);
  const [codes] = await db
    .select({ left: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.account, account.account), isNull(recoveryCodes.usedAt)));
  return { factors, recoveryCodesLeft: codes?.left ?? 0 };
}

export async function hasSecondFactor(db: IdentityExecutor, account: string): Promise<boolean> {
  const [row] = await db
    .select({ id: secondFactors.id })
    .from(secondFactors)
    .where(and(eq(secondFactors.account, account), isNotNull(secondFactors.confirmedAt)))
    .limit(1);
  return row !== undefined;
}

/**
 * A fresh secret for the authenticator app, not yet a factor: only a code made from it confirms
 * it. Starting again replaces an unconfirmed secret; a confirmed TOTP must be removed first.
 */
export async function startTotpEnrolment(db: IdentityExecutor, box: SecretBox, account: FactorAccount, now: Date) {
  const secret = generateTotpSecret();
  return db.transaction(async (tx) => {
    const [existing] = await tx.select({ confirmedAt: secondFactors.confirmedAt }).from(secondFactors).where(and(mine(account), eq(secondFactors.kind, 'totp')));
    if (existing?.confirmedAt) throw new ConflictError('An authenticator app is already set up: remove it before setting up another.');
    await tx.delete(secondFactors).where(and(mine(account), eq(secondFactors.kind, 'totp')));
    const [factor] = await tx.insert(secondFactors).values({ account: account.account, tenantId: account.tenantId, kind: 'totp', createdAt: now }).returning({ id: secondFactors.id });
    if (!factor) throw new Error('insert returned no row');
    // The factor's id is the associated data: a sealed secret copied onto another row does not open.
    await tx.update(secondFactors).set({ totpSecretSealed: box.encrypt(secret, factor.id) }).where(eq(secondFactors.id, factor.id));
    return { secret, otpauthUri: totpUri(secret, TOTP_ISSUER, account.email) };
  });
}

/**
 * The first code proves the app holds the secret; the step it was made for is remembered so the
 * same code cannot be replayed at sign-in. The account's first factor comes with its recovery codes.
 */
export async function confirmTotpEnrolment(db: IdentityExecutor, box: SecretBox, account: FactorAccount, code: string, correlationId: string, now: Date, notices?: SecurityNotices) {
  const [factor] = await db
    .select({ id: secondFactors.id, sealed: secondFactors.totpSecretSealed })
    .from(secondFactors)
    .where(and(mine(account), eq(secondFactors.kind, 'totp'), isNull(secondFactors.confirmedAt)));
  if (!factor?.sealed) throw new NotFoundError('No authenticator app is being set up: start again.');
  const step = matchingTotpStep(box.decrypt(factor.sealed, factor.id), code, now);
  if (step === null) throw new InvalidCodeError('The code does not match: check the time on the phone and type the current code.');
  return db.transaction(async (tx) => {
    await tx.update(secondFactors).set({ confirmedAt: now, totpLastStep: step, lastUsedAt: now }).where(eq(secondFactors.id, factor.id));
    await writeAudit(tx, { ...auditOf(account, correlationId), action: 'second_factor.enrolled', after: { kind: 'totp', factorId: factor.id } }, now);
    await queueSecurityNotice(tx, notices, account, 'authenticator-added', now);
    const [left] = await tx.select({ left: count() }).from(recoveryCodes).where(and(eq(recoveryCodes.account, account.account), isNull(recoveryCodes.usedAt)));
    return { recoveryCodes: (left?.left ?? 0) > 0 ? null : await replaceRecoveryCodes(tx, account, now) };
  });
}

/** Removes a factor of the account's own; with the last one go the recovery codes, which would otherwise still sign in. */
export async function removeFactor(db: IdentityExecutor, account: FactorAccount, factorId: string, correlationId: string, now: Date, notices?: SecurityNotices): Promise<void> {
  await db.transaction(async (tx) => {
    const [removed] = await tx.delete(secondFactors).where(and(mine(account), eq(secondFactors.id, factorId))).returning({ kind: secondFactors.kind });
    if (!removed) throw new NotFoundError(`You have no second factor with id ${factorId}.`);
    const [remaining] = await tx.select({ left: count() }).from(secondFactors).where(and(mine(account), isNotNull(secondFactors.confirmedAt)));
    if ((remaining?.left ?? 0) === 0) await tx.delete(recoveryCodes).where(eq(recoveryCodes.account, account.account));
    await writeAudit(tx, { ...auditOf(account, correlationId), action: 'second_factor.removed', before: { kind: removed.kind, factorId } }, now);
    await queueSecurityNotice(tx, notices, account, 'second-factor-removed', now);
  });
}

/** While a factor is required, the last one cannot go (the account would be sent back to enrolment at once). */
export async function refuseRemovingLastFactor(db: IdentityExecutor, account: FactorAccount, factorId: string, requiredBy: string): Promise<void> {
  const { factors } = await listFactors(db, account);
  if (factors.length === 1 && factors[0]?.id === factorId) throw new ConflictError(`${requiredBy} requires a second factor: add another one before removing this one.`);
}

/** Ten new codes in place of all earlier ones, used or not; shown once, stored as hashes. */
export async function regenerateRecoveryCodes(db: IdentityExecutor, account: FactorAccount, correlationId: string, now: Date, notices?: SecurityNotices): Promise<string[]> {
  if (!(await hasSecondFactor(db, account.account))) throw new ConflictError('Recovery codes come with a second factor: set one up first.');
  return db.transaction(async (tx) => {
    const codes = await replaceRecoveryCodes(tx, account, now);
    await writeAudit(tx, { ...auditOf(account, correlationId), action: 'recovery_codes.regenerated' }, now);
    await queueSecurityNotice(tx, notices, account, 'recovery-codes-regenerated', now);
    return codes;
  });
}

/** 80 random bits as four groups of four base32 letters; compared by hash, so case and dashes are forgiven. */
const normalizeRecoveryCode = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();

async function replaceRecoveryCodes(tx: IdentityExecutor, account: FactorAccount, now: Date): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => toBase32(randomBytes(10)).toLowerCase().match(/.{4}/g)!.join('-'));
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.account, account.account));
  await tx.insert(recoveryCodes).values(codes.map((code) => ({ account: account.account, codeHash: hashToken(normalizeRecoveryCode(code)), createdAt: now })));
  return codes;
}

/** A passkey's assertion is verified by passkeys.ts against the pending sign-in's own challenge. */
export type SecondStepProof = { code: string } | { recoveryCode: string } | { passkey: AuthenticationResponseJSON };

/**
 * Whether the proof is good, spending it: an accepted TOTP step moves the factor's last step
 * forward in one conditional update (two requests racing with the same code: one wins), and a
 * recovery code is marked used the same way.
 */
export async function spendSecondStepProof(db: IdentityExecutor, box: SecretBox, account: string, proof: Exclude<SecondStepProof, { passkey: unknown }>, now: Date): Promise<{ kind: 'totp' | 'recovery-code' } | null> {
  if ('recoveryCode' in proof) {
    const [used] = await db
      .update(recoveryCodes)
      .set({ usedAt: now })
      .where(and(eq(recoveryCodes.account, account), eq(recoveryCodes.codeHash, hashToken(normalizeRecoveryCode(proof.recoveryCode))), isNull(recoveryCodes.usedAt)))
      .returning({ id: recoveryCodes.id });
    return used ? { kind: 'recovery-code' } : null;
  }
  const [factor] = await db
    .select({ id: secondFactors.id, sealed: secondFactors.totpSecretSealed })
    .from(secondFactors)
    .where(and(eq(secondFactors.account, account), eq(secondFactors.kind, 'totp'), isNotNull(secondFactors.confirmedAt)));
  if (!factor?.sealed) return null;
  const step = matchingTotpStep(box.decrypt(factor.sealed, factor.id), proof.code, now);
  if (step === null) return null;
  const [accepted] = await db
    .update(secondFactors)
    .set({ totpLastStep: step, lastUsedAt: now })
    .where(and(eq(secondFactors.id, factor.id), or(isNull(secondFactors.totpLastStep), lt(secondFactors.totpLastStep, step))))
    .returning({ id: secondFactors.id });
  return accepted ? { kind: 'totp' } : null;
}
