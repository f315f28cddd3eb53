import type { QualityHints } from '@svc/checks-local';
import type { DocumentType, EvidenceType } from '../cases/case-states.js';

/** Why the page should ask for the photo again. */
export const QUALITY_REASONS = ['MRZ_UNREADABLE', 'NO_FACE', 'SEVERAL_FACES'] as const;
export type QualityReason = (typeof QUALITY_REASONS)[number];

export interface UploadQuality {
  /** Whether the machine-readable zone read with a valid check digit; null when this piece carries none to read. */
  mrzReadable: boolean | null;
  /** Faces found with confidence; null when this piece is not a selfie. */
  faceCount: number | null;
  retake: boolean;
  reason: QualityReason | null;
}

type HintKind = { look: 'mrz'; side: 'front' | 'back' } | { look: 'face' };

/**
 * Which quick look fits a piece: the MRZ where the OCR will look for it (a passport's data page,
 * an ID card's back), faces on the selfie. An ID card's front and the video get none.
 */
export function hintKindOf(documentType: DocumentType, evidenceType: EvidenceType): HintKind | null {
  if (evidenceType === 'Selfie') return { look: 'face' };
  if (documentType === 'SyrianPassport' && evidenceType === 'DocumentFront') return { look: 'mrz', side: 'front' };
  if (documentType === 'SyrianNationalId' && evidenceType === 'DocumentBack') return { look: 'mrz', side: 'back' };
  return null;
}

function judged(kind: HintKind, answer: boolean | number): UploadQuality {
  if (kind.look === 'mrz') {
    const readable = answer as boolean;
    return { mrzReadable: readable, faceCount: null, retake: !readable, reason: readable ? null : 'MRZ_UNREADABLE' };
  }
  const faces = answer as number;
  const reason = faces === 0 ? 'NO_FACE' : faces > 1 ? 'SEVERAL_FACES' : null;
  return { mrzReadable: null, faceCount: faces, retake: reason !== null, reason };
}

/**
 * A quick look at one uploaded photo while the user can still take another, or null when there
 * is nothing to say in time: the look took longer than `budgetMs`, the engines were busy or
 * missing. The upload has been stored either way; a hint only advises, the case's checks decide.
 * Past the budget the look is abandoned: its checks slot is freed at once (a look still waiting for
 * the models never starts), so a case's checks never queue behind advice nobody will read.
 */
export async function qualityHint(
  hints: QualityHints,
  input: { documentType: DocumentType; evidenceType: EvidenceType; contentType: string; bytes: Buffer },
  budgetMs: number,
): Promise<UploadQuality | null> {
  const kind = hintKindOf(input.documentType, input.evidenceType);
  if (!kind) return null;
  const image = { contentType: input.contentType, bytes: input.bytes };
  const budget = new AbortController();
  const { signal } = budget;
  const look: Promise<boolean | number> =
    kind.look === 'mrz' ? hints.mrzReadable({ documentType: input.documentType, image, side: kind.side, signal }) : hints.faceCount({ image, signal });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      budget.abort();
      resolve(null);
    }, budgetMs);
  });
  try {
    const answer = await Promise.race([look, late]);
    return answer === null ? null : judged(kind, answer);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    // A look that fails after the budget has no one to hear it.
    look.catch(() => undefined);
  }
}
