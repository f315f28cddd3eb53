// The load generator of bench/evidence-encryption.mjs, in a process of its own: one client that
// uploads and downloads large evidence objects over HTTP, one transfer at a time (a capture app
// sending a video, a partner fetching it), and times each from its request to its last byte.
// It also measures the server's memory: before each transfer it resets the server process's peak
// RSS (/proc/<pid>/clear_refs, "5") and after it reads that peak (VmHWM) against the RSS just
// before; where the reset is refused it samples VmRSS every 5 ms instead.
// Input: one JSON argument {origin, serverPid, bodyFile, contentType, sizeBytes, sha256, captureTokens,
// partnerHeaders}. The first token's upload and its download are the warm-up (untimed) and are
// checked in full: status, Content-Length, ETag and the SHA-256 of the bytes. Every other token
// makes one timed upload, then each uploaded object one timed download (length checked).
// The server's CPU time over each transfer is read from /proc/<pid>/stat too: on a busy machine,
// megabytes per CPU-second of the server say what the path costs when wall-clock MB/s is noisy.
// Output: one JSON line {uploads: [{seconds, cpuSeconds, rssGrowthBytes}], downloads: [...]}.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';

const job = JSON.parse(process.argv[2]);
const CAPTURE_EVIDENCE = '/api/capture/v1/evidence';
const statusPath = `/proc/${job.serverPid}/status`;

/** CPU time (user + system, seconds) of the server so far, from /proc (USER_HZ 100). */
function serverCpuSeconds() {
  const stat = readFileSync(`/proc/${job.serverPid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const kilobytesOf = (status, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;

/** Runs `transfer` while watching the server's RSS and CPU: {seconds, cpuSeconds, rssGrowthBytes, result}. */
async function measured(transfer) {
  const before = kilobytesOf(readFileSync(statusPath, 'utf8'), 'VmRSS');
  let resetPeak = true;
  try {
    writeFileSync(`/proc/${job.serverPid}/clear_refs`, '5');
  } catch {
    resetPeak = false;
  }
  let sampled = before;
  const sampler = resetPeak ? null : setInterval(() => (sampled = Math.max(sampled, kilobytesOf(readFileSync(statusPath, 'utf8'), 'VmRSS'))), 5);
  const cpuBefore = serverCpuSeconds();
  const started = process.hrtime.bigint();
  let result;
  try {
    result = await transfer();
  } finally {
    if (sampler) clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuSeconds = serverCpuSeconds() - cpuBefore;
  const status = readFileSync(statusPath, 'utf8');
  const peak = resetPeak ? kilobytesOf(status, 'VmHWM') : Math.max(sampled, kilobytesOf(status, 'VmRSS'));
  return { seconds, cpuSeconds, rssGrowthBytes: peak - before, result };
}

/** One HTTP exchange; `body` a readable to pipe, `onData` sees the answer's bytes; resolves {status, headers, text}. */
function exchange(method, path, headers, { body, onData } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(`${job.origin}${path}`, { method, headers, agent: false }, (res) => {
      const kept = [];
      res.on('data', (chunk) => (onData && res.statusCode === 200 ? onData(chunk) : kept.push(chunk)));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(kept).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

async function upload(captureToken) {
  const answer = await exchange(
    'POST',
    CAPTURE_EVIDENCE,
    { 'content-type': job.contentType, 'content-length': String(job.bodyBytes), authorization: captureToken },
    { body: createReadStream(job.bodyFile, { highWaterMark: 1024 * 1024 }) },
  );
  if (answer.status !== 201) throw new Error(`upload: ${answer.status} ${answer.text.slice(0, 500)}`);
  return JSON.parse(answer.text).id;
}

async function download(evidenceId, hash) {
  let bytes = 0;
  const answer = await exchange('GET', `/api/partner/v1/evidence/${evidenceId}/file`, job.partnerHeaders, {
    onData: (chunk) => {
      bytes += chunk.length;
      hash?.update(chunk);
    },
  });
  if (answer.status !== 200) throw new Error(`download ${evidenceId}: ${answer.status} ${answer.text.slice(0, 500)}`);
  if (bytes !== job.sizeBytes || answer.headers['content-length'] !== String(job.sizeBytes)) {
    throw new Error(`download ${evidenceId}: ${bytes} bytes, Content-Length ${answer.headers['content-length']}, expected ${job.sizeBytes}`);
  }
  return answer;
}

const [warmupToken, ...tokens] = job.captureTokens;
const warmupId = await upload(warmupToken);
const hash = createHash('sha256');
const checked = await download(warmupId, hash);
const sha256 = hash.digest('hex');
if (sha256 !== job.sha256 || checked.headers.etag !== `"${job.sha256}"`) throw new Error(`the downloaded bytes (SHA-256 ${sha256}, ETag ${checked.headers.etag}) are not the uploaded ones (${job.sha256})`);

const uploads = [];
const ids = [];
for (const token of tokens) {
  const { result, ...figures } = await measured(() => upload(token));
  uploads.push(figures);
  ids.push(result);
}
const downloads = [];
for (const id of ids) {
  const { result: _answer, ...figures } = await measured(() => download(id));
  downloads.push(figures);
}
console.log(JSON.stringify({ uploads, downloads }));
