// The soak's webhook receiver, in a process of its own: plain node:http. Each endpoint the harness
// registers gets a path /hooks/<name>; the parent sends its signing secret as one stdin line
// {"name":"…","secret":"whsec_…","scheme":"identity"|"fx"} (the two services sign differently). Every POST is read to its end, its signature checked with
// @svc/webhook-signing against that endpoint's secret, and answered 204 whatever the check says (a
// bad signature is counted, never retried into a pass). Before its secret is known an endpoint
// answers 503, so the service retries: the delivery is not lost, only late.
//   GET /receipts   every receipt as JSON lines {name, deliveryId, attempt, eventType, eventId, caseId, ok, at}
// (`at`: when the request was read, epoch ms, so a repeat can be set against the faults' times)
// Usage: node soak/receiver.mjs  (prints {"port":…} first; stops on SIGTERM or when stdin closes)
import { createServer } from 'node:http';
import { serveForParent } from '../services/identity/bench/helper-server.mjs';
// The built workspace package (pnpm build): it is a dependency of the services, not of the root.
import { verifyFxWebhook, verifyIdentityWebhook } from '../packages/webhook-signing/dist/index.js';

const secrets = new Map();
const receipts = [];

function answer(response, status, body, contentType = 'application/json') {
  response.writeHead(status, body === undefined ? {} : { 'content-type': contentType });
  response.end(body);
}

const server = createServer((request, response) => {
  const path = (request.url ?? '').split('?')[0];
  if (request.method === 'GET' && path === '/receipts') {
    answer(response, 200, receipts.map((receipt) => JSON.stringify(receipt)).join('\n'), 'application/x-ndjson');
    return;
  }
  const match = /^\/hooks\/([a-z0-9-]+)$/.exec(path);
  if (request.method !== 'POST' || !match) {
    request.resume();
    answer(response, 404, '{}');
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.once('error', () => response.destroy());
  request.once('end', () => {
    const name = match[1];
    const { secret, scheme } = secrets.get(name) ?? {};
    if (secret === undefined) {
      answer(response, 503);
      return;
    }
    const rawBody = Buffer.concat(chunks);
    const result = (scheme === 'fx' ? verifyFxWebhook : verifyIdentityWebhook)({ secret, headers: request.headers, rawBody });
    let event = null;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      // counted as a failed check below: a body that is not JSON cannot carry an event
    }
    receipts.push({
      name,
      deliveryId: request.headers['x-service-delivery-id'] ?? null,
      attempt: Number(request.headers['x-service-delivery-attempt'] ?? 0),
      eventType: request.headers['x-service-event'] ?? null,
      eventId: event?.eventId ?? null,
      caseId: event?.data?.caseId ?? null,
      ok: result.ok && event !== null,
      reason: result.ok ? undefined : result.reason,
      at: Date.now(),
    });
    answer(response, 204);
  });
});
server.keepAliveTimeout = 10_000;

let pending = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    const { name, secret, scheme = 'identity' } = JSON.parse(line);
    secrets.set(name, { secret, scheme });
  }
});

serveForParent(server);
