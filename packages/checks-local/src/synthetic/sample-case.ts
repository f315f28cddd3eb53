import { generateSyntheticDocument } from './documents.js';
import { stillPhotoClip } from './video.js';
import { SAMPLE_FACES, sampleFaceJpeg } from './video-sample-faces.js';

export interface SampleCase {
  /** File name → bytes, named after what the bytes are (upload sniffing checks the type). */
  files: Record<string, Buffer>;
  /** The passport's fields as a perfect read returns them. */
  expectedFields: Record<string, string>;
}

/**
 * The sample live case of `pnpm --filter @svc/checks-local samples`: a synthetic Syrian passport,
 * photographed as a phone would (JPEG), with a face from Human's sample photos; a selfie of the same
 * man; and a selfie video made from one still photo, which the liveness check must flag as a replay.
 * The passport was issued a year before `now` and is valid for six, so it is never expired (identity
 * sends an expired document to review, which is not what this sample is for).
 */
export async function sampleCase(now: Date = new Date()): Promise<SampleCase> {
  const [portraitFace, selfieFace] = SAMPLE_FACES.filter((face) => face.person === 'person-a');
  if (!portraitFace || !selfieFace) throw new Error('the sample faces of @vladmandic/human are missing');
  const issued = new Date(now);
  issued.setUTCFullYear(issued.getUTCFullYear() - 1);
  const expires = new Date(issued);
  expires.setUTCFullYear(issued.getUTCFullYear() + 6);
  const passport = await generateSyntheticDocument({
    documentType: 'SyrianPassport',
    seed: 2026,
    holder: { dateOfIssue: issued.toISOString().slice(0, 10), expiryDate: expires.toISOString().slice(0, 10) },
    degradation: { jpegQuality: 90 },
    portrait: await sampleFaceJpeg(portraitFace, { scale: 3, margin: 0.4 }),
  });
  return {
    files: {
      'passport.jpg': passport.front.bytes, // jpegQuality makes it a JPEG
      'selfie.jpg': await sampleFaceJpeg(selfieFace, { scale: 3, margin: 0.4 }),
      'selfie-video.mp4': await stillPhotoClip({ container: 'mp4' }),
    },
    expectedFields: passport.expectedFields,
  };
}
