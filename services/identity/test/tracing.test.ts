import { context, propagation, SpanKind, trace, type Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { formatTraceTree, startInMemoryTelemetry, type InMemoryTelemetry } from '@svc/telemetry/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { partnerWithToken, submittedCase, type Partner } from './case-helpers.js';
import { startSignedReceiver, type SignedReceiver } from './fixtures/signed-receiver.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,20,20,20,20', WEBHOOK_TIMEOUT_MS: '2000' };

/** The spans from `span` up to the root, nearest first. */
function ancestorsOf(span: ReadableSpan, spans: readonly ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((each) => [each.spanContext().spanId, each]));
  const chain: ReadableSpan[] = [];
  for (let parent = byId.get(span.parentSpanContext?.spanId ?? ''); parent; parent = byId.get(parent.parentSpanContext?.spanId ?? '')) chain.push(parent);
  return chain;
}

// ReadableSpan's kind is typed by the SDK's copy of the API's enum: compared as numbers.
const kindOf = (span: ReadableSpan | undefined) => Number(span?.kind);

function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name), `one span named ${name}`).toEqual([name]);
  return found[0]!;
}

describe('identity tracing (in-memory exporter)', () => {
  let telemetry: InMemoryTelemetry;
  let test: TestApp;
  let receiver: SignedReceiver;
  let partner: Partner;

  beforeAll(async () => {
    // Before the app: @fastify/otel is registered, and Redis patched, as the app is built.
    telemetry = await startInMemoryTelemetry('identity');
    test = await buildTestApp(ENV);
    receiver = await startSignedReceiver();
    partner = await partnerWithToken(test, 'Acme', undefined, { sandbox: true });
  });
  afterAll(async () => {
    await test.close();
    await receiver.close();
    await telemetry.stop();
  });

  it('traces one case from POST /verifications through capture, checks and the verification.approved delivery as one trace', async () => {
    const hook = await test.app.inject({ method: 'POST', url: `${BASE}/webhooks`, headers: partner.headers, payload: { url: receiver.url('/traced'), eventTypes: ['verification.approved'] } });
    expect(hook.statusCode, hook.body).toBe(201);
    receiver.trust('/traced', hook.json<{ signingSecret: string }>().signingSecret);

    // The partner's own instrumented code: one span around the whole flow, its traceparent on every request it (and its capture page) sends.
    const partnerSpan: Span = trace.getTracer('partner-app').startSpan('partner: verify a customer');
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), partnerSpan), carrier);
    const inject = ((options: { headers?: Record<string, string> }) => test.app.inject({ ...options, headers: { ...options.headers, ...carrier } } as never)) as TestApp['app']['inject'];
    const traced: TestApp = { ...test, app: new Proxy(test.app, { get: (app, key): unknown => (key === 'inject' ? inject : Reflect.get(app, key)) }) };
    const { caseId } = await submittedCase(traced, partner, 'order-traced#approve');
    partnerSpan.end();

    // The checks job and the delivery run later, outside any request, as a worker process would.
    expect(await test.worker.runJobs()).toBe(1);
    await waitForDelivery();
    const [receipt] = receiver.at('/traced');
    expect(receipt!.body).toMatchObject({ eventType: 'verification.approved', data: { caseId } });

    const traceId = partnerSpan.spanContext().traceId;
    const spans = telemetry.spansOf(traceId);
    console.log(formatTraceTree(spans));

    const root = only(spans, 'partner: verify a customer');
    const create = only(spans, `POST ${BASE}/verifications`);
    const submit = only(spans, 'POST /api/capture/v1/submit');
    const checks = only(spans, 'job run-checks');
    const delivery = only(spans, 'webhook verification.approved');
    for (const request of [create, only(spans, 'POST /api/capture/v1/session'), submit]) {
      expect(kindOf(request)).toBe(SpanKind.SERVER);
      expect(request.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(request.attributes['svc.correlation_id']).toEqual(expect.any(String));
    }
    expect(spans.filter((span) => span.name === 'POST /api/capture/v1/evidence')).toHaveLength(3);
    // The job continues the request that queued it; the delivery continues the job that decided the case.
    expect(kindOf(checks)).toBe(SpanKind.CONSUMER);
    expect(ancestorsOf(checks, spans)).toContain(submit);
    expect(ancestorsOf(delivery, spans)).toContain(checks);
    expect(delivery.attributes).toMatchObject({ 'messaging.destination.name': 'webhook_deliveries', 'svc.queue.attempt': 1 });
    // The POST to the receiver is a client span under the delivery, and its traceparent names it.
    const post = spans.find((span) => kindOf(span) === Number(SpanKind.CLIENT) && span.parentSpanContext?.spanId === delivery.spanContext().spanId);
    expect(post?.attributes['url.full']).toBe(receiver.url('/traced'));
    expect(receipt!.headers.traceparent).toBe(`00-${traceId}-${post!.spanContext().spanId}-01`);
    // Database queries are client spans inside the requests and the job.
    const queries = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(queries.some((span) => span.name === 'INSERT verification_cases' && ancestorsOf(span, spans).includes(create))).toBe(true);
    expect(queries.some((span) => ancestorsOf(span, spans).includes(checks))).toBe(true);
    for (const query of queries) expect(query.attributes['db.query.text']).toEqual(expect.any(String));
    if (process.env.REDIS_URL) expect(spans.some((span) => span.attributes['db.system.name'] === 'redis' || span.attributes['db.system'] === 'redis')).toBe(true);
  });

  it("continues a partner's incoming traceparent: same trace id, the partner's span as parent", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=1`, headers: { ...partner.headers, traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(response.statusCode, response.body).toBe(200);
    const [server] = telemetry.spansOf(traceId).filter((span) => kindOf(span) === Number(SpanKind.SERVER));
    expect(server).toMatchObject({ name: `GET ${BASE}/verifications` });
    expect(server!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  });

  it('starts a new trace when the traceparent is malformed, and never traces the health probe', async () => {
    const before = telemetry.exporter.getFinishedSpans().length;
    const health = await test.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBeLessThan(500);
    expect(telemetry.exporter.getFinishedSpans()).toHaveLength(before);
    const response = await test.app.inject({ method: 'GET', url: `${BASE}/verifications?pageSize=1`, headers: { ...partner.headers, traceparent: '00-not-a-trace-01' } });
    expect(response.statusCode).toBe(200);
    const server = telemetry.exporter.getFinishedSpans().slice(before).find((span) => kindOf(span) === Number(SpanKind.SERVER));
    expect(server?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server?.parentSpanContext).toBeUndefined();
  });

  async function waitForDelivery() {
    await vi.waitFor(
      async () => {
        await test.worker.deliverWebhooks();
        expect(receiver.at('/traced')).toHaveLength(1);
      },
      { timeout: 10_000, interval: 20 },
    );
  }
});
