// Capture evidence uploads of 2 MB images (POST /api/capture/v1/evidence, multipart, a document
// photo) in alternating rounds (bench/rounds.mjs) against the bare Fastify process that receives
// the same multipart bytes and writes them to a file on the same disk (then deletes it): the
// unavoidable work of an upload route. One server process is alive at a time; wrk drives each,
// cycling through the capture tokens of `CASES` cases so that concurrent uploads rarely meet on
// one case (an upload locks its case's row while it replaces the earlier photo).
// A second reference, `bare+seal`, does what an encrypted, durable upload cannot avoid on top:
// the SHA-256, identity's own envelope encryption, fsync, rename and the directory's fsync.
// BENCH_UPLOAD_KEEP=1: both references keep every file they write, as the service keeps every upload,
// instead of deleting each at once (bench/bare-server.mjs --keep). On this project's VMs that changes
// which memory the page cache grows into, and with it every side's rate (docs/benchmarks.md, "The
// upload and the VM's memory"); it needs up to KEEP_BYTES of free disk, or the bench stops.
// The service runs as an operator runs it (`node services/identity/dist/server.js`, file-system
// evidence in the run's temporary directory, per-IP limits raised so nothing is refused).
//
// Usage, after `pnpm build`, from the repository root:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
//     node services/identity/bench/evidence-upload.mjs [seconds]     (default 5; also embedded)
// Every upload is kept by the service, so a round writes about (uploads/s × seconds × 2 MB) to
// the temporary directory; it is removed at the end.
// Prints one JSON line (bench/service-bench.mjs pathRow). `pnpm bench` runs it in both modes.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureWrk } from '../../../bench/load-generator.mjs';
import { killTracked } from '../../../bench/out-of-process.mjs';
import { bareSide } from '../../../bench/rounds.mjs';
import { benchSeconds, bodyFileOf, measurePath, probe } from '../../../bench/service-bench.mjs';
import { CAPTURE, expectJson, identityBench, log, PARTNER, serviceDir } from './identity-bench-setup.mjs';

const { seconds, warmupSeconds } = benchSeconds('node services/identity/bench/evidence-upload.mjs', 5);
const CASES = 200;
const IMAGE_BYTES = 2 * 1024 * 1024;
const PATH = `${CAPTURE}/evidence`;
// Every upload of the bench comes from one address: the per-address cap would answer 429.
const UPLOAD_ENV = { CAPTURE_UPLOADS_PER_IP: '1000' };
const KEEP = process.env.BENCH_UPLOAD_KEEP === '1';
// Three rounds of three sides, each writing up to about 300 uploads/s of 2 MB for its warm-up and measurement.
const KEEP_BYTES = 40 * 1024 ** 3;

const bench = identityBench({ workDirPrefix: 'identity-bench-evidence-upload-', databasePrefix: 'bench_upload_', evidence: true });

/** A 2 MB JPEG: the sample document photo, then filler after its end marker (decoders stop there; the sniffer reads the start). */
function twoMegabyteJpeg() {
  const photo = readFileSync(join(serviceDir, 'samples', 'document-front.jpg'));
  return Buffer.concat([photo, randomBytes(Math.max(0, IMAGE_BYTES - photo.length))]);
}

function multipart(image) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidenceType"\r\n\r\nDocumentFront\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="document-front.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    image,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function main() {
  ensureWrk();
  if (bench.databaseUrl) await bench.createDatabase();
  await bench.createTenant();
  const origin = await bench.startService({ env: UPLOAD_ENV });
  const auth = await bench.authenticate(origin);
  const tokens = [];
  for (let index = 0; index < CASES; index += 1) {
    const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
    const session = await expectJson(origin, 'POST', `${CAPTURE}/session`, 200, { headers: { authorization: `Bearer ${created.sessionToken}` } });
    tokens.push(`Bearer ${session.captureToken}`);
  }
  log(`${CASES} cases with capture sessions`);
  const upload = multipart(twoMegabyteJpeg());
  const bodyFile = bodyFileOf(bench.workDir, upload.body, 'upload');
  const headers = { 'content-type': upload.contentType };
  const expected = await probe(`${origin}${PATH}`, { method: 'POST', headers: { ...headers, authorization: tokens[0] }, body: upload.body, status: 201 });
  await bench.stopService();
  const spool = join(bench.workDir, 'evidence', 'bare-spool');
  mkdirSync(spool, { recursive: true });
  if (KEEP) {
    const disk = statfsSync(spool);
    const freeBytes = disk.bavail * disk.bsize;
    if (freeBytes < KEEP_BYTES) throw new Error(`BENCH_UPLOAD_KEEP=1 needs ${KEEP_BYTES / 1024 ** 3} GB free under ${spool}; there are ${(freeBytes / 1024 ** 3).toFixed(1)}`);
  }
  const keep = KEEP ? { keep: 'true' } : {};
  const row = await measurePath(`identity POST ${PATH} (2 MB image)`, {
    service: bench.serviceSide(UPLOAD_ENV),
    bare: bareSide({ name: 'bare', method: 'POST', route: PATH, bodyFile: bodyFileOf(bench.workDir, expected.body), contentType: expected.contentType, packageDir: serviceDir, status: 201, options: { spool, ...keep } }),
    // The same bytes hashed, sealed with identity's own envelope and made durable (fsync, rename, directory fsync).
    roundTrip: bareSide({ name: 'bare+seal', method: 'POST', route: PATH, bodyFile: bodyFileOf(bench.workDir, expected.body), contentType: expected.contentType, packageDir: serviceDir, status: 201, options: { spool, seal: 'true', ...keep } }),
    request: (sideOrigin) => ({ url: `${sideOrigin}${PATH}`, method: 'POST', headers, bodyFile, rotateHeader: { name: 'authorization', values: tokens } }),
    check: (sideOrigin) => probe(`${sideOrigin}${PATH}`, { method: 'POST', headers: { ...headers, authorization: tokens[1] }, body: upload.body, status: 201 }),
    seconds,
    warmupSeconds,
  });
  console.log(JSON.stringify({ ...row, uploadBytes: upload.body.length, cases: CASES, referencesKeepFiles: KEEP }));
}

await bench.run(main, {
  budgetSeconds: 600 + 6 * (warmupSeconds + seconds + 60),
  beforeStop: async () => killTracked('SIGKILL', [bench.service]),
});
