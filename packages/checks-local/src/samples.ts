#!/usr/bin/env node
/**
 * A sample live case for trying the local checks: `node packages/checks-local/dist/samples.js --out <dir>`
 * writes a synthetic Syrian passport with a face from Human's sample photos, a selfie of the same
 * man and a selfie video made from one still photo. Human's photos are read from node_modules at
 * run time, never shipped.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { sampleCase } from './synthetic/index.js';

const outIndex = process.argv.indexOf('--out');
const outDir = resolve(process.env.INIT_CWD ?? process.cwd(), outIndex > 0 ? (process.argv[outIndex + 1] ?? '') : 'sample-case');
const { files, expectedFields } = await sampleCase();
await mkdir(outDir, { recursive: true });
for (const [name, bytes] of Object.entries(files)) await writeFile(resolve(outDir, name), bytes);
process.stdout.write(
  `${JSON.stringify({ outDir, files: Object.keys(files), passportNumber: expectedFields.documentNumber, surname: expectedFields.surname, expiryDate: expectedFields.expiryDate })}\n` +
    'The video is made from one still photo: the liveness check is expected to flag it as a replay, so the case is rejected (a real selfie video with a blink and a head turn is what passes).\n',
);
