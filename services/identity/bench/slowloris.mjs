// A slowloris against the capture API: `connections` uploads (default 1000) that send their headers
// and the first kilobyte of a body declared 5 MB long, then go quiet, opened at once from
// `--sources` loopback addresses (127.0.1.x; default 1, one attacker). While they hold on, the
// bench times GET /health and fresh uploads of a 1 MB photo from 127.0.0.1 (a phone
// elsewhere), and compares them with the same measurements before the attack.
//   Also reported: how the stalled uploads were answered (429 TOO_MANY_UPLOADS beyond the per-IP
//   and per-process caps, 408 REQUEST_TIMEOUT at the silence limit, the connection closed), how long
//   until the last one was, and the service's descriptors and RSS before, during and after.
// The service runs as an operator runs it (`node services/identity/dist/server.js`, default listener
// limits unless --silence-ms / --per-ip / --uploads-max say otherwise), tenant from the CLI, token
// from a portal login and an openssl-made client certificate (identity-bench-setup.mjs).
//
// Usage, after `pnpm build`, from the repository root (embedded database unless DATABASE_URL is set):
//   node services/identity/bench/slowloris.mjs [connections] [samples] [--sources=N] [--silence-ms=N] [--per-ip=N] [--uploads-max=N]
// Linux only (/proc, 127.0.0.0/8 on loopback). Prints one JSON line and a markdown summary on stdout.
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus } from 'node:os';
import { randomBytes } from 'node:crypto';
import { load1m, percentiles, sleep } from '../../../bench/out-of-process.mjs';
import { benchArguments, CAPTURE, expectJson, identityBench, log, PARTNER } from './identity-bench-setup.mjs';

const {
  numbers: [connections, samples],
  flags,
} = benchArguments('slowloris.mjs', {
  numbers: [['connections', 1, 20_000, 1000], ['samples', 10, 10_000, 200]],
  flags: {
    sources: { usage: '--sources=1-250 (attacker addresses)', range: [1, 250], fallback: 1 },
    'silence-ms': { usage: '--silence-ms=N (HTTP_SILENCE_TIMEOUT_MS)', range: [100, 600_000], fallback: 30_000 },
    'per-ip': { usage: '--per-ip=N (CAPTURE_UPLOADS_PER_IP)', range: [1, 100_000], fallback: 8 },
    'uploads-max': { usage: '--uploads-max=N (CAPTURE_UPLOADS_MAX)', range: [1, 100_000], fallback: 1024 },
  },
});

const DECLARED_BYTES = 5 * 1024 * 1024;
const FRESH_UPLOADS = Math.max(5, Math.round(samples / 10));
const bench = identityBench({ workDirPrefix: 'identity-bench-slowloris-', databasePrefix: 'bench_slowloris_' });
// A 1 MB photo as a phone sends one: the JPEG signature, then filler (the service sniffs only the start).
const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(1024 * 1024 - 4, 0x20)]);

function multipart(evidenceType, fileName, contentType, bytes) {
  const boundary = `----slowloris${randomBytes(8).toString('hex')}`;
  return {
    body: Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidenceType"\r\n\r\n${evidenceType}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${contentType}\r\n\r\n`),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** Descriptors and VmRSS (MiB) of the service process. */
function resources(pid) {
  const descriptors = readdirSync(`/proc/${pid}/fd`).length;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { descriptors, rssMiB: Math.round(rssKb / 1024) };
}

/** Times every answer; a 503 (a dependency check failing under the attack) is counted, not fatal. */
async function timeHealth(origin, count) {
  const times = [];
  const statuses = {};
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(15_000) });
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    times.push(performance.now() - started);
  }
  return { ...percentiles(times), statuses };
}

async function timeUploads(origin, capture, count) {
  const times = [];
  const statuses = {};
  for (let index = 0; index < count; index += 1) {
    const { body, contentType } = multipart('DocumentFront', 'document-front.jpg', 'image/jpeg', photo);
    const started = performance.now();
    const response = await fetch(`${origin}${CAPTURE}/evidence`, { method: 'POST', headers: { ...capture, 'content-type': contentType }, body, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (response.status === 201) times.push(performance.now() - started);
  }
  return { ...percentiles(times), statuses };
}

/** One stalled upload from `localAddress`; resolves with how it ended: the status answered (0: closed without one) and when. */
function stalledUpload(port, capture, localAddress, opened) {
  const { body, contentType } = multipart('DocumentFront', 'stalled.jpg', 'image/jpeg', Buffer.alloc(1024, 0x41));
  const head = `POST ${CAPTURE}/evidence HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${capture.authorization}\r\nContent-Type: ${contentType}\r\nContent-Length: ${DECLARED_BYTES}\r\n\r\n`;
  const sent = body.subarray(0, body.length - 100);
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let received = '';
    socket.on('connect', () => {
      opened.count += 1;
      socket.write(head);
      socket.write(sent);
    });
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ status: Number(received.split(' ')[1] ?? 0) || 0, endedAt: Date.now() }));
  });
}

async function main(environment) {
  const loadBefore = load1m();
  if (bench.databaseUrl) await bench.createDatabase();
  await bench.createTenant();
  const origin = await bench.startService({
    env: { HTTP_SILENCE_TIMEOUT_MS: String(flags['silence-ms']), CAPTURE_UPLOADS_PER_IP: String(flags['per-ip']), CAPTURE_UPLOADS_MAX: String(flags['uploads-max']) },
  });
  const port = Number(new URL(origin).port);
  const pid = bench.service.pid;
  const auth = await bench.authenticate(origin);
  const created = await expectJson(origin, 'POST', `${PARTNER}/verifications`, 201, { json: { documentType: 'SyrianPassport' }, headers: auth });
  const session = await expectJson(origin, 'POST', `${CAPTURE}/session`, 200, { headers: { authorization: `Bearer ${created.sessionToken}` } });
  const capture = { authorization: `Bearer ${session.captureToken}` };

  log('warming up');
  await timeHealth(origin, 20);
  await timeUploads(origin, capture, 3);
  const before = resources(pid);
  log(`quiet: ${samples} health requests, ${FRESH_UPLOADS} uploads`);
  const quietHealth = await timeHealth(origin, samples);
  const quietUploads = await timeUploads(origin, capture, FRESH_UPLOADS);

  log(`attack: ${connections} stalled uploads from ${flags.sources} address(es)`);
  const opened = { count: 0 };
  const attackStarted = Date.now();
  const attack = Array.from({ length: connections }, (_, index) => stalledUpload(port, capture, `127.0.1.${(index % flags.sources) + 1}`, opened));
  while (opened.count < connections && Date.now() - attackStarted < 30_000) await sleep(20);
  // Give the refusals a moment to go out, so the measurement sees the attack as it stands.
  await sleep(500);
  const during = resources(pid);
  const attackHealth = await timeHealth(origin, samples);
  const attackUploads = await timeUploads(origin, capture, FRESH_UPLOADS);
  const measuredBy = Date.now() - attackStarted;

  const outcomes = await Promise.all(attack);
  const lastEndedMs = Math.max(...outcomes.map((outcome) => outcome.endedAt)) - attackStarted;
  const answered = {};
  for (const outcome of outcomes) answered[outcome.status] = (answered[outcome.status] ?? 0) + 1;
  await sleep(1_000);
  const after = resources(pid);

  const summary = {
    connections,
    sources: flags.sources,
    silenceMs: flags['silence-ms'],
    perIp: flags['per-ip'],
    uploadsMax: flags['uploads-max'],
    quiet: { health: quietHealth, uploads: quietUploads },
    attack: { health: attackHealth, uploads: attackUploads, measuredWithinMs: measuredBy },
    stalledAnswered: answered,
    lastStalledEndedMs: lastEndedMs,
    resources: { before, during, after },
    load1m: [loadBefore, load1m()],
  };
  console.log(JSON.stringify(summary));
  const row = (label, quiet, attacked) => `| ${label} | ${quiet.p50} / ${quiet.p99} ms | ${attacked.p50} / ${attacked.p99} ms |`;
  console.log(
    [
      `## identity slowloris: ${connections} stalled uploads from ${flags.sources} address(es) (${environment.cpus} CPUs, ${environment.cpuModel?.trim() ?? 'unknown CPU'}, node ${process.version}, ${bench.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, ${environment.store})`,
      '',
      `Limits: silence ${flags['silence-ms']} ms, ${flags['per-ip']} uploads per IP, ${flags['uploads-max']} per process. Measured during the attack within ${measuredBy} ms of its start (before the silence limit cut the accepted ones).`,
      '',
      '| p50 / p99 | quiet | during the attack |',
      '|---|---|---|',
      row(`GET /health (${samples} in a row)`, quietHealth, attackHealth),
      row(`fresh upload, ${photo.length} bytes (${FRESH_UPLOADS} in a row)`, quietUploads, attackUploads),
      '',
      `- /health answered ${JSON.stringify(quietHealth.statuses)} quiet, ${JSON.stringify(attackHealth.statuses)} during the attack; fresh uploads during the attack answered ${JSON.stringify(attackUploads.statuses)}`,
      `- the stalled uploads were answered ${JSON.stringify(answered)} (0 = closed without an answer); the last ended ${lastEndedMs} ms after the attack began`,
      `- service descriptors ${before.descriptors} → ${during.descriptors} (attack) → ${after.descriptors}; RSS ${before.rssMiB} → ${during.rssMiB} → ${after.rssMiB} MiB`,
      `- 1-minute load average ${summary.load1m.join(' -> ')} (${cpus().length} CPUs)`,
    ].join('\n'),
  );
  return attackUploads.statuses[201] === FRESH_UPLOADS && attackHealth.statuses[200] === samples;
}

await bench.run(() => main({ cpus: cpus().length, cpuModel: cpus()[0]?.model, store: process.env.REDIS_URL ? 'Redis' : 'memory' }), { budgetSeconds: 300 + Math.ceil(flags['silence-ms'] / 1000) });
