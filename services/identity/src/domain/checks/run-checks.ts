import { PermanentJobError, type Job } from '@svc/outbox';
import { and, eq, ne, or } from 'drizzle-orm';
import { faceMatchResults, fraudSignals, livenessResults, ocrResults, type IdentityExecutor } from '../../db/schema.js';
import type { DocumentType, EvidenceType } from '../cases/case-states.js';
import { lockCase, transitionCase, type CaseRow } from '../cases/case-transitions.js';
import { withFieldsToConfirm } from '../cases/fields-to-confirm.js';
import { currentEvidence, type EvidenceRow } from '../cases/read-cases.js';
import type { EvidenceVault } from '../evidence/evidence-vault.js';
import { ManualReviewRequiredError, TransientProviderError, type ChecksProvider, type EvidenceFile, type OcrAnswer } from './checks-provider.js';
import { decideCase, fraudSignalsOf, nameMismatchSignals, type ApplicantLatinName, type CheckThresholds, type FraudSignalFinding } from './decide-case.js';
import { checkMrz, type MrzCheck } from './mrz.js';
import { SANDBOX_THRESHOLDS, sandboxOutcome, sandboxSimulator } from './sandbox-simulator.js';

export interface RunChecksOptions {
  db: IdentityExecutor;
  storage: EvidenceVault;
  /** The live tenants' provider; null when none is configured (their cases wait for a person). */
  provider: ChecksProvider | null;
  thresholds: CheckThresholds;
  clock: () => Date;
}

const ACTOR = { actor: 'system:checks' };

/**
 * Measures a provider call the way the result rows report it (when it answered, how long it
 * took). Only a TransientProviderError is worth another attempt; any other provider failure
 * (a refused request, an answer off its schema) fails the case now.
 */
type Timed<T> = { answer: T; at: Date; latencyMs: number };

async function timed<T>(clock: () => Date, check: string, call: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  try {
    const answer = await call();
    return { answer, at: clock(), latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (error instanceof TransientProviderError || error instanceof PermanentJobError || error instanceof ManualReviewRequiredError) throw error;
    const message = (error as Error).message;
    throw new PermanentJobError(message.toLowerCase().startsWith(check.toLowerCase()) ? message : `${check}: ${message}`);
  }
}

function evidenceFile(storage: EvidenceVault, row: EvidenceRow): EvidenceFile {
  return {
    evidenceType: row.evidenceType as EvidenceType,
    contentType: row.contentType,
    sizeBytes: row.fileSizeBytes,
    sha256Hex: row.sha256Hash,
    // The plaintext through the same authenticated path as downloads.
    open: async () => (await storage.open(row)).body,
  };
}

/**
 * Moves the case into AutomatedChecksRunning (or finds it there after a retry or a dead worker),
 * or answers null when there is nothing to do any more (decided, expired).
 */
async function startChecks(db: IdentityExecutor, caseId: string, now: Date): Promise<CaseRow | null> {
  return db.transaction(async (tx) => {
    const locked = await lockCase(tx, caseId, null);
    if (locked.status === 'EvidenceUploaded') return transitionCase(tx, locked, { trigger: 'start-checks', action: 'start automated checks', actor: ACTOR, now });
    return locked.status === 'AutomatedChecksRunning' ? locked : null;
  });
}

/** One decision per case: the second of two racing workers finds the case decided and changes nothing. */
async function settle(db: IdentityExecutor, caseId: string, apply: (tx: IdentityExecutor, locked: CaseRow) => Promise<void>): Promise<void> {
  await db.transaction(async (tx) => {
    const locked = await lockCase(tx, caseId, null);
    if (locked.status === 'AutomatedChecksRunning') await apply(tx, locked);
  });
}

/**
 * The run-checks job: EvidenceUploaded → AutomatedChecksRunning → Approved, Rejected or
 * PendingManualReview, with the OCR, face-match and liveness rows, fraud signals, score and
 * reason committed together with the decision. Sandbox cases go to the simulator, live ones to
 * the configured provider, and without one to a person. A TransientProviderError is thrown on
 * for the queue to retry; when the attempts run out, failCaseAfterChecks records Failed.
 */
export function createRunChecksHandler(options: RunChecksOptions): (job: Job) => Promise<void> {
  const { db, clock } = options;
  return async (job) => {
    const { caseId } = JSON.parse(job.payload) as { caseId: string };
    const running = await startChecks(db, caseId, clock());
    if (!running) return;
    const provider = running.sandbox ? sandboxSimulator : options.provider;
    const thresholds = running.sandbox ? SANDBOX_THRESHOLDS : options.thresholds;
    if (!provider) {
      await settle(db, caseId, async (tx, locked) => {
        await transitionCase(tx, locked, {
          trigger: 'flag-for-review',
          action: 'go to manual review',
          actor: ACTOR,
          now: clock(),
          decision: { decisionReason: 'Automated checks are not configured for this service; a reviewer decides the case.' },
        });
      });
      return;
    }
    if (running.sandbox && sandboxOutcome(running.externalReference) === 'expire') {
      await settle(db, caseId, async (tx, locked) => {
        await transitionCase(tx, locked, { trigger: 'expire', action: 'expire', actor: ACTOR, now: clock(), decision: { decisionReason: 'Sandbox: simulated expiry (#expire).' } });
      });
      return;
    }
    const evidence = new Map((await currentEvidence(db, caseId)).map((row) => [row.evidenceType as EvidenceType, evidenceFile(options.storage, row)]));
    const front = evidence.get('DocumentFront');
    const selfie = evidence.get('Selfie');
    const video = evidence.get('LivenessVideo');
    if (!front || !selfie || !video) throw new Error(`case ${caseId} reached the checks without its required evidence`);
    const externalReference = running.externalReference;
    const readOf = (answer: OcrAnswer) => ocrFacts(answer, (number) => options.storage.keyRing.documentNumberDigest(number));
    let ocr: Timed<OcrAnswer> | null = null;
    let answers;
    try {
      ocr = await timed(clock, 'OCR', () => provider.ocr({ documentType: running.documentType as DocumentType, front, back: evidence.get('DocumentBack') ?? null, externalReference }));
      const faceMatch = await timed(clock, 'face match', () => provider.faceMatch({ document: front, selfie, externalReference }));
      const liveness = await timed(clock, 'liveness', () => provider.liveness({ video, document: front, externalReference, headTurnSide: running.livenessTurnSide }));
      answers = { ocr, faceMatch, liveness };
    } catch (error) {
      if (!(error instanceof ManualReviewRequiredError)) throw error;
      // No answer worth acting on (no face, no readable MRZ, a model or ffmpeg missing): a person decides.
      const read = ocr;
      await settle(db, caseId, async (tx, locked) => {
        // What the OCR read stays with the case: the reviewer needs it most when another check could not answer.
        if (read !== null) {
          await tx.insert(ocrResults).values(ocrRow(read, readOf(read.answer), caseId, locked.tenantId));
          const mismatches = nameMismatchSignals(read.answer.fields, applicantOf(locked));
          if (mismatches.length > 0) await tx.insert(fraudSignals).values(mismatches.map((signal) => ({ caseId, ...signal, detectedAt: clock() })));
        }
        await transitionCase(tx, locked, { trigger: 'flag-for-review', action: 'go to manual review', actor: ACTOR, now: clock(), decision: { decisionReason: `Manual review: ${error.reason.replace(/\.$/, '')}.` } });
      });
      return;
    }
    const { faceMatch, liveness } = answers;
    const read = answers.ocr;
    const facts = readOf(read.answer);
    await settle(db, caseId, async (tx, locked) => {
      const now = clock();
      const signals = [...fraudSignalsOf(read.answer, liveness.answer, now, applicantOf(locked)), ...(await signalsFromHistory(tx, locked, facts))];
      const decision = decideCase({ ocr: read.answer, faceMatch: faceMatch.answer, liveness: liveness.answer }, thresholds, signals);
      await tx.insert(ocrResults).values(ocrRow(read, facts, caseId, locked.tenantId));
      await tx.insert(faceMatchResults).values({
        caseId,
        ...faceMatch.answer,
        threshold: thresholds.faceSimilarity,
        isMatch: faceMatch.answer.similarityScore >= thresholds.faceSimilarity,
        inferenceTimestamp: faceMatch.at,
        inferenceLatencyMs: faceMatch.latencyMs,
      });
      await tx.insert(livenessResults).values({
        caseId,
        ...liveness.answer,
        threshold: thresholds.liveness,
        isLive: liveness.answer.livenessScore >= thresholds.liveness && !liveness.answer.presentationAttackDetected,
        inferenceTimestamp: liveness.at,
        inferenceLatencyMs: liveness.latencyMs,
      });
      if (signals.length > 0) await tx.insert(fraudSignals).values(signals.map((signal) => ({ caseId, ...signal, detectedAt: now })));
      await transitionCase(tx, locked, {
        trigger: decision.trigger,
        action: 'be decided',
        actor: ACTOR,
        now,
        decision: { compositeRiskScore: decision.compositeRiskScore, decisionReason: decision.decisionReason },
      });
    });
  };
}

/**
 * Signals that need more than the answers: MRZ check digits that do not add up, and a document
 * number already read on another case of the same tenant (one identity document, several people
 * or several attempts). Sandbox cases never compare against live ones: the tenant differs.
 */
async function signalsFromHistory(tx: IdentityExecutor, locked: CaseRow, found: { mrz: MrzCheck; documentNumber: string | null; documentNumberDigest: string | null }): Promise<FraudSignalFinding[]> {
  const signals: FraudSignalFinding[] = [];
  if (found.mrz.valid === false) signals.push({ type: 'MrzCheckDigitFailure', severity: 'medium', detail: `The MRZ does not validate (${found.mrz.failures.join('; ')}).` });
  if (found.documentNumber && found.documentNumberDigest) {
    const [other] = await tx
      .select({ caseId: ocrResults.caseId })
      .from(ocrResults)
      .where(
        and(
          eq(ocrResults.tenantId, locked.tenantId),
          // Rows from before digests keep the number itself until they are redacted.
          or(eq(ocrResults.documentNumberDigest, found.documentNumberDigest), eq(ocrResults.documentNumber, found.documentNumber)),
          ne(ocrResults.caseId, locked.id),
        ),
      )
      .limit(1);
    if (other) signals.push({ type: 'DocumentNumberReused', severity: 'medium', detail: `The document number was already read on case ${other.caseId}.` });
  }
  return signals;
}

const applicantOf = (row: CaseRow): ApplicantLatinName => ({ givenNames: row.applicantGivenNames, surname: row.applicantSurname });

/** The queue gave up on a run-checks job: the case ends Failed with the last error as its reason. */
export async function failCaseAfterChecks(tx: IdentityExecutor, job: Job, error: string, now: Date): Promise<void> {
  const { caseId } = JSON.parse(job.payload) as { caseId: string };
  const locked = await lockCase(tx, caseId, null);
  if (locked.status !== 'EvidenceUploaded' && locked.status !== 'AutomatedChecksRunning') return;
  await transitionCase(tx, locked, {
    trigger: 'fail',
    action: 'fail',
    actor: ACTOR,
    now,
    decision: { decisionReason: `Automated checks failed after ${job.attemptCount} attempt(s): ${error.slice(0, 500)}` },
  });
}

/** What the OCR answer says for the history checks and the stored row: the MRZ's verdict, the number and its keyed digest. */
function ocrFacts(answer: OcrAnswer, digest: (documentNumber: string) => string) {
  const documentNumber = answer.fields.documentNumber?.trim() || null;
  return { mrz: checkMrz(answer.mrzRawText), documentNumber, documentNumberDigest: documentNumber === null ? null : digest(documentNumber) };
}

/** The row keeps the number's digest only: the number itself lives in the fields, which redaction blanks. */
function ocrRow(ocr: Timed<OcrAnswer>, facts: ReturnType<typeof ocrFacts>, caseId: string, tenantId: string) {
  const { fields, fieldsToConfirm, ...ocrAnswer } = ocr.answer;
  return { caseId, tenantId, documentNumberDigest: facts.documentNumberDigest, ...ocrAnswer, extractedFieldsJson: JSON.stringify(withFieldsToConfirm(fields, fieldsToConfirm)), mrzIsValid: facts.mrz.valid, inferenceTimestamp: ocr.at, inferenceLatencyMs: ocr.latencyMs };
}
