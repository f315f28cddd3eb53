import { eq } from 'drizzle-orm';
import { tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { lockCase } from '../cases/case-transitions.js';
import type { CaseStatus } from '../cases/case-states.js';
import { assertCapturing, endUserActor, type CaptureSession } from './capture-sessions.js';

/** The languages the hosted capture page speaks (ISO 639: Arabic, English, Kurdish Sorani, Kurmanji). */
export const CAPTURE_LANGUAGES = ['ar', 'en', 'ckb', 'kmr'] as const;
export type CaptureLanguage = (typeof CAPTURE_LANGUAGES)[number];

/** A user agent is free text from the client: kept short enough to read and to store. */
const USER_AGENT_MAX = 500;

/**
 * The end user agreed to the capture. A later call records again (the language may have
 * changed after a reload); each is audited, the case keeps the latest.
 */
export async function recordConsent(tx: IdentityExecutor, session: CaptureSession, consent: { language: CaptureLanguage; userAgent: string | undefined }, options: { correlationId: string; now: Date }) {
  const locked = await lockCase(tx, session.caseId, session.tenantId);
  assertCapturing({ caseId: locked.id, status: locked.status as CaseStatus, expiresAt: session.expiresAt }, options.now);
  const userAgent = consent.userAgent ? consent.userAgent.slice(0, USER_AGENT_MAX) : null;
  await tx
    .update(verificationCases)
    .set({ consentGivenAt: options.now, consentLanguage: consent.language, consentUserAgent: userAgent })
    .where(eq(verificationCases.id, locked.id));
  const { actor, correlationId } = endUserActor(session.sessionId, options.correlationId);
  await writeAudit(tx, { tenantId: session.tenantId, actor, action: 'verification.consent_given', target: `case:${locked.id}`, correlationId, after: { language: consent.language } }, options.now);
}

/** What the capture page shows beside the evidence: who asks, where to go after, whether consent is on record. */
export async function captureContext(db: IdentityExecutor, caseId: string) {
  const [row] = await db
    .select({ tenantName: tenants.name, returnUrl: verificationCases.returnUrl, consentGivenAt: verificationCases.consentGivenAt })
    .from(verificationCases)
    .innerJoin(tenants, eq(tenants.id, verificationCases.tenantId))
    .where(eq(verificationCases.id, caseId));
  if (!row) throw new Error(`case ${caseId} vanished under its capture token`);
  return { tenantName: row.tenantName, returnUrl: row.returnUrl, consentGiven: row.consentGivenAt !== null };
}
