import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { formatTraceTree, startInMemoryTelemetry, type InMemoryTelemetry } from '@svc/telemetry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAlertTestApp, createClient, postMid, startReceiver, type AlertTestApp } from './alert-helpers.js';
import { ADMIN_TOKEN } from './helpers.js';

// The operator's tooling: its own span, sent as traceparent with the rate post.
const ADMIN_TRACE = '0af7651916cd43dd8448eb211c80319c';
const ADMIN_SPAN = 'b7ad6b7169203331';

const kindOf = (span: ReadableSpan | undefined) => Number(span?.kind);

describe('fx tracing (in-memory exporter)', () => {
  let telemetry: InMemoryTelemetry;
  let test: AlertTestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    telemetry = await startInMemoryTelemetry('fx');
    test = await buildAlertTestApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await test.close();
    await telemetry.stop();
  });

  it('delivers a rate alert in the trace of the admin rate post that fired it', async () => {
    const client = await createClient(test, 'Enterprise');
    await postMid(test, 'MARKET', 'USD', 100);
    const alert = await test.app.inject({ method: 'POST', url: '/api/v1/client/webhooks', headers: client.headers, payload: { webhookUrl: receiver.url, currency: 'USD', source: 'MARKET', alertType: 0, thresholdValue: 110 } });
    expect(alert.statusCode, alert.body).toBe(201);

    const posted = await test.app.inject({
      method: 'POST',
      url: '/api/v1/admin/rates',
      headers: { 'X-Admin-Token': ADMIN_TOKEN, traceparent: `00-${ADMIN_TRACE}-${ADMIN_SPAN}-01` },
      payload: { source: 'MARKET', force: true, rates: [{ currency: 'USD', buy: 112, sell: 112 }] },
    });
    expect(posted.statusCode, posted.body).toBe(201);
    await test.drain();
    expect(receiver.received).toHaveLength(1);

    const spans = telemetry.spansOf(ADMIN_TRACE);
    console.log(formatTraceTree(spans));
    const [post] = spans.filter((span) => span.name === 'POST /api/v1/admin/rates');
    expect(kindOf(post)).toBe(SpanKind.SERVER);
    expect(post!.parentSpanContext?.spanId).toBe(ADMIN_SPAN);
    const [delivery] = spans.filter((span) => span.name === 'webhook rate_alert');
    expect(kindOf(delivery)).toBe(SpanKind.CONSUMER);
    expect(delivery!.attributes).toMatchObject({ 'messaging.destination.name': 'alert_deliveries', 'svc.queue.attempt': 1 });
    // Queued by the request's handler: the handler span is the delivery's parent, the request span its grandparent.
    const parent = spans.find((span) => span.spanContext().spanId === delivery!.parentSpanContext?.spanId);
    expect(parent?.parentSpanContext?.spanId).toBe(post!.spanContext().spanId);
    const send = spans.find((span) => kindOf(span) === Number(SpanKind.CLIENT) && span.parentSpanContext?.spanId === delivery!.spanContext().spanId);
    expect(send?.attributes['http.response.status_code']).toBe(200);
    expect(receiver.received[0]!.headers.traceparent).toBe(`00-${ADMIN_TRACE}-${send!.spanContext().spanId}-01`);
    // The rate's insert is a database span under the request's handler.
    const insert = spans.find((span) => span.name === 'INSERT rate_observations');
    expect(insert?.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'INSERT', 'db.query.text': expect.stringMatching(/^insert into "fx"\."rate_observations"/) });
    expect(insert?.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
  });
});
