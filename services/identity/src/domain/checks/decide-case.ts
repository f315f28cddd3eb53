import { nameDisagreements } from '@svc/checks-local';
import type { FaceMatchAnswer, LivenessAnswer, OcrAnswer } from './checks-provider.js';

export interface CheckThresholds {
  ocrConfidence: number;
  faceSimilarity: number;
  liveness: number;
  /** Face similarity below this rejects (default 0.5): lower for a provider whose genuine pairs can score under 0.5. */
  faceRejectBelow?: number;
}

export interface FraudSignalFinding {
  type: string;
  severity: 'low' | 'medium' | 'high';
  detail: string;
}

export type CheckDecision = { trigger: 'approve' | 'reject' | 'flag-for-review'; compositeRiskScore: number; decisionReason: string };

/** Scores below this are no borderline case: they reject outright (face: CheckThresholds.faceRejectBelow). */
const REJECT_BELOW = 0.5;
const fixed = (value: number) => value.toFixed(2);

/**
 * What the answers themselves reveal on the day of the decision; later checks (MRZ digits, reused
 * documents) add theirs.
 */
export function fraudSignalsOf(ocr: OcrAnswer, liveness: LivenessAnswer, now: Date, applicant: ApplicantLatinName | null = null): FraudSignalFinding[] {
  const found: FraudSignalFinding[] = [];
  if (liveness.presentationAttackDetected) {
    found.push({ type: 'PresentationAttack', severity: 'high', detail: `The liveness check detected a presentation attack${liveness.attackType ? ` (${liveness.attackType})` : ''}.` });
  }
  if (ocr.hasManipulationIndicators) found.push({ type: 'DocumentManipulation', severity: 'high', detail: 'The document image shows signs of manipulation.' });
  const expiry = calendarDay(ocr.fields.expiryDate);
  // Medium, so a person decides: the date may be misread, and a partner may accept an expired document where its rules allow.
  if (expiry && expiry < now.toISOString().slice(0, 10)) found.push({ type: 'DocumentExpired', severity: 'medium', detail: `The document expired on ${expiry}.` });
  found.push(...nameMismatchSignals(ocr.fields, applicant));
  return found;
}

/** The applicant's Latin name as the partner gave it when creating the case. */
export interface ApplicantLatinName {
  givenNames: string | null;
  surname: string | null;
}

/**
 * The document's Arabic first name and surname against every Latin spelling the case has: the
 * document's own MRZ (a passport) and the name the partner supplied. Medium: a clear Arabic/Latin
 * contradiction needs a person, and may still be a misreading; an uncertain comparison raises nothing.
 */
export function nameMismatchSignals(fields: Record<string, string>, applicant: ApplicantLatinName | null = null): FraudSignalFinding[] {
  const arabic = { firstNameAr: fields.firstNameAr, surnameAr: fields.surnameAr };
  const sources = [
    { whose: 'the MRZ', latin: { givenNames: fields.givenNames, surname: fields.surname } },
    { whose: "the partner's record", latin: { givenNames: applicant?.givenNames ?? undefined, surname: applicant?.surname ?? undefined } },
  ];
  return sources.flatMap(({ whose, latin }) =>
    nameDisagreements({ ...arabic, ...latin }).map((mismatch) => {
      const what = mismatch.field === 'surnameAr' ? 'surname' : 'first name';
      return { type: 'name_mismatch', severity: 'medium' as const, detail: `The Arabic ${what} ${mismatch.arabic} does not match the Latin ${what} ${mismatch.latin} in ${whose}.` };
    }),
  );
}

/** `YYYY-MM-DD` when the text is exactly a real calendar day (Date would roll 2025-02-30 over to March), else null. */
function calendarDay(text: string | undefined): string | null {
  const day = text?.trim() ?? '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const parsed = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === day ? day : null;
}

/**
 * compositeRiskScore = round(100 × (1 − (0.2·ocr + 0.4·face + 0.4·liveness))), at least 90 with
 * any high-severity fraud signal: 0 is no risk, 100 the most. Face and liveness weigh more than
 * OCR confidence because they are what ties the document to a live person.
 * The decision: a presentation attack, manipulation, or any score below 0.5 rejects; every score
 * at or above its threshold with no fraud signal approves; anything else goes to manual review.
 */
export function decideCase(answers: { ocr: OcrAnswer; faceMatch: FaceMatchAnswer; liveness: LivenessAnswer }, thresholds: CheckThresholds, signals: FraudSignalFinding[]): CheckDecision {
  const scores = [
    { name: 'document OCR confidence', value: answers.ocr.confidenceScore, threshold: thresholds.ocrConfidence, rejectBelow: REJECT_BELOW },
    { name: 'face similarity', value: answers.faceMatch.similarityScore, threshold: thresholds.faceSimilarity, rejectBelow: thresholds.faceRejectBelow ?? REJECT_BELOW },
    { name: 'liveness', value: answers.liveness.livenessScore, threshold: thresholds.liveness, rejectBelow: REJECT_BELOW },
  ];
  const weighted = 0.2 * scores[0]!.value + 0.4 * scores[1]!.value + 0.4 * scores[2]!.value;
  const base = Math.round(100 * (1 - weighted));
  const compositeRiskScore = signals.some((signal) => signal.severity === 'high') ? Math.max(base, 90) : base;
  const rejecting = [
    ...signals.filter((signal) => signal.type === 'PresentationAttack' || signal.type === 'DocumentManipulation').map((signal) => signal.detail.replace(/\.$/, '')),
    ...scores.filter((score) => score.value < score.rejectBelow).map((score) => `${score.name} ${fixed(score.value)} is below ${fixed(score.rejectBelow)}`),
  ];
  if (rejecting.length > 0) return { trigger: 'reject', compositeRiskScore, decisionReason: `Rejected: ${rejecting.join('; ')}.` };
  const short = scores.filter((score) => score.value < score.threshold);
  if (short.length === 0 && signals.length === 0) {
    return { trigger: 'approve', compositeRiskScore, decisionReason: `Approved: ${scores.map((score) => `${score.name} ${fixed(score.value)} ≥ ${fixed(score.threshold)}`).join(', ')}.` };
  }
  const reasons = [...short.map((score) => `${score.name} ${fixed(score.value)} is below its threshold ${fixed(score.threshold)}`), ...signals.map((signal) => signal.detail.replace(/\.$/, ''))];
  return { trigger: 'flag-for-review', compositeRiskScore, decisionReason: `Manual review: ${reasons.join('; ')}.` };
}
