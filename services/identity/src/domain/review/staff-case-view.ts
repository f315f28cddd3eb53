import { NotFoundError, ProblemError } from '@svc/problem-json';
import { eq } from 'drizzle-orm';
import { evidence, tenants, verificationCases, type IdentityExecutor } from '../../db/schema.js';
import { writeAudit } from '../common/audit.js';
import { caseHistory } from '../cases/case-history.js';
import { getCaseDetail } from '../cases/read-cases.js';
import { openEvidenceDownload } from '../evidence/evidence-download.js';
import type { EvidenceVault } from '../evidence/evidence-vault.js';
import type { StaffPrincipal } from '../accounts/staff.js';
import { claimHolderOf } from './claims.js';
import { compareOcrWithMrz } from './mrz-comparison.js';
import { FramesUnavailableError, type FrameStrips } from './liveness-frames.js';

async function tenantOfCase(db: IdentityExecutor, caseId: string) {
  const [row] = await db
    .select({ tenantId: verificationCases.tenantId, tenantName: tenants.name })
    .from(verificationCases)
    .innerJoin(tenants, eq(tenants.id, verificationCases.tenantId))
    .where(eq(verificationCases.id, caseId));
  if (!row) throw new NotFoundError(`No verification case with id ${caseId}.`);
  return row;
}

/**
 * Everything a reviewer weighs, in one answer: the partner's case detail (evidence, check
 * results, signals, decisions), its timeline, its tenant and the live claim. Staff read across
 * tenants, so the tenant comes from the case itself; the look is audited with the staff actor.
 */
export async function staffCaseView(db: IdentityExecutor, caseId: string, staff: StaffPrincipal, correlationId: string, now: Date) {
  const { tenantId, tenantName } = await tenantOfCase(db, caseId);
  const [detail, history, claim] = await Promise.all([getCaseDetail(db, tenantId, caseId), caseHistory(db, tenantId, caseId), claimHolderOf(db, caseId, now)]);
  await writeAudit(db, { tenantId, actor: `staff:${staff.staffId}`, action: 'review.case_viewed', target: `case:${caseId}`, correlationId }, now);
  const mrzComparison = detail.ocrResult ? compareOcrWithMrz(detail.ocrResult.extractedFieldsJson, detail.ocrResult.mrzRawText, now) : [];
  return { case: detail, tenant: { id: tenantId, name: tenantName }, timeline: history.data, claim, mrzComparison };
}

/** An evidence file for a reviewer: the partner download's own checks and audit row, with the staff actor. */
export async function openStaffEvidence(db: IdentityExecutor, storage: EvidenceVault, evidenceId: string, staff: StaffPrincipal, correlationId: string, now: Date) {
  const [row] = await db.select({ tenantId: evidence.tenantId }).from(evidence).where(eq(evidence.id, evidenceId));
  if (!row) throw new NotFoundError(`No evidence with id ${evidenceId}.`);
  return openEvidenceDownload(db, storage, row.tenantId, evidenceId, { actor: `staff:${staff.staffId}`, correlationId }, now);
}

/** The liveness video's stills for a reviewer: audited like the video itself, made once per video. */
export async function staffLivenessFrames(db: IdentityExecutor, storage: EvidenceVault, strips: FrameStrips, evidenceId: string, staff: StaffPrincipal, correlationId: string, now: Date): Promise<Buffer> {
  const [row] = await db.select().from(evidence).where(eq(evidence.id, evidenceId));
  if (!row || row.evidenceType !== 'LivenessVideo') throw new NotFoundError(`No liveness video with evidence id ${evidenceId}.`);
  await writeAudit(db, { tenantId: row.tenantId, actor: `staff:${staff.staffId}`, action: 'evidence.frames_viewed', target: `evidence:${evidenceId}`, correlationId, after: { caseId: row.caseId } }, now);
  try {
    return await strips.get(row.sha256Hash, async () => (await storage.open(row)).body);
  } catch (error) {
    if (!(error instanceof FramesUnavailableError)) throw error;
    throw new ProblemError({ status: 422, code: 'FRAMES_UNAVAILABLE', title: 'Frames Unavailable', detail: `No stills could be made from liveness video ${evidenceId}; watch the video itself.` });
  }
}
