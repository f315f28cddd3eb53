// A webhook receiver for services/identity/bench/webhooks.mjs, in a process of its own (so the
// delivery worker under test shares no event loop with it): plain node:http, no framework.
// Every POST is read to its end, timed (the moment its last byte arrived, on this machine's wall
// clock), checked with @svc/webhook-signing's verifyIdentityWebhook against the endpoint's signing
// secret (the one a partner would use: X-Service-Signature, X-Service-Timestamp, raw body) and
// answered 204 at once, whatever the check says: a failure is counted, not retried, so the count
// stays honest. Until the secret is known, requests are counted as `beforeSecret` and answered 503.
//   GET /stats                   {received, verified, failures, failureReasons, beforeSecret,
//                                 distinctDeliveries, duplicates, attemptsAbove1, byEvent,
//                                 firstAt, lastAt, malformedBodies}
//   GET /receipts?from=<n>       receipts n.. (in arrival order) as JSON lines: {deliveryId, attempt,
//                                 eventType, eventId, caseId, timestamp, receivedAt, ok}, receivedAt
//                                 in epoch ms with µs resolution (performance.timeOrigin + now())
//   POST /reset                  forgets the receipts and zeroes the counts (between phases)
// Usage: node services/identity/bench/webhook-receiver.mjs
// Listens on a free loopback port and prints {"port":…} as its first stdout line. The parent sends
// the endpoint's signing secret as one stdin line {"secret":"whsec_…"} once it is registered; it
// stops on SIGTERM/SIGINT, and when its stdin closes (the parent that started it has gone away):
// helper-server.mjs, shared with instant-inference-server.mjs.
import { createServer } from 'node:http';
import { verifyIdentityWebhook } from '@svc/webhook-signing';
import { serveForParent } from './helper-server.mjs';

let secret = null;
let stats;
let receipts;
let seen;

function reset() {
  stats = { received: 0, verified: 0, failures: 0, failureReasons: {}, beforeSecret: 0, distinctDeliveries: 0, duplicates: 0, attemptsAbove1: 0, byEvent: {}, firstAt: null, lastAt: null, malformedBodies: 0 };
  receipts = [];
  seen = new Set();
}
reset();

const now = () => performance.timeOrigin + performance.now();

function send(response, status, body, contentType = 'application/json') {
  if (body === undefined) {
    response.writeHead(status);
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function receive(request, response) {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.once('error', () => response.destroy());
  request.once('end', () => {
    const receivedAt = now();
    const rawBody = Buffer.concat(chunks);
    if (secret === null) {
      stats.beforeSecret += 1;
      send(response, 503, undefined);
      return;
    }
    stats.received += 1;
    stats.firstAt ??= receivedAt;
    stats.lastAt = receivedAt;
    const result = verifyIdentityWebhook({ secret, headers: request.headers, rawBody });
    if (result.ok) stats.verified += 1;
    else {
      stats.failures += 1;
      stats.failureReasons[result.reason] = (stats.failureReasons[result.reason] ?? 0) + 1;
    }
    const deliveryId = request.headers['x-service-delivery-id'] ?? null;
    const attempt = Number(request.headers['x-service-delivery-attempt'] ?? 0);
    if (attempt > 1) stats.attemptsAbove1 += 1;
    if (deliveryId !== null) {
      if (seen.has(deliveryId)) stats.duplicates += 1;
      else {
        seen.add(deliveryId);
        stats.distinctDeliveries += 1;
      }
    }
    const eventType = request.headers['x-service-event'] ?? null;
    stats.byEvent[eventType] = (stats.byEvent[eventType] ?? 0) + 1;
    let event = null;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      stats.malformedBodies += 1;
    }
    receipts.push({
      deliveryId,
      attempt,
      eventType,
      eventId: event?.eventId ?? null,
      caseId: event?.data?.caseId ?? null,
      timestamp: event?.timestamp ?? null,
      receivedAt: Math.round(receivedAt * 1000) / 1000,
      ok: result.ok,
    });
    send(response, 204, undefined);
  });
}

const server = createServer((request, response) => {
  const [path, query = ''] = (request.url ?? '').split('?');
  if (request.method === 'POST' && path === '/reset') {
    request.resume();
    reset();
    send(response, 200, '{}');
  } else if (request.method === 'GET' && path === '/stats') {
    send(response, 200, JSON.stringify(stats));
  } else if (request.method === 'GET' && path === '/receipts') {
    const from = Number(new URLSearchParams(query).get('from') ?? 0) || 0;
    send(response, 200, receipts.slice(from).map((receipt) => JSON.stringify(receipt)).join('\n'), 'application/x-ndjson');
  } else if (request.method === 'POST') {
    receive(request, response);
  } else {
    request.resume();
    send(response, 404, JSON.stringify({ error: `no route ${request.method} ${path}` }));
  }
});
// Like a receiver behind a load balancer: connections are kept for a while between deliveries.
server.keepAliveTimeout = 10_000;

let pendingInput = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  const lines = (pendingInput + chunk).split('\n');
  pendingInput = lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const command = JSON.parse(line);
      if (typeof command.secret === 'string') secret = command.secret;
    } catch {
      process.stderr.write(`webhook-receiver: ignored stdin line ${JSON.stringify(line.slice(0, 100))}\n`);
    }
  }
});

serveForParent(server);
