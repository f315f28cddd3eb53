import { enqueueJobs, notifyWorkers } from '@svc/outbox';
import { ValidationError } from '@svc/problem-json';
import { jobs, type IdentityExecutor } from '../../db/schema.js';
import { REQUIRED_EVIDENCE, type CaseStatus, type EvidenceType } from '../cases/case-states.js';
import { lockCase, transitionCase } from '../cases/case-transitions.js';
import { currentEvidence } from '../cases/read-cases.js';
import { JOBS_CHANNEL, RUN_CHECKS_JOB } from '../jobs/job-kinds.js';
import { LIVENESS_CHALLENGE } from '@svc/checks-local/contract';
import { assertCapturing, endUserActor, type CaptureSession } from './capture-sessions.js';

/**
 * The end user is done: with every required piece present the case moves to EvidenceUploaded
 * and its run-checks job is queued in the same transaction (the move and the work it
 * promises commit together). Missing pieces are a 400 naming them.
 */
export async function submitEvidence(
  tx: IdentityExecutor,
  session: CaptureSession,
  options: { correlationId: string; now: Date; checksAttempts: number },
): Promise<{ caseId: string; status: CaseStatus }> {
  const { correlationId, now } = options;
  const locked = await lockCase(tx, session.caseId, session.tenantId);
  assertCapturing({ caseId: locked.id, status: locked.status as CaseStatus, expiresAt: session.expiresAt }, now);
  const uploaded = new Set((await currentEvidence(tx, locked.id)).map((item) => item.evidenceType));
  const missing = REQUIRED_EVIDENCE[session.documentType].filter((type) => !uploaded.has(type));
  if (missing.length > 0) {
    throw new ValidationError(
      `Evidence is missing: ${missing.join(', ')}. A ${session.documentType} case needs ${REQUIRED_EVIDENCE[session.documentType].join(', ')}.`,
      missing.map((type) => ({ path: `evidence.${type}`, message: 'not uploaded yet' })),
    );
  }
  const updated = await transitionCase(tx, locked, { trigger: 'submit-evidence', action: 'be submitted', actor: endUserActor(session.sessionId, correlationId), now });
  await enqueueJobs(tx, jobs, [{ kind: RUN_CHECKS_JOB, subjectId: locked.id, payload: JSON.stringify({ caseId: locked.id, tenantId: locked.tenantId }), maxAttempts: options.checksAttempts }], now);
  await notifyWorkers(tx, JOBS_CHANNEL);
  return { caseId: updated.id, status: updated.status as CaseStatus };
}

/** What a mobile app needs to resume: what is uploaded, what is missing, where the case stands. */
export async function captureStatus(db: IdentityExecutor, session: CaptureSession) {
  const required = REQUIRED_EVIDENCE[session.documentType];
  const items = await currentEvidence(db, session.caseId);
  const uploadedTypes = new Set(items.map((item) => item.evidenceType));
  return {
    caseId: session.caseId,
    status: session.status,
    documentType: session.documentType,
    expiresAt: session.expiresAt.toISOString(),
    requiredEvidence: [...required] as EvidenceType[],
    uploaded: items.map((item) => ({
      evidenceId: item.id,
      evidenceType: item.evidenceType as EvidenceType,
      contentType: item.contentType,
      fileSizeBytes: item.fileSizeBytes,
      sha256Hash: item.sha256Hash,
      uploadedAt: item.uploadedAt.toISOString(),
    })),
    missing: required.filter((type) => !uploadedTypes.has(type)),
    livenessChallenge: {
      ...LIVENESS_CHALLENGE,
      headTurnSide: session.livenessTurnSide,
      instructions: session.livenessTurnSide
        ? `Hold the phone at eye level with only your face in view. Record for 6 seconds: look at the camera, blink once, then slowly turn your head to your ${session.livenessTurnSide} and back.`
        : LIVENESS_CHALLENGE.instructions,
    },
  };
}
