import { ProblemError, UnauthenticatedError } from '@svc/problem-json';
import { randomInt } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { caseSessions, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { generateOpaqueToken, hashToken } from '@svc/accounts';
import { GoneProblem } from '../common/problems.js';
import { isTerminal, REQUIRED_EVIDENCE, type CaseStatus, type DocumentType, type EvidenceType } from '../cases/case-states.js';
import { InvalidCaseStateError, lockCase, transitionCase } from '../cases/case-transitions.js';

export const CAPTURE_TOKEN_PREFIX = 'svc_ct_';
const SESSION_TOKEN_SHAPE = /^svc_st_[0-9a-f]{64}$/;
const CAPTURE_TOKEN_SHAPE = /^svc_ct_[0-9a-f]{64}$/;

export class SessionAlreadyUsedError extends ProblemError {
  constructor() {
    super({
      status: 401,
      code: 'SESSION_ALREADY_USED',
      title: 'Session Already Used',
      detail: 'This session token was already exchanged for a capture token; it works once. Continue with the capture token, or ask the partner for a new verification.',
    });
  }
}

function sessionExpired(expiresAt: Date): GoneProblem {
  return new GoneProblem('SESSION_EXPIRED', `The verification session expired at ${expiresAt.toISOString()}. Ask the partner for a new verification.`, {
    expiresAt: expiresAt.toISOString(),
  });
}

function caseClosed(caseId: string, status: CaseStatus): GoneProblem {
  return new GoneProblem('CASE_CLOSED', `The verification case is ${status}; nothing more can be captured for it.`, { caseId, currentStatus: status });
}

export interface CaptureSession {
  sessionId: string;
  caseId: string;
  tenantId: string;
  documentType: DocumentType;
  status: CaseStatus;
  expiresAt: Date;
  /** A sandbox case is decided by the simulator, whatever its photos show. */
  sandbox: boolean;
  /** The side the liveness video must turn to (drawn at the exchange). */
  livenessTurnSide: 'left' | 'right' | null;
}

export function endUserActor(sessionId: string, correlationId: string) {
  return { actor: `end-user:${sessionId}`, correlationId };
}

/**
 * The one-time exchange of the partner-issued session token for a capture token: marks the
 * session used and moves the case to CaptureStarted, in one transaction. The capture token
 * lives as long as the session (its expiry bounds submission; see docs/decisions/0089-tokens.md).
 */
export async function exchangeSessionToken(tx: IdentityExecutor, sessionToken: string, correlationId: string, now: Date) {
  if (!SESSION_TOKEN_SHAPE.test(sessionToken)) throw new UnauthenticatedError('Send the session token from the partner as Authorization: Bearer svc_st_….');
  const [session] = await tx.select().from(caseSessions).where(eq(caseSessions.sessionTokenHash, hashToken(sessionToken))).for('update');
  if (!session) throw new UnauthenticatedError('Unknown session token (a newer one may have replaced it).');
  const locked = await lockCase(tx, session.caseId, session.tenantId);
  const status = locked.status as CaseStatus;
  if (isTerminal(status)) throw caseClosed(locked.id, status);
  if (session.usedAt) throw new SessionAlreadyUsedError();
  if (session.expiresAt.getTime() <= now.getTime()) throw sessionExpired(session.expiresAt);
  const captureToken = generateOpaqueToken(CAPTURE_TOKEN_PREFIX, 32);
  await tx.update(caseSessions).set({ usedAt: now, captureTokenHash: hashToken(captureToken) }).where(eq(caseSessions.id, session.id));
  // Drawn once per case, unpredictably, so a video recorded in advance turns the wrong way half the
  // time; a reissued session keeps the side already shown to the user.
  if (!locked.livenessTurnSide) await tx.update(verificationCases).set({ livenessTurnSide: randomInt(2) === 0 ? 'left' : 'right' }).where(eq(verificationCases.id, locked.id));
  await transitionCase(tx, locked, { trigger: 'start-capture', action: 'start capture', actor: endUserActor(session.id, correlationId), now });
  const documentType = locked.documentType as DocumentType;
  return {
    captureToken,
    caseId: locked.id,
    documentType,
    requiredEvidence: [...REQUIRED_EVIDENCE[documentType]] as EvidenceType[],
    expiresAt: session.expiresAt.toISOString(),
  };
}

/**
 * What an unexchanged session token is for, without using it: the capture page shows who asks
 * before the user agrees to start. The same refusals as the exchange, so a used, expired or
 * closed link says so at once instead of after the user has read the welcome.
 */
export async function previewSessionToken(db: IdentityExecutor, sessionToken: string, now: Date) {
  if (!SESSION_TOKEN_SHAPE.test(sessionToken)) throw new UnauthenticatedError('Send the session token from the partner as Authorization: Bearer svc_st_….');
  const [row] = await db
    .select({ session: caseSessions, status: verificationCases.status, documentType: verificationCases.documentType, tenantName: tenants.name })
    .from(caseSessions)
    .innerJoin(verificationCases, eq(verificationCases.id, caseSessions.caseId))
    .innerJoin(tenants, eq(tenants.id, caseSessions.tenantId))
    .where(eq(caseSessions.sessionTokenHash, hashToken(sessionToken)));
  if (!row) throw new UnauthenticatedError('Unknown session token (a newer one may have replaced it).');
  const status = row.status as CaseStatus;
  if (isTerminal(status)) throw caseClosed(row.session.caseId, status);
  if (row.session.usedAt) throw new SessionAlreadyUsedError();
  if (row.session.expiresAt.getTime() <= now.getTime()) throw sessionExpired(row.session.expiresAt);
  const documentType = row.documentType as DocumentType;
  return { tenantName: row.tenantName, documentType, requiredEvidence: [...REQUIRED_EVIDENCE[documentType]] as EvidenceType[], expiresAt: row.session.expiresAt.toISOString() };
}

/** Who holds this capture token. Status reads work on any case; changes check the state themselves. */
export async function authenticateCaptureToken(db: IdentityExecutor, captureToken: string | null): Promise<CaptureSession> {
  if (!captureToken || !CAPTURE_TOKEN_SHAPE.test(captureToken)) {
    throw new UnauthenticatedError('Send the capture token from POST /api/capture/v1/session as Authorization: Bearer svc_ct_….');
  }
  const [row] = await db
    .select({ session: caseSessions, status: verificationCases.status, documentType: verificationCases.documentType, sandbox: verificationCases.sandbox, livenessTurnSide: verificationCases.livenessTurnSide })
    .from(caseSessions)
    .innerJoin(verificationCases, eq(verificationCases.id, caseSessions.caseId))
    .where(eq(caseSessions.captureTokenHash, hashToken(captureToken)));
  if (!row) throw new UnauthenticatedError('Unknown capture token.');
  return {
    sessionId: row.session.id,
    caseId: row.session.caseId,
    tenantId: row.session.tenantId,
    documentType: row.documentType as DocumentType,
    status: row.status as CaseStatus,
    expiresAt: row.session.expiresAt,
    sandbox: row.sandbox,
    livenessTurnSide: row.livenessTurnSide,
  };
}

/** Changes (uploads, submit) need the case still capturing and the session unexpired. */
export function assertCapturing(session: Pick<CaptureSession, 'caseId' | 'status' | 'expiresAt'>, now: Date): void {
  if (isTerminal(session.status)) throw caseClosed(session.caseId, session.status);
  if (session.expiresAt.getTime() <= now.getTime()) throw sessionExpired(session.expiresAt);
  if (session.status !== 'CaptureStarted') throw new InvalidCaseStateError(session.caseId, session.status, 'take evidence (it was already submitted)');
}
