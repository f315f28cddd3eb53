#!/usr/bin/env node
// The on-CPU checks as identity runs them: warm seconds per case (OCR + face match + liveness of a
// synthetic passport, a selfie and a selfie video), cases per minute with two at once, the peak
// RSS of the process, and accuracy on the synthetic set. Run after `pnpm build`, on a quiet machine:
//   node packages/checks-local/bench/checks-bench.mjs [--seeds 5]
// Prints a markdown table. Human's sample photos are read from node_modules, never committed.
import { performance } from 'node:perf_hooks';
import { createLocalChecks } from '../dist/index.js';
import { measureAccuracy } from '../dist/ocr/accuracy.js';
import { SAMPLE_FACES, generateSyntheticDocument, sampleFaceJpeg, stillPhotoClip, controlClip } from '../dist/synthetic/index.js';

const seedCount = Number(process.argv[process.argv.indexOf('--seeds') + 1]) || 5;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (value, digits = 2) => value.toFixed(digits);
const jpeg = (bytes) => ({ contentType: 'image/jpeg', bytes });

const checks = createLocalChecks();
const loadStarted = performance.now();
await checks.warm();
const loadSeconds = (performance.now() - loadStarted) / 1000;

const personA = SAMPLE_FACES.filter((face) => face.person === 'person-a');
const others = SAMPLE_FACES.filter((face) => face.person !== 'person-a');
const photo = (face) => sampleFaceJpeg(face, { scale: 3, margin: 0.4 });

async function sampleCase(index) {
  const document = await generateSyntheticDocument({ documentType: 'SyrianPassport', seed: 100 + index, portrait: await photo(personA[index % personA.length]) });
  const selfie = await photo(personA[(index + 1) % personA.length]);
  const video = await stillPhotoClip({ container: 'mp4' });
  return { document: document.front, selfie: jpeg(selfie), video: { contentType: 'video/mp4', bytes: video } };
}

async function runCase(evidence) {
  const started = performance.now();
  const outcome = {};
  const settle = async (name, call) => {
    try {
      outcome[name] = await call();
    } catch (error) {
      outcome[name] = { review: error.reason ?? error.message };
    }
  };
  await settle('ocr', () => checks.ocr({ documentType: 'SyrianPassport', front: evidence.document, back: null }));
  await settle('faceMatch', () => checks.faceMatch({ document: evidence.document, selfie: evidence.selfie }));
  await settle('liveness', () => checks.liveness({ video: evidence.video, document: evidence.document }));
  return { seconds: (performance.now() - started) / 1000, outcome };
}

const cases = await Promise.all([0, 1, 2, 3, 4, 5].map(sampleCase));
await runCase(cases[0]); // the first case after loading pays for lazy allocations
const sequential = [];
for (const evidence of cases.slice(1, 4)) sequential.push((await runCase(evidence)).seconds);
const pairStarted = performance.now();
const queue = [...cases];
await Promise.all([0, 1].map(async () => {
  while (queue.length > 0) await runCase(queue.shift());
}));
const casesPerMinute = (cases.length / ((performance.now() - pairStarted) / 1000)) * 60;

// Face: genuine pairs of person-a, impostor pairs person-a against others.
const genuine = [];
const impostor = [];
for (let i = 0; i < 4; i += 1) {
  for (let j = i + 1; j < 5; j += 1) genuine.push((await checks.faceMatch({ document: jpeg(await photo(personA[i])), selfie: jpeg(await photo(personA[j])) })).similarityScore);
}
for (const other of others.slice(0, 10)) impostor.push((await checks.faceMatch({ document: jpeg(await photo(personA[0])), selfie: jpeg(await photo(other)) })).similarityScore);

const still = await checks.liveness({ video: { contentType: 'video/mp4', bytes: await stillPhotoClip({ container: 'mp4' }) }, document: null });
const control = await checks.liveness({ video: { contentType: 'video/mp4', bytes: await controlClip({ container: 'mp4', seconds: 3 }) }, document: null });

const ocr = await measureAccuracy((document) => checks.ocr(document), { seeds: Array.from({ length: seedCount }, (_, index) => index + 1) });
const peakRssMb = process.resourceUsage().maxRSS / 1024;
await checks.close();

const lines = [
  `| Measure | Value | Goal |`,
  `|---|---|---|`,
  `| model load (cold, both engines) | ${fixed(loadSeconds)} s | |`,
  `| warm seconds per case (median of ${sequential.length}) | ${fixed(median(sequential))} s | ≤ 5 s |`,
  `| cases per minute, two at once | ${fixed(casesPerMinute, 1)} | |`,
  `| peak RSS of the process | ${fixed(peakRssMb, 0)} MB | ≤ 800 MB |`,
  `| face similarity, genuine pairs (${genuine.length}) | mean ${fixed(genuine.reduce((a, b) => a + b, 0) / genuine.length)}, min ${fixed(Math.min(...genuine))} | above impostors |`,
  `| face similarity, impostor pairs (${impostor.length}) | mean ${fixed(impostor.reduce((a, b) => a + b, 0) / impostor.length)}, max ${fixed(Math.max(...impostor))} | |`,
  `| liveness, video of a still photo | ${fixed(still.livenessScore)}, attack ${still.presentationAttackDetected ? still.attackType : 'not flagged'} | not live |`,
  `| liveness, clip spliced from 6 photos | ${fixed(control.livenessScore)}, attack ${control.presentationAttackDetected ? control.attackType : 'not flagged'} | |`,
  '',
  `| OCR variant (${seedCount} seeds each) | valid and exact | rejected | valid with wrong data | median s/read |`,
  `|---|---|---|---|---|`,
  ...Object.entries(ocr).map(([name, counts]) => `| ${name} | ${counts.validExact}/${counts.total} | ${counts.rejected} | ${counts.falseValid} | ${fixed(counts.medianSeconds)} |`),
];
console.log(lines.join('\n'));
