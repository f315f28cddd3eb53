import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { buildViteApp, removeQuietly, screenshotPath as screenshotIn, type WatchedPage } from '@svc/service-kit/browser-testing';
import { runCliProcess, startServiceProcess, type ServiceProcess } from '@svc/service-kit/testing';
import { makeCertificate, type TestCertificate } from '../certificates.js';

export { launchChromium, openPage, removeQuietly, type WatchedPage } from '@svc/service-kit/browser-testing';

export const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const ARTIFACTS_DIR = join(SERVICE_DIR, 'test-artifacts');
export const API = '/api/partner/v1';
export const CAPTURE_API = '/api/capture/v1';
/** Every portal user the fixture makes has this password (at least 12 characters, as the CLI requires). */
export const PASSWORD = 'portal-browser-test-password';

/** The portal built from the current sources into a directory of its own (PORTAL_WEB_ROOT). */
export function buildPortal(): string {
  return buildViteApp(SERVICE_DIR, 'portal', 'identity-portal-');
}

/** services/identity/test-artifacts/<name>.png, e.g. portal-clients-ar. */
export function screenshotPath(name: string): string {
  return screenshotIn(ARTIFACTS_DIR, name);
}

export interface IdentityService {
  /** Stays the same across restarts (the same port), so open pages keep working. */
  readonly baseUrl: string;
  readonly dataDir: string;
  output(): string;
  stop(): Promise<void>;
  /**
   * Runs `change` with the service stopped and starts it again on the same port: the embedded
   * database (PGlite in DATA_DIR) has one owner at a time, so the operator CLI runs in between.
   * Nested calls stop and start once. Portal sessions live in the database and survive.
   */
  whileStopped<T>(change: () => Promise<T>): Promise<T>;
}

/** identity as an operator starts it on the embedded default, serving the portal from `webRoot`. */
export async function startIdentity(webRoot: string, env: Record<string, string> = {}): Promise<IdentityService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'identity-portal-data-'));
  const fullEnv: Record<string, string> = {
    DATA_DIR: dataDir,
    PORTAL_WEB_ROOT: webRoot,
    // Plain http on 127.0.0.1: a Secure cookie would never be sent back.
    PORTAL_COOKIE_SECURE: 'false',
    // The tests sign in and load pages many times a minute from one address.
    RATE_LIMIT_PER_MINUTE: '100000',
    // Test webhook receivers listen on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Tests about something else sign staff in with a password alone, whatever DATABASE_URL makes the default.
    STAFF_REQUIRE_SECOND_FACTOR: 'false',
    ...env,
  };
  const start = (port?: string) =>
    startServiceProcess({ cwd: SERVICE_DIR, entry: 'src/server.ts', healthPath: '/health', timeoutMs: 90_000, env: { ...fullEnv, ...(port ? { PORT: port } : {}) } });
  let running: ServiceProcess | undefined = await start();
  const baseUrl = running.baseUrl;
  const port = new URL(baseUrl).port;
  let earlierOutput = '';
  let depth = 0;
  return {
    baseUrl,
    dataDir,
    output: () => earlierOutput + (running?.output() ?? ''),
    async stop() {
      await running?.stop();
      running = undefined;
    },
    async whileStopped(change) {
      if (depth === 0 && running) {
        earlierOutput += running.output();
        await running.stop();
        running = undefined;
      }
      depth += 1;
      try {
        return await change();
      } finally {
        depth -= 1;
        if (depth === 0) running = await start(port);
      }
    },
  };
}

/** `pnpm --filter @svc/identity cli <args>` against the service's database; its JSON answer. */
export async function runIdentityCli<T>(service: IdentityService, args: string[]): Promise<T> {
  return service.whileStopped(async () => {
    const result = await runCliProcess({ cwd: SERVICE_DIR, args, env: { DATA_DIR: service.dataDir } });
    if (result.code !== 0) throw new Error(`identity cli ${args[0]} failed (${result.code}): ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  });
}

export interface TenantAdmin {
  tenantId: string;
  name: string;
  email: string;
  password: string;
}

/** A tenant and its first PartnerAdmin, made with the operator CLI (tenant:create). */
export async function createTenant(service: IdentityService, options: { sandbox?: boolean; name?: string } = {}): Promise<TenantAdmin> {
  const name = options.name ?? (options.sandbox ? 'Sandbox Bank' : 'Acme Bank');
  const email = `admin-${randomUUID().slice(0, 8)}@example.com`;
  const args = ['tenant:create', '--name', name, '--admin-email', email, '--admin-password', PASSWORD, ...(options.sandbox ? ['--sandbox'] : [])];
  const { tenantId } = await runIdentityCli<{ tenantId: string }>(service, args);
  return { tenantId, name, email, password: PASSWORD };
}

/** Another portal user of the tenant (user:create), e.g. a PartnerReadOnly support agent. */
export async function createUser(service: IdentityService, tenantId: string, role: 'PartnerAdmin' | 'PartnerReadOnly'): Promise<{ userId: string; email: string; password: string }> {
  const email = `${role === 'PartnerAdmin' ? 'admin' : 'support'}-${randomUUID().slice(0, 8)}@example.com`;
  const { userId } = await runIdentityCli<{ userId: string }>(service, ['user:create', '--tenant', tenantId, '--email', email, '--password', PASSWORD, '--role', role]);
  return { userId, email, password: PASSWORD };
}

/** tenant:disable / tenant:enable */
export async function setTenantEnabled(service: IdentityService, tenantId: string, enabled: boolean): Promise<void> {
  await runIdentityCli(service, [enabled ? 'tenant:enable' : 'tenant:disable', '--id', tenantId]);
}

/** Signs in through the portal's own form and waits for the first screen after it. */
export async function signIn(page: Page, baseUrl: string, email: string, password = PASSWORD, path = '/portal/sign-in'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.locator('#sign-in-email').fill(email);
  await page.locator('#sign-in-password').fill(password);
  await page.locator('form.sign-in-card button[type=submit]').click();
  await page.waitForURL((url) => !url.pathname.startsWith('/portal/sign-in'));
  await page.locator('nav.sections').waitFor();
}

/** A portal session token from Node (Authorization: Bearer svc_ps_…, which needs no Origin). */
export async function portalSessionToken(baseUrl: string, email: string, password = PASSWORD): Promise<string> {
  const response = await fetch(`${baseUrl}${API}/portal/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (response.status !== 200) throw new Error(`portal login answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { sessionToken: string }).sessionToken;
}

/** The URL-escaped PEM a TLS-terminating proxy forwards (nginx $ssl_client_escaped_cert); loopback is a trusted proxy. */
export function clientCertificateHeader(certificate: TestCertificate): Record<string, string> {
  return { 'x-client-cert': encodeURIComponent(certificate.certPem) };
}

export interface PartnerApi {
  baseUrl: string;
  clientId: string;
  certificate: TestCertificate;
  token: string;
  /** Authorization and the client certificate (tokens are bound to it, RFC 8705). */
  headers: Record<string, string>;
  /** A JSON call to the partner API; throws unless the answer is 2xx. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/**
 * The partner's backend: an OAuth client registered through the admin's portal session, an
 * access token from the token endpoint, then plain API calls with it.
 */
export async function partnerApi(baseUrl: string, admin: { email: string; password?: string }, options: { clientName?: string } = {}): Promise<PartnerApi> {
  const session = await portalSessionToken(baseUrl, admin.email, admin.password);
  const certificate = await makeCertificate({ cn: 'partner-backend' });
  const registered = await fetch(`${baseUrl}${API}/oauth/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientName: options.clientName ?? 'Backend (test fixture)', certificatePem: certificate.certPem }),
  });
  if (registered.status !== 201) throw new Error(`client registration answered ${registered.status}: ${await registered.text()}`);
  const { clientId } = (await registered.json()) as { clientId: string };
  const tokenResponse = await fetch(`${baseUrl}${API}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...clientCertificateHeader(certificate) },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }).toString(),
  });
  if (tokenResponse.status !== 200) throw new Error(`token request answered ${tokenResponse.status}: ${await tokenResponse.text()}`);
  const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}`, ...clientCertificateHeader(certificate) };
  return {
    baseUrl,
    clientId,
    certificate,
    token,
    headers,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${baseUrl}${path.startsWith('/api/') ? path : `${API}${path}`}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

let evidenceFiles: { documentFront: Buffer; selfie: Buffer; livenessVideo: Buffer } | undefined;

/** Real, small media made once with ffmpeg (a test pattern), so thumbnails and the video player show something. */
export function sampleEvidence(): { documentFront: Buffer; selfie: Buffer; livenessVideo: Buffer } {
  if (evidenceFiles) return evidenceFiles;
  const dir = mkdtempSync(join(tmpdir(), 'identity-portal-evidence-'));
  const ffmpeg = (args: string[]) => {
    const result = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`ffmpeg failed: ${result.stderr}`);
  };
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=640x400:rate=1', '-frames:v', '1', join(dir, 'front.jpg')]);
  ffmpeg(['-f', 'lavfi', '-i', 'smptebars=size=360x480:rate=1', '-frames:v', '1', join(dir, 'selfie.png')]);
  ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=15', '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', join(dir, 'liveness.mp4')]);
  evidenceFiles = { documentFront: readFileSync(join(dir, 'front.jpg')), selfie: readFileSync(join(dir, 'selfie.png')), livenessVideo: readFileSync(join(dir, 'liveness.mp4')) };
  return evidenceFiles;
}

async function captureCall(baseUrl: string, token: string, path: string, body?: FormData | object): Promise<unknown> {
  const json = body !== undefined && !(body instanceof FormData);
  const response = await fetch(`${baseUrl}${CAPTURE_API}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: json ? JSON.stringify(body) : body } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${CAPTURE_API}${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * A sandbox passport case taken the whole way: created, its capture session opened, consent given, the three
 * pieces of evidence uploaded, submitted, and polled until the simulator decides it. The
 * externalReference suffix picks the outcome (#approve, the default; #review, #reject, #fail).
 */
export async function runSandboxCase(
  partner: PartnerApi,
  options: { externalReference?: string; until?: string[]; timeoutMs?: number; evidence?: ReturnType<typeof sampleEvidence>; documentType?: 'SyrianPassport' | 'SyrianNationalId' } = {},
): Promise<{ caseId: string; status: string; externalReference: string }> {
  const externalReference = options.externalReference ?? `REF-${randomUUID().slice(0, 8)}`;
  const documentType = options.documentType ?? 'SyrianPassport';
  const created = await partner.call<{ caseId: string; sessionToken: string }>('POST', '/verifications', { documentType, externalReference });
  const { captureToken } = (await captureCall(partner.baseUrl, created.sessionToken, '/session')) as { captureToken: string };
  await captureCall(partner.baseUrl, captureToken, '/consent', { language: 'en' });
  const evidence = options.evidence ?? sampleEvidence();
  for (const [evidenceType, bytes, fileName, type] of [
    ['DocumentFront', evidence.documentFront, 'front.jpg', 'image/jpeg'],
    // A national ID's MRZ is on its back, so the case needs both sides.
    ...(documentType === 'SyrianNationalId' ? [['DocumentBack', evidence.documentFront, 'back.jpg', 'image/jpeg'] as const] : []),
    ['Selfie', evidence.selfie, 'selfie.png', 'image/png'],
    ['LivenessVideo', evidence.livenessVideo, 'liveness.mp4', 'video/mp4'],
  ] as const) {
    const form = new FormData();
    form.set('evidenceType', evidenceType);
    form.set('file', new Blob([new Uint8Array(bytes)], { type }), fileName);
    await captureCall(partner.baseUrl, captureToken, '/evidence', form);
  }
  await captureCall(partner.baseUrl, captureToken, '/submit');
  const until = options.until ?? ['Approved', 'Rejected', 'PendingManualReview', 'Failed', 'Expired', 'Cancelled'];
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const { status } = await partner.call<{ status: string }>('GET', `/verifications/${created.caseId}`);
    if (until.includes(status)) return { caseId: created.caseId, status, externalReference };
    if (Date.now() > deadline) throw new Error(`case ${created.caseId} still ${status} after ${options.timeoutMs ?? 30_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A sandbox case that ends Approved (the simulator's default outcome). */
export async function runSandboxCaseToApproval(partner: PartnerApi, externalReference?: string): Promise<{ caseId: string; externalReference: string }> {
  const result = await runSandboxCase(partner, { ...(externalReference ? { externalReference } : {}), until: ['Approved', 'Rejected', 'PendingManualReview', 'Failed'] });
  if (result.status !== 'Approved') throw new Error(`sandbox case ${result.caseId} ended ${result.status}, not Approved`);
  return result;
}

/** What a browser test started, released in the order that frees each part: pages, browser, other servers, service, files. */
export async function tearDownPortalTest(
  started: { opened: WatchedPage[]; browser: Browser | undefined; service: IdentityService | undefined; webRoot?: string },
  also: { servers?: Array<{ close(): Promise<unknown> } | undefined>; roots?: string[] } = {},
): Promise<void> {
  for (const watched of started.opened) await watched.context.close().catch(() => undefined);
  await started.browser?.close();
  for (const server of also.servers ?? []) await server?.close();
  await started.service?.stop();
  if (started.service) removeQuietly(started.service.dataDir);
  for (const root of [started.webRoot, ...(also.roots ?? [])]) if (root) removeQuietly(root);
}
