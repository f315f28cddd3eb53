// Evidence at rest: upload and download throughput of one large object (default 50 MB) with
// envelope encryption (the EvidenceVault every request uses) against the same path without it
// (the bare store), and the peak RSS growth of each, on the file system store.
//   Upload: the bytes are streamed from a source file (standing in for the request body) into a
//   spool file while hashed, as the capture route does, then stored with putFile (a rename);
//   encrypted, they are sealed on the way into the spool file (vault.createSealer) and the
//   ciphertext is hashed too (S3 verifies it), as receiveEvidence does.
//   Download: the object is opened and read to the end, the bytes counted, as a socket would take
//   them: bare, storage.get (through vault.open of a plaintext record); encrypted, vault.open
//   (authenticates and decrypts every chunk). A second, untimed read checks the SHA-256 against
//   the source's, so a run that returns wrong bytes fails.
//   Memory: every measurement runs in a fresh child process, the two modes interleaved run by
//   run; RSS is sampled every 5 ms during each operation and the growth reported is the peak
//   minus the RSS just before it.
// Usage, after `pnpm build`, from the repository root:
//   node services/identity/bench/evidence-encryption.mjs [sizeMB] [runs]      (default 50 and 5)
// Prints one JSON line per run and a markdown summary on stdout. Exit code 1 when a check fails.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

const MB = 1_048_576;
const [mode, sizeArgument, runsArgument, sourceArgument] = process.argv[2] === '--child' ? process.argv.slice(3) : [null, ...process.argv.slice(2)];
const sizeMb = Number(sizeArgument ?? 50);
const runs = Number(runsArgument ?? 5);
if (!Number.isInteger(sizeMb) || sizeMb < 1 || sizeMb > 1024 || !Number.isInteger(runs) || runs < 1 || runs > 50) {
  console.error('usage: evidence-encryption.mjs [sizeMB 1-1024] [runs 1-50]');
  process.exit(2);
}

/** Runs `operation` while sampling RSS; returns its duration and the RSS growth over the value just before. */
async function measured(operation) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = process.hrtime.bigint();
  try {
    await operation();
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, rssGrowthMb: (peak - before) / MB };
}

async function child() {
  const dist = new URL('../dist/domain/evidence/', import.meta.url);
  const { createEvidenceStorage } = await import(new URL('evidence-storage.js', dist).href);
  const { createEvidenceVault } = await import(new URL('evidence-vault.js', dist).href);
  const { createEvidenceKeyRing } = await import(new URL('evidence-keys.js', dist).href);
  const scratch = await mkdtemp(join(tmpdir(), 'identity-bench-evidence-'));
  try {
    const storage = await createEvidenceStorage({ kind: 'filesystem', dir: join(scratch, 'store') });
    const vault = createEvidenceVault(storage, createEvidenceKeyRing([{ id: 'bench', key: randomBytes(32) }], randomBytes(32)));
    const source = sourceArgument;
    const expected = await sha256Of(createReadStream(source));

    {
      const run = Number(runsArgument);
      const id = randomUUID();
      const key = `${randomUUID()}/${id}`;
      let ref;
      const upload = await measured(async () => {
        // The capture route's spooling: request bytes to a private file, hashed on the way; with
        // encryption, sealed on the way too (one pass), as receiveEvidence does.
        const spool = join(storage.spoolDir, `${randomUUID()}.upload`);
        const hashing = (enabled = true) => {
          const hash = enabled ? createHash('sha256') : null;
          let sizeBytes = 0;
          const transform = new Transform({ transform: (chunk, _encoding, callback) => ((sizeBytes += chunk.length), hash?.update(chunk), callback(null, chunk)) });
          return { transform, result: () => ({ sizeBytes, sha256Hex: hash?.digest('hex') ?? '' }) };
        };
        const plaintext = hashing();
        if (mode === 'encrypted') {
          const { seal, sealing } = vault.createSealer(id);
          const ciphertext = hashing(vault.needsCiphertextDigest);
          await pipeline(createReadStream(source), plaintext.transform, seal, ciphertext.transform, createWriteStream(spool, { mode: 0o600 }));
          await vault.storeSealed(key, spool, ciphertext.result());
          ref = { id, storageKey: key, fileSizeBytes: sizeMb * MB, ...sealing };
        } else {
          await pipeline(createReadStream(source), plaintext.transform, createWriteStream(spool, { mode: 0o600 }));
          await storage.putFile(key, spool, { contentType: 'video/mp4', ...plaintext.result() });
          ref = { id, storageKey: key, fileSizeBytes: sizeMb * MB, encryption: 'none', dataKeyId: null, sealedDataKey: null };
        }
      });
      // Timed as a client that only receives: the bytes are counted; the hash is checked after, untimed.
      let received = 0;
      const download = await measured(async () => {
        for await (const chunk of (await vault.open(ref)).body) received += chunk.length;
      });
      const actual = await sha256Of((await vault.open(ref)).body);
      if (received !== sizeMb * MB || actual !== expected) throw new Error(`${mode} run ${run}: the downloaded bytes differ from the source`);
      await storage.delete(key);
      const line = {
        mode,
        run,
        sizeMb,
        uploadMBps: sizeMb / upload.seconds,
        downloadMBps: sizeMb / download.seconds,
        uploadRssGrowthMb: upload.rssGrowthMb,
        downloadRssGrowthMb: download.rssGrowthMb,
      };
      console.log(JSON.stringify(line));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function sha256Of(stream) {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest('hex');
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function parent() {
  const scratch = await mkdtemp(join(tmpdir(), 'identity-bench-source-'));
  const source = join(scratch, 'source.mp4');
  const out = createWriteStream(source);
  for (let written = 0; written < sizeMb * MB; written += MB) if (!out.write(randomBytes(MB))) await new Promise((resolve) => out.once('drain', resolve));
  await new Promise((resolve) => out.end(resolve));
  const results = { plain: [], encrypted: [] };
  try {
    // Interleaved, one fresh process per measurement: load from elsewhere on the machine hits both modes alike.
    for (let run = 1; run <= runs; run += 1) {
      for (const childMode of ['plain', 'encrypted']) {
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', childMode, String(sizeMb), String(run), source], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
        if (child.status !== 0) {
          console.error(`the ${childMode} run ${run} failed`);
          process.exit(1);
        }
        process.stdout.write(child.stdout);
        results[childMode].push(JSON.parse(child.stdout.trim()));
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const summary = (rows) => ({
    upload: median(rows.map((row) => row.uploadMBps)),
    download: median(rows.map((row) => row.downloadMBps)),
    uploadRss: Math.max(...rows.map((row) => row.uploadRssGrowthMb)),
    downloadRss: Math.max(...rows.map((row) => row.downloadRssGrowthMb)),
  });
  const plain = summary(results.plain);
  const encrypted = summary(results.encrypted);
  const fixed = (value, digits = 1) => value.toFixed(digits);
  console.log(`\n## Evidence encryption at rest: ${sizeMb} MB object, ${runs} runs per mode, file system store (${cpus().length} CPUs)\n`);
  console.log('| | without encryption | with encryption | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(`| upload, median MB/s | ${fixed(plain.upload)} | ${fixed(encrypted.upload)} | ${fixed(encrypted.upload / plain.upload, 2)} |`);
  console.log(`| download, median MB/s | ${fixed(plain.download)} | ${fixed(encrypted.download)} | ${fixed(encrypted.download / plain.download, 2)} |`);
  console.log(`| upload, max RSS growth MB | ${fixed(plain.uploadRss)} | ${fixed(encrypted.uploadRss)} | |`);
  console.log(`| download, max RSS growth MB | ${fixed(plain.downloadRss)} | ${fixed(encrypted.downloadRss)} | |`);
}

if (mode) await child();
else await parent();
