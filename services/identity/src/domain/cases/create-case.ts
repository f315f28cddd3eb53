import { createHash, randomUUID } from 'node:crypto';
import { CaseExistsError } from '@svc/problem-json';
import { and, eq, sql } from 'drizzle-orm';
import { caseSessions, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { generateOpaqueToken, hashToken } from '../common/credentials.js';
import type { DocumentType } from './case-states.js';
import { recordCaseEvent } from './case-transitions.js';
import { type CaseActor } from '../common/actor.js';

export const SESSION_TOKEN_PREFIX = 'svc_st_';

export interface CreateCaseInput {
  tenantId: string;
  documentType: DocumentType;
  externalReference: string | null;
  /** The Idempotency-Key header, or null (then a generated key: no retry protection, as the spec says). */
  idempotencyKey: string | null;
  /** Where the hosted capture page sends the user after submit, already validated. */
  returnUrl?: string | null;
}

export interface CreatedCase {
  caseId: string;
  sessionToken: string;
  status: 'SessionIssued';
  expiresAt: Date;
}

/** What makes two creation requests "the same body" for idempotency. */
function fingerprint(input: CreateCaseInput): string {
  return createHash('sha256')
    // returnUrl joins the list only when given, so keys stored before it existed still replay.
    .update(JSON.stringify(input.returnUrl ? [input.documentType, input.externalReference, input.returnUrl] : [input.documentType, input.externalReference]))
    .digest('hex');
}

/**
 * Creates a case born SessionIssued with its one-time session, audit row and
 * `verification.session_issued` event, in the caller's transaction.
 *
 * Idempotency: the key is unique per tenant in the database, so concurrent requests with one
 * key cannot make two cases; the losers wait for the winner's commit (ON CONFLICT) and then
 * see its row. The same key and body while the session is unused and unexpired returns the
 * same case with a freshly issued session token (only the newest works: the old one cannot
 * be shown again, so it is replaced); a different body, a used or expired session, or a case
 * that moved on is 409 CASE_EXISTS naming the case.
 */
export async function createCase(tx: IdentityExecutor, input: CreateCaseInput, actor: CaseActor, options: { sessionTtlSeconds: number; now: Date }): Promise<CreatedCase> {
  const { now } = options;
  const requestFingerprint = fingerprint(input);
  const sessionToken = generateOpaqueToken(SESSION_TOKEN_PREFIX, 32);
  const [inserted] = await tx
    .insert(verificationCases)
    .values({
      tenantId: input.tenantId,
      externalReference: input.externalReference,
      returnUrl: input.returnUrl ?? null,
      documentType: input.documentType,
      status: 'SessionIssued',
      sandbox: sql<boolean>`(select ${tenants.sandbox} from ${tenants} where ${tenants.id} = ${input.tenantId})`,
      idempotencyKey: input.idempotencyKey ?? `generated:${randomUUID()}`,
      requestFingerprint,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: [verificationCases.tenantId, verificationCases.idempotencyKey] })
    .returning();

  if (inserted) {
    const expiresAt = new Date(now.getTime() + options.sessionTtlSeconds * 1000);
    await tx.insert(caseSessions).values({ caseId: inserted.id, tenantId: input.tenantId, sessionTokenHash: hashToken(sessionToken), expiresAt });
    await writeAudit(
      tx,
      {
        tenantId: input.tenantId,
        actor: actor.actor,
        action: 'verification.created',
        target: `case:${inserted.id}`,
        correlationId: actor.correlationId ?? null,
        after: { status: inserted.status, documentType: inserted.documentType, externalReference: inserted.externalReference, idempotencyKey: input.idempotencyKey },
      },
      now,
    );
    await recordCaseEvent(tx, inserted, now);
    return { caseId: inserted.id, sessionToken, status: 'SessionIssued', expiresAt };
  }

  // The key exists (idempotencyKey is non-null here: generated keys never collide); lock its case.
  const [locked] = await tx
    .select()
    .from(verificationCases)
    .where(and(eq(verificationCases.tenantId, input.tenantId), eq(verificationCases.idempotencyKey, input.idempotencyKey ?? '')))
    .for('update');
  if (!locked) throw new Error('idempotency conflict without a visible case');
  const [session] = await tx.select().from(caseSessions).where(eq(caseSessions.caseId, locked.id)).for('update');
  const replayable =
    locked.requestFingerprint === requestFingerprint && locked.status === 'SessionIssued' && session && session.usedAt === null && session.expiresAt.getTime() > now.getTime();
  if (!replayable || !session) throw new CaseExistsError(locked.id);
  await tx.update(caseSessions).set({ sessionTokenHash: hashToken(sessionToken) }).where(eq(caseSessions.id, session.id));
  await writeAudit(
    tx,
    { tenantId: input.tenantId, actor: actor.actor, action: 'verification.session_reissued', target: `case:${locked.id}`, correlationId: actor.correlationId ?? null },
    now,
  );
  return { caseId: locked.id, sessionToken, status: 'SessionIssued', expiresAt: session.expiresAt };
}
