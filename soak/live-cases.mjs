// The live tenant's trickle: cases of a non-sandbox tenant driven through capture with synthetic
// evidence the on-CPU checks (CHECKS_PROVIDER=local) can read, one case in flight at a time, since
// each costs seconds of CPU on the machine the whole fleet shares. The material comes from
// @svc/checks-local's generators at setup (canvas, Human's sample faces, ffmpeg), never from
// committed binaries: passports of invented holders with person-a's portrait, a selfie of the
// same man, and two videos taken in turn: one still photo filmed (a replay, which the checks must
// reject) and person-a's photos spliced (no replay, but no blink either: a person reviews it).
// A case in review gets an OCR field corrected and stays there, waiting for a reviewer.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../bench/out-of-process.mjs';
import { captureEvidence, correctOcrField, createCase, waitForDecision } from './identity-load.mjs';
import { evidenceUpload } from './traffic.mjs';

/** Distinct holders before a passport number comes round again (a reused number is itself a reason for review). */
const PASSPORTS = 6;
/** A case waits this long for its decision: the models load on a worker's first live case, and after every restart. */
const DECISION_TIMEOUT_MS = 300_000;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The live cases' evidence, made once before the load starts (a few seconds of CPU). */
export async function liveEvidence(now = new Date()) {
  // The built workspace package (pnpm build), as its own dist resolves canvas and Human.
  const synthetic = await import(pathToFileURL(join(root, 'packages', 'checks-local', 'dist', 'synthetic', 'index.js')).href);
  const [portraitFace, selfieFace] = synthetic.SAMPLE_FACES.filter((face) => face.person === 'person-a');
  const portrait = await synthetic.sampleFaceJpeg(portraitFace, { scale: 3, margin: 0.4 });
  // Issued a year ago, valid for six: never expired (an expired passport is a reason for review of its own).
  const issued = new Date(now);
  issued.setUTCFullYear(issued.getUTCFullYear() - 1);
  const expires = new Date(issued);
  expires.setUTCFullYear(issued.getUTCFullYear() + 6);
  const holder = { dateOfIssue: issued.toISOString().slice(0, 10), expiryDate: expires.toISOString().slice(0, 10) };
  const passports = [];
  for (let seed = 1; seed <= PASSPORTS; seed += 1) {
    const document = await synthetic.generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 500 + seed, holder, degradation: { jpegQuality: 90 }, portrait });
    passports.push(document.front.bytes);
  }
  return {
    passports,
    selfie: await synthetic.sampleFaceJpeg(selfieFace, { scale: 3, margin: 0.4 }),
    videos: [
      { name: 'replay', bytes: await synthetic.stillPhotoClip({ container: 'mp4', seconds: 3 }) },
      { name: 'spliced', bytes: await synthetic.controlClip({ container: 'mp4', seconds: 3 }) },
    ],
  };
}

/**
 * One live case after another until `running()` turns false, each waited for until it is
 * decided or in review; what it came to is counted in `context.live` by video, and every case
 * submitted is remembered for the invariant.
 */
export async function liveLane(context, evidence) {
  for (let index = 0; context.running(); index += 1) {
    const video = evidence.videos[index % evidence.videos.length];
    const created = await createCase(context, `soak-live-${index}`, `soak live ${index} (${video.name} video)`, false);
    if (!created) {
      await pause(1000);
      continue;
    }
    const uploads = [
      { evidenceType: 'DocumentFront', fileName: 'passport.jpg', type: 'image/jpeg', bytes: evidence.passports[index % evidence.passports.length] },
      { evidenceType: 'Selfie', fileName: 'selfie.jpg', type: 'image/jpeg', bytes: evidence.selfie },
      { evidenceType: 'LivenessVideo', fileName: 'selfie.mp4', type: 'video/mp4', bytes: video.bytes },
    ].map(evidenceUpload);
    if (!(await captureEvidence(context, created.sessionToken, uploads, { consent: true }))) continue;
    context.live.submitted.push(created.caseId);
    // Not bounded by the run: a case submitted near its end is still waited for, as the drain waits for its job.
    const status = await waitForDecision(context, created.caseId, { timeoutMs: DECISION_TIMEOUT_MS, boundedByRun: false });
    const tally = (context.live.outcomes[video.name] ??= {});
    tally[status ?? 'not settled in time'] = (tally[status ?? 'not settled in time'] ?? 0) + 1;
    if (status === 'PendingManualReview') await correctOcrField(context, created.caseId);
  }
}
