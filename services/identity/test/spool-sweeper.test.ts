import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSpoolSweeper, sweepSpool } from '../src/domain/evidence/spool-sweeper.js';
import { buildTestApp } from './helpers.js';

const HOUR = 3_600_000;
const silentLog = { info: () => undefined, warn: () => undefined };

async function spoolFile(dir: string, name: string, ageMs: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, 'partial upload');
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
  return path;
}

describe('the upload spool sweeper', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'identity-spool-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('removes only files older than the limit, and counts them', async () => {
    await spoolFile(dir, 'old.upload', 2 * HOUR);
    await spoolFile(dir, 'older.upload', 48 * HOUR);
    await spoolFile(dir, 'fresh.upload', 1_000);
    await mkdir(join(dir, 'a-directory'));
    expect(await sweepSpool(dir, new Date(Date.now() - HOUR))).toBe(2);
    expect((await readdir(dir)).sort()).toEqual(['a-directory', 'fresh.upload']);
  });

  it('treats a missing spool directory as empty', async () => {
    expect(await sweepSpool(join(dir, 'never-made'), new Date())).toBe(0);
  });

  it('sweeps at start and again every interval, by the injected clock', async () => {
    await spoolFile(dir, 'left-by-a-crash.upload', 20 * 60_000);
    const sweeper = startSpoolSweeper({ spoolDir: dir, maxAgeMs: 10 * 60_000, intervalMs: 50, clock: () => new Date(), log: silentLog });
    try {
      expect(await sweeper.firstSweep).toBe(1);
      await spoolFile(dir, 'written-during-the-hour.upload', 5 * 60_000);
      await spoolFile(dir, 'abandoned-later.upload', 11 * 60_000);
      await expect.poll(async () => (await readdir(dir)).includes('abandoned-later.upload'), { timeout: 5_000, interval: 20 }).toBe(false);
      expect(await readdir(dir)).toEqual(['written-during-the-hour.upload']);
    } finally {
      sweeper.stop();
    }
  });

  it('runs when the app starts, on the evidence spool, with the request timeout as the age', async () => {
    const evidenceDir = await mkdtemp(join(tmpdir(), 'identity-evidence-sweep-'));
    const spool = join(evidenceDir, 'spool');
    await mkdir(spool, { recursive: true });
    await spoolFile(spool, 'orphan.upload', 11 * 60_000);
    await spoolFile(spool, 'in-flight.upload', 60_000);
    const test = await buildTestApp({ EVIDENCE_DIR: evidenceDir, HTTP_REQUEST_TIMEOUT_MS: String(10 * 60_000) });
    try {
      await expect.poll(async () => (await readdir(spool)).includes('orphan.upload'), { timeout: 5_000, interval: 20 }).toBe(false);
      expect(await readdir(spool)).toEqual(['in-flight.upload']);
    } finally {
      await test.close();
      await rm(evidenceDir, { recursive: true, force: true });
    }
  });
});
