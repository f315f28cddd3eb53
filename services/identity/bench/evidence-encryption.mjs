// Evidence encryption at rest, as a user sees it: upload and download throughput (MB/s) of one
// large object (default 50 MB) over real HTTP against identity started as a process, with
// encryption (dist/server.js, as an operator runs it) against the same build storing plaintext
// (bench/plaintext-evidence-server.mjs: a bench-only vault; no setting turns encryption off), and
// the server's peak RSS growth per transfer, on the file system store or an S3-compatible bucket.
//   Upload: POST /api/capture/v1/evidence (multipart, a LivenessVideo: the sample MP4 padded with
//   random bytes to the size), the capture app's path; each upload goes to a fresh case.
//   Download: GET /api/partner/v1/evidence/{id}/file (certificate-bound partner token) of the
//   objects that side uploaded; plaintext ones are read through the path that serves objects of
//   versions before encryption at rest.
//   Rounds alternate the two servers (the order flips every round, so a drift of the machine hits
//   both alike); exactly one identity process is alive while it is measured (the S3 server, part
//   of the store, stays up throughout); the client runs in a process of its own
//   (bench/evidence-transfer-client.mjs), one transfer at a time, after a warm-up upload and
//   download checked byte for byte. A ratio is encrypted / plaintext within a round (medians of
//   the round's transfers), reported as the median of the rounds with their min-max. The same is
//   reported for megabytes per CPU-second of the server (/proc), which a busy machine disturbs less.
// Usage, after `pnpm build`, from the repository root:
//   node services/identity/bench/evidence-encryption.mjs [sizeMB] [rounds] [--transfers=N] [--store=filesystem|s3]
//   (defaults 50 MB, 5 rounds, 3 timed transfers each way per server per round, file system).
//   With DATABASE_URL (and REDIS_URL), on a fresh PostgreSQL database; else embedded.
// Prints one JSON line per server turn on stdout, then a JSON summary line and a markdown table.
// Exit code 1 when a transfer fails or returns other bytes.
import { Buffer } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { firstJsonLine, load1m, runCommand, spawnTracked, stopChild } from '../../../bench/out-of-process.mjs';
import { startService } from '../../../bench/service-bench.mjs';
import { benchArguments, benchDir, CAPTURE, expectJson, identityBench, log, PARTNER, serviceDir } from './identity-bench-setup.mjs';

const MB = 1_048_576;
const {
  numbers: [sizeMb, rounds],
  flags,
} = benchArguments('evidence-encryption.mjs', {
  numbers: [
    ['sizeMB', 1, 200, 50],
    ['rounds', 1, 20, 5],
  ],
  flags: {
    transfers: { usage: '--transfers=1-10 (timed uploads and downloads per server per round, default 3)', range: [1, 10], fallback: 3 },
    store: { usage: '--store=filesystem|s3 (default filesystem)', values: ['filesystem', 's3'], fallback: 'filesystem' },
  },
});
const sizeBytes = sizeMb * MB;
const BUCKET = 'identity-evidence';
// The video limit is 50 MB by default: a larger bench object raises it for both servers alike.
const SIDE_ENV = { CAPTURE_UPLOADS_PER_IP: '100000', MAX_VIDEO_BYTES: String(Math.max(50 * MB, sizeBytes)) };

const bench = identityBench({ workDirPrefix: 'identity-bench-evidence-encryption-', databasePrefix: 'bench_evidence_', evidence: true });
let s3 = null;

/** The multipart body of a `sizeBytes` LivenessVideo, written to a file in pieces; its SHA-256 is the video's. */
function writeUploadBody() {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const video = readFileSync(join(serviceDir, 'samples', 'liveness.mp4'));
  const file = join(bench.workDir, 'upload-body');
  const fd = openSync(file, 'w');
  const hash = createHash('sha256');
  const write = (bytes) => writeSync(fd, bytes);
  write(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidenceType"\r\n\r\nLivenessVideo\r\n`));
  write(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="liveness.mp4"\r\nContent-Type: video/mp4\r\n\r\n`));
  const head = video.subarray(0, Math.min(video.length, sizeBytes));
  write(head);
  hash.update(head);
  for (let written = head.length; written < sizeBytes; ) {
    const piece = randomBytes(Math.min(MB, sizeBytes - written));
    write(piece);
    hash.update(piece);
    written += piece.length;
  }
  write(Buffer.from(`\r\n--${boundary}--\r\n`));
  closeSync(fd);
  return { file, bodyBytes: statSync(file).size, contentType: `multipart/form-data; boundary=${boundary}`, sha256: hash.digest('hex') };
}

const SIDES = {
  plaintext: { script: join(benchDir, 'plaintext-evidence-server.mjs') },
  encrypted: { script: join(serviceDir, 'dist', 'server.js') },
};

function sideEnvironment() {
  const storeEnv = s3 ? { EVIDENCE_S3_BUCKET: BUCKET, EVIDENCE_S3_ENDPOINT: s3.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } : {};
  return bench.environment({ RATE_LIMIT_PER_MINUTE: '100000000', WORKER_IN_PROCESS: 'false', ...SIDE_ENV, ...storeEnv });
}

async function startSide(name) {
  const { child, origin } = await startService({ script: SIDES[name].script, env: sideEnvironment(), healthPath: '/health', onSpawn: (spawned) => (bench.service = spawned) });
  return { child, origin };
}

/** Capture tokens of `count` fresh cases (one upload each, so no upload waits on another's case lock or replaces it). */
async function captureTokens(origin, auth, count) {
  const tokens = [];
  for (let index = 0; index < count; index += 1) {
    const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
    const session = await expectJson(origin, 'POST', `${CAPTURE}/session`, 200, { headers: { authorization: `Bearer ${created.sessionToken}` } });
    tokens.push(`Bearer ${session.captureToken}`);
  }
  return tokens;
}

/**
 * What the servers left in the store, by size: each side must have stored every one of its uploads
 * as it claims, the plaintext server the bytes themselves, the encrypting one their envelope (the
 * S3 server keeps each object in a file of its own too). Otherwise the comparison is void.
 */
async function assertStoredForms(expectedEach) {
  const { sealedSize } = await import(new URL('../dist/domain/evidence/envelope-stream.js', import.meta.url).href);
  const root = s3 ? join(bench.workDir, 's3') : join(bench.workDir, 'evidence');
  const sizes = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath ?? entry.path, entry.name)).size);
  const plaintext = sizes.filter((size) => size === sizeBytes).length;
  const sealed = sizes.filter((size) => size === sealedSize(sizeBytes)).length;
  if (plaintext !== expectedEach || sealed !== expectedEach) {
    throw new Error(`the store holds ${plaintext} plaintext and ${sealed} sealed objects of the bench's size; expected ${expectedEach} of each`);
  }
  log(`the store holds ${plaintext} plaintext and ${sealed} sealed objects, as expected`);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round2 = (value) => Math.round(value * 100) / 100;

async function main() {
  if (flags.store === 's3') {
    const directory = join(bench.workDir, 's3');
    mkdirSync(directory);
    const child = spawnTracked(process.execPath, [join(benchDir, 's3-server.mjs'), directory, BUCKET], { cwd: serviceDir, stdio: ['pipe', 'pipe', 'inherit'] });
    const { port } = await firstJsonLine(child, 'the S3 server');
    s3 = { child, endpoint: `http://127.0.0.1:${port}` };
    log(`S3-compatible server at ${s3.endpoint}`);
  }
  if (bench.databaseUrl) await bench.createDatabase();
  await bench.createTenant();
  const body = writeUploadBody();
  const perTurn = flags.transfers + 1;
  const { origin, child: first } = await startSide('encrypted');
  const auth = await bench.authenticate(origin);
  const tokens = await captureTokens(origin, auth, rounds * 2 * perTurn);
  await stopChild(first, 10_000);
  log(`${tokens.length} cases ready; ${sizeMb} MB body written`);

  const loadBefore = { load1m: load1m(), uptime: (await runCommand('uptime', 'uptime', [], { timeoutMs: 5000 })).stdout.trim() };
  const turns = [];
  for (let round = 1; round <= rounds; round += 1) {
    const order = round % 2 === 1 ? ['plaintext', 'encrypted'] : ['encrypted', 'plaintext'];
    for (const name of order) {
      const side = await startSide(name);
      try {
        const job = {
          origin: side.origin,
          serverPid: side.child.pid,
          bodyFile: body.file,
          bodyBytes: body.bodyBytes,
          contentType: body.contentType,
          sizeBytes,
          sha256: body.sha256,
          captureTokens: tokens.splice(0, perTurn),
          partnerHeaders: auth,
        };
        log(`round ${round}/${rounds}: ${name}, ${flags.transfers} uploads and downloads of ${sizeMb} MB`);
        const { stdout } = await runCommand(`transfer client (${name})`, process.execPath, [join(benchDir, 'evidence-transfer-client.mjs'), JSON.stringify(job)], {
          cwd: serviceDir,
          timeoutMs: (120 + flags.transfers * 2 * sizeMb) * 1000,
        });
        const result = JSON.parse(stdout.trim().split('\n').pop());
        const turn = {
          round,
          side: name,
          uploadMBps: round2(median(result.uploads.map((transfer) => sizeMb / transfer.seconds))),
          downloadMBps: round2(median(result.downloads.map((transfer) => sizeMb / transfer.seconds))),
          uploadMBPerCpuSecond: round2(median(result.uploads.map((transfer) => sizeMb / Math.max(transfer.cpuSeconds, 0.01)))),
          downloadMBPerCpuSecond: round2(median(result.downloads.map((transfer) => sizeMb / Math.max(transfer.cpuSeconds, 0.01)))),
          uploadRssGrowthMb: round2(Math.max(...result.uploads.map((transfer) => transfer.rssGrowthBytes)) / MB),
          downloadRssGrowthMb: round2(Math.max(...result.downloads.map((transfer) => transfer.rssGrowthBytes)) / MB),
          load1m: load1m(),
        };
        console.log(JSON.stringify(turn));
        turns.push(turn);
      } finally {
        await stopChild(side.child, 10_000);
      }
    }
  }
  await assertStoredForms(rounds * perTurn);
  const loadAfter = { load1m: load1m(), uptime: (await runCommand('uptime', 'uptime', [], { timeoutMs: 5000 })).stdout.trim() };

  const of = (name) => turns.filter((turn) => turn.side === name).sort((a, b) => a.round - b.round);
  const ratio = (field) => {
    const perRound = of('encrypted').map((turn, index) => round2(turn[field] / of('plaintext')[index][field]));
    return { median: round2(median(perRound)), min: Math.min(...perRound), max: Math.max(...perRound), perRound };
  };
  const sideSummary = (name) => ({
    uploadMBps: round2(median(of(name).map((turn) => turn.uploadMBps))),
    downloadMBps: round2(median(of(name).map((turn) => turn.downloadMBps))),
    uploadMBPerCpuSecond: round2(median(of(name).map((turn) => turn.uploadMBPerCpuSecond))),
    downloadMBPerCpuSecond: round2(median(of(name).map((turn) => turn.downloadMBPerCpuSecond))),
    uploadRssGrowthMb: Math.max(...of(name).map((turn) => turn.uploadRssGrowthMb)),
    downloadRssGrowthMb: Math.max(...of(name).map((turn) => turn.downloadRssGrowthMb)),
  });
  const summary = {
    store: flags.store,
    database: bench.databaseUrl ? 'postgres' : 'embedded',
    sizeMb,
    rounds,
    transfers: flags.transfers,
    plaintext: sideSummary('plaintext'),
    encrypted: sideSummary('encrypted'),
    uploadRatio: ratio('uploadMBps'),
    downloadRatio: ratio('downloadMBps'),
    uploadCpuRatio: ratio('uploadMBPerCpuSecond'),
    downloadCpuRatio: ratio('downloadMBPerCpuSecond'),
    load: { before: loadBefore, after: loadAfter },
  };
  console.log(JSON.stringify(summary));
  const { plaintext, encrypted, uploadRatio, downloadRatio, uploadCpuRatio, downloadCpuRatio } = summary;
  console.log(`\n## identity evidence encryption over HTTP: ${sizeMb} MB object, ${flags.store} store, ${summary.database} database, ${rounds} rounds x ${flags.transfers} transfers (${cpus().length} CPUs, node ${process.version})\n`);
  console.log('| | plaintext (same build) | encrypted | ratio, median (min-max) |');
  console.log('|---|---:|---:|---:|');
  console.log(`| upload, median MB/s | ${plaintext.uploadMBps} | ${encrypted.uploadMBps} | ${uploadRatio.median} (${uploadRatio.min}-${uploadRatio.max}) |`);
  console.log(`| download, median MB/s | ${plaintext.downloadMBps} | ${encrypted.downloadMBps} | ${downloadRatio.median} (${downloadRatio.min}-${downloadRatio.max}) |`);
  console.log(`| upload, MB per server CPU-second | ${plaintext.uploadMBPerCpuSecond} | ${encrypted.uploadMBPerCpuSecond} | ${uploadCpuRatio.median} (${uploadCpuRatio.min}-${uploadCpuRatio.max}) |`);
  console.log(`| download, MB per server CPU-second | ${plaintext.downloadMBPerCpuSecond} | ${encrypted.downloadMBPerCpuSecond} | ${downloadCpuRatio.median} (${downloadCpuRatio.min}-${downloadCpuRatio.max}) |`);
  console.log(`| upload, max server RSS growth MB | ${plaintext.uploadRssGrowthMb} | ${encrypted.uploadRssGrowthMb} | |`);
  console.log(`| download, max server RSS growth MB | ${plaintext.downloadRssGrowthMb} | ${encrypted.downloadRssGrowthMb} | |`);
  console.log(`\nload before: ${loadBefore.uptime}\nload after: ${loadAfter.uptime}`);
}

await bench.run(main, {
  budgetSeconds: 600 + rounds * 2 * (90 + (flags.transfers + 1) * 2 * sizeMb),
  beforeStop: async () => {
    if (s3) {
      s3.child.stdin.end();
      await stopChild(s3.child, 5000);
    }
  },
});
