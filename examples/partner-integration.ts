// A partner's whole sandbox integration with @svc/identity-client, end to end: register a
// webhook endpoint, create a case, drive the end user's capture, await the signed webhook that
// says the case is decided, and read the decision. A test runs it against the real service
// (services/identity/test/partner-integration-example.test.ts); by hand, against a running
// identity whose tenant is a sandbox one and which may reach this machine's webhook receiver
// (WEBHOOK_ALLOW_PRIVATE_TARGETS=true, development only):
//
//   IDENTITY_URL=https://localhost:3001 IDENTITY_CLIENT_ID=… IDENTITY_CERT=client.crt IDENTITY_KEY=client.key \
//   IDENTITY_CA=infra/certs/ca.crt pnpm --filter @svc/examples partner-integration
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createIdentityClient, openCaptureSession, type IdentityClientOptions, type VerificationCase } from '@svc/identity-client';
import { Webhook } from 'standardwebhooks';

const SAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', 'services', 'identity', 'samples');
/** The events after which a case changes no more. */
const DECIDED = ['verification.approved', 'verification.rejected', 'verification.pending_manual_review', 'verification.failed', 'verification.expired'] as const;

interface IdentityEvent {
  eventType: string;
  eventId: string;
  timestamp: string;
  data: { caseId?: string; status?: string };
}

export interface IntegrationResult {
  caseId: string;
  /** The verified events received for the case, in the order they arrived. */
  events: string[];
  decided: VerificationCase;
}

/**
 * Checks a delivery as any Standard Webhooks library does (webhook-id, webhook-timestamp within 5 minutes,
 * webhook-signature over the raw bytes) with the signing secret exactly as the API returned it; the event,
 * or undefined when it must be refused.
 */
export function verifyDelivery(signingSecret: string, headers: Record<string, string | string[] | undefined>, rawBody: Buffer): IdentityEvent | undefined {
  try {
    return new Webhook(signingSecret).verify(rawBody, headers as Record<string, string>) as IdentityEvent;
  } catch {
    return undefined;
  }
}

/** A webhook receiver that verifies every delivery over its raw bytes before reading it. */
function startReceiver(secret: () => string, onEvent: (event: IdentityEvent) => void): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const event = verifyDelivery(secret(), request.headers, rawBody);
      response.writeHead(event ? 204 : 400).end();
      // At least once and in any order: a real receiver dedupes by webhook-id (or eventId) and orders by timestamp.
      if (event) onEvent(event);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function runPartnerIntegration(options: { identity: IdentityClientOptions; timeoutMs?: number; log?: (line: string) => void }): Promise<IntegrationResult> {
  const log = options.log ?? (() => undefined);
  const identity = createIdentityClient(options.identity);
  let signingSecret = '';
  const seen = new Map<string, IdentityEvent>();
  let caseId = '';
  let notify: (() => void) | undefined;
  const receiver = await startReceiver(
    () => signingSecret,
    (event) => {
      if (seen.has(event.eventId)) return;
      seen.set(event.eventId, event);
      log(`webhook ${event.eventType} (${event.data.status ?? '-'})`);
      notify?.();
    },
  );
  let endpointId: string | undefined;
  try {
    // 1. Where the service tells us about our cases.
    const { port } = receiver.address() as AddressInfo;
    const { data: hook } = await identity.api.POST('/api/partner/v1/webhooks', {
      body: { url: `http://127.0.0.1:${port}/identity-events`, eventTypes: ['verification.session_issued', 'verification.evidence_uploaded', ...DECIDED] },
    });
    endpointId = hook!.endpoint.id;
    signingSecret = hook!.signingSecret;

    // 2. A case for one of our customers; the order id is the idempotency key, so a retry is safe.
    const order = `order-${randomUUID()}`;
    const { data: created } = await identity.api.POST('/api/partner/v1/verifications', {
      headers: { 'idempotency-key': order },
      body: { documentType: 'SyrianPassport', externalReference: order },
    });
    caseId = created!.caseId;
    log(`case ${caseId} created (${created!.status})`);

    // 3. The end user's app: exchange the one-time session token, upload, submit.
    const capture = await openCaptureSession({ baseUrl: options.identity.baseUrl, sessionToken: created!.sessionToken, ...(options.identity.ca ? { ca: options.identity.ca } : {}) });
    try {
      await capture.upload('DocumentFront', readFileSync(join(SAMPLES, 'document-front.jpg')), 'document-front.jpg');
      await capture.upload('Selfie', readFileSync(join(SAMPLES, 'selfie.png')), 'selfie.png');
      await capture.upload('LivenessVideo', readFileSync(join(SAMPLES, 'liveness.mp4')), 'liveness.mp4');
      log(`capture submitted (${(await capture.submit()).status})`);
    } finally {
      await capture.close();
    }

    // 4. Wait for the webhook that says the case is decided: no polling.
    const decidedEvent = () => [...seen.values()].find((event) => event.data.caseId === caseId && (DECIDED as readonly string[]).includes(event.eventType));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no decision webhook for case ${caseId} within ${options.timeoutMs ?? 60_000} ms`)), options.timeoutMs ?? 60_000);
      notify = () => {
        if (!decidedEvent()) return;
        clearTimeout(timer);
        resolve();
      };
      notify();
    });

    // 5. The decision, read from the API (the webhook's data is a snapshot; the case is the truth).
    const { data: decided } = await identity.api.GET('/api/partner/v1/verifications/{caseId}', { params: { path: { caseId } } });
    log(`case ${caseId}: ${decided!.status}, risk ${decided!.compositeRiskScore ?? '-'}, ${decided!.decisionReason ?? ''}`);
    const events = [...seen.values()].filter((event) => event.data.caseId === caseId).map((event) => event.eventType);
    return { caseId, events, decided: decided! };
  } finally {
    if (endpointId) await identity.api.DELETE('/api/partner/v1/webhooks/{id}', { params: { path: { id: endpointId } } });
    await identity.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const required = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`set ${name} (see the comment at the top of this file)`);
    return value;
  };
  const result = await runPartnerIntegration({
    identity: {
      baseUrl: required('IDENTITY_URL'),
      clientId: required('IDENTITY_CLIENT_ID'),
      certificate: readFileSync(required('IDENTITY_CERT')),
      privateKey: readFileSync(required('IDENTITY_KEY')),
      ...(process.env.IDENTITY_CA ? { ca: readFileSync(process.env.IDENTITY_CA) } : {}),
    },
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify({ caseId: result.caseId, status: result.decided.status, events: result.events }));
}
