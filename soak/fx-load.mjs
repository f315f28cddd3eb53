// The fx side of the soak's load, as lanes that run until `running()` turns false: an anonymous
// reader above its per-IP limit (429s are expected and counted, never errors), a keyed reader
// under its per-key limit whose successes are counted per key, an admin posting market rates in
// a small random walk, and a live stream reader that reconnects whenever its instance dies.
import { TextDecoder } from 'node:util';
import { askedToRetry, request } from './traffic.mjs';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function unexpected(recorder, what, answer) {
  if (answer.connectionError || answer.status === 429) return;
  recorder.unexpected.push({ at: Date.now(), what, status: answer.status, body: answer.body.slice(0, 300) });
}

export async function anonymousReader(context) {
  while (context.running()) {
    const answer = await request(context.recorder, { service: 'fx', route: 'GET /rates/latest (anonymous)', origin: context.origin, path: '/api/v1/rates/latest?lang=en' });
    if (answer.status !== 200) unexpected(context.recorder, 'anonymous read', answer);
    await pause(400);
  }
}

export async function keyedReader(context) {
  const headers = { 'x-api-key': context.key.publicKey, 'x-api-secret': context.key.privateKey };
  while (context.running()) {
    const answer = await request(context.recorder, { service: 'fx', route: 'GET /rates/latest (keyed)', origin: context.origin, path: '/api/v1/rates/latest?currencies=USD,EUR', headers });
    // Answered by the service: counted. Lost on the way back from a killed instance, or a 503 while
    // PostgreSQL was away (refused at the key check, or counted and then failed): maybe counted.
    const unavailable = askedToRetry(answer) !== null;
    if (answer.connectionError || unavailable) context.keyed.uncertain += 1;
    else {
      context.keyed.answered += 1;
      // While Redis is stopped each instance counts the quota in memory, and those counts are not added to the shared one afterwards.
      if (context.redisOutage) context.keyed.duringRedisOutage += 1;
    }
    if (answer.status !== 200 && !unavailable) unexpected(context.recorder, 'keyed read', answer);
    // Under the per-key 60 a minute, so every request is counted against the monthly quota.
    await pause(1500);
  }
}

/** The key's monthly usage as the service reports it (X-Quota-Limit − X-Quota-Remaining), after one more counted request. */
export async function keyedUsage(context) {
  const headers = { 'x-api-key': context.key.publicKey, 'x-api-secret': context.key.privateKey };
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const answer = await request(context.recorder, { service: 'fx', route: 'GET /rates/latest (keyed)', origin: context.origin, path: '/api/v1/rates/latest?currencies=USD', headers });
    if (answer.connectionError || askedToRetry(answer) !== null) {
      context.keyed.uncertain += 1;
      await pause(1000);
      continue;
    }
    context.keyed.answered += 1;
    const limit = Number(answer.headers.get('x-quota-limit'));
    const remaining = Number(answer.headers.get('x-quota-remaining'));
    return Number.isFinite(limit) && Number.isFinite(remaining) && answer.headers.has('x-quota-limit') ? limit - remaining : null;
  }
  return null;
}

/**
 * Two rate alerts on the market dollar (up and down by half a percent: the admin's random walk
 * crosses them every few posts), created with a key of their own so the keyed reader's monthly
 * counter stays the reader's alone; each secret is handed to the receiver.
 */
export async function createAlerts(context, alertKey, receiver) {
  const headers = { 'x-api-key': alertKey.publicKey, 'x-api-secret': alertKey.privateKey };
  for (const [name, alertType] of [['fx-up', 2], ['fx-down', 3]]) {
    const answer = await request(context.recorder, {
      service: 'fx', route: 'POST /client/webhooks', origin: context.origin, method: 'POST', path: '/api/v1/client/webhooks', headers,
      json: { webhookUrl: `${receiver.origin}/hooks/${name}`, currency: 'USD', source: 'MARKET', alertType, thresholdValue: 0.5, label: `soak ${name}` },
    });
    if (answer.status !== 201) throw new Error(`creating the ${name} alert: ${answer.status} ${answer.body.slice(0, 300)}`);
    receiver.child.stdin.write(`${JSON.stringify({ name, secret: answer.json.signingSecret, scheme: 'fx' })}\n`);
  }
}

export async function adminPoster(context) {
  let mid = 15_000;
  while (context.running()) {
    mid = Math.round(mid * (1 + (Math.random() - 0.5) * 0.02));
    const answer = await request(context.recorder, {
      service: 'fx', route: 'POST /admin/rates', origin: context.origin, method: 'POST', path: '/api/v1/admin/rates',
      headers: { 'x-admin-token': context.adminToken },
      json: { source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: mid - 50, sell: mid + 50 }, { currency: 'EUR', buy: Math.round(mid * 1.08) - 50, sell: Math.round(mid * 1.08) + 50 }] },
    });
    if (answer.status === 201) context.ratePosts += 1;
    else unexpected(context.recorder, 'admin rate post', answer);
    await pause(3000);
  }
}

export async function streamReader(context) {
  while (context.running()) {
    try {
      const response = await fetch(`${context.origin}/api/v1/rates/stream`, { signal: context.stopSignal });
      if (response.status !== 200) {
        await response.arrayBuffer();
        await pause(1000);
        continue;
      }
      context.streams.opened += 1;
      const decoder = new TextDecoder();
      for await (const chunk of response.body) {
        context.streams.events += (decoder.decode(chunk, { stream: true }).match(/^id: /gm) ?? []).length;
      }
    } catch {
      // the instance died or the run ended: reconnect while running
    }
    await pause(500);
  }
}
