import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../src/db/schema.js';
import { createFrameStrips } from '../src/domain/review/liveness-frames.js';
import { createStaffUser } from '../src/domain/accounts/staff.js';
import { getCase, jpegBytes, mp4Bytes, partnerWithToken, pngBytes, startedCase, submittedCase, uploadEvidence, type Partner } from './case-helpers.js';
import { BASE, buildTestApp, manualClock, PASSWORD, type TestApp } from './helpers.js';

const INTERNAL = '/api/internal/v1';
const ORIGIN = 'http://localhost:80';

interface StaffLogin {
  staffId: string;
  email: string;
  authorization: string;
  cookie: string;
}

describe('the internal API behind the reviewers\' console', () => {
  const clock = manualClock();
  let test: TestApp;
  let sandbox: Partner;
  let other: Partner;
  let alice: StaffLogin;
  let bob: StaffLogin;
  let lead: StaffLogin;

  async function staffUser(role: 'Reviewer' | 'ReviewLead'): Promise<StaffLogin> {
    const email = `${role.toLowerCase()}-${randomUUID()}@operator.example`;
    const { staffId } = await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD, role }, clock.now()));
    const login = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    const token = login.json<{ sessionToken: string }>().sessionToken;
    const setCookies = [login.headers['set-cookie'] ?? []].flat();
    // The answer also clears a pending second-step cookie; the session cookie is the one that matters here.
    expect(setCookies.find((cookie) => cookie.startsWith('svc_console_session='))).toMatch(/^svc_console_session=svc_ss_[^;]+; Max-Age=28800; Path=\/api\/internal\/v1; HttpOnly; Secure; SameSite=Strict/);
    return { staffId, email, authorization: `Bearer ${token}`, cookie: `svc_console_session=${token}` };
  }

  beforeAll(async () => {
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' }, { clock: clock.now });
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    other = await partnerWithToken(test, 'Other', undefined, { sandbox: true });
    alice = await staffUser('Reviewer');
    bob = await staffUser('Reviewer');
    lead = await staffUser('ReviewLead');
  });
  afterAll(() => test.close());

  async function caseInReview(partner = sandbox, reference = 'needs-a-look#review') {
    const { caseId } = await submittedCase(test, partner, reference);
    await test.worker.runJobs();
    return caseId;
  }
  const as = (staff: StaffLogin) => ({ authorization: staff.authorization });
  const claim = (caseId: string, staff: StaffLogin) => test.app.inject({ method: 'POST', url: `${INTERNAL}/cases/${caseId}/claim`, headers: as(staff) });
  const release = (caseId: string, staff: StaffLogin) => test.app.inject({ method: 'DELETE', url: `${INTERNAL}/cases/${caseId}/claim`, headers: as(staff) });
  const review = (caseId: string, staff: StaffLogin, payload: object) => test.app.inject({ method: 'POST', url: `${INTERNAL}/cases/${caseId}/review`, headers: as(staff), payload });

  it('says who is signed in, and signs out by cookie from the console\'s own origin only', async () => {
    const session = await test.app.inject({ method: 'GET', url: `${INTERNAL}/session`, headers: { cookie: lead.cookie } });
    expect(session.statusCode).toBe(200);
    expect(session.json()).toEqual({ staff: { id: lead.staffId, email: lead.email, role: 'ReviewLead' }, expiresAt: expect.any(String), idleTimeoutSeconds: 1800, enrolmentOnly: false });
    const reviewer = await staffUser('Reviewer');
    const crossSite = await test.app.inject({ method: 'POST', url: `${INTERNAL}/logout`, headers: { cookie: reviewer.cookie, origin: 'https://evil.example' } });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json()).toMatchObject({ code: 'CSRF_REJECTED' });
    const noOrigin = await test.app.inject({ method: 'POST', url: `${INTERNAL}/logout`, headers: { cookie: reviewer.cookie } });
    expect(noOrigin.statusCode).toBe(403);
    const logout = await test.app.inject({ method: 'POST', url: `${INTERNAL}/logout`, headers: { cookie: reviewer.cookie, host: 'localhost', origin: ORIGIN } });
    expect(logout.statusCode).toBe(204);
    expect(String(logout.headers['set-cookie'])).toMatch(/^svc_console_session=; Max-Age=0/);
    expect((await test.app.inject({ method: 'GET', url: `${INTERNAL}/session`, headers: { cookie: reviewer.cookie } })).statusCode).toBe(401);
    const foreignLogin = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, headers: { origin: 'https://evil.example' }, payload: { email: lead.email, password: PASSWORD } });
    expect(foreignLogin.statusCode).toBe(403);
  });

  it('ends a session left idle for 30 minutes, while activity keeps it alive', async () => {
    const reviewer = await staffUser('Reviewer');
    const session = () => test.app.inject({ method: 'GET', url: `${INTERNAL}/session`, headers: as(reviewer) });
    for (let step = 0; step < 3; step += 1) {
      clock.advance(20 * 60_000);
      expect((await session()).statusCode).toBe(200);
    }
    clock.advance(30 * 60_000);
    const idle = await session();
    expect(idle.statusCode).toBe(401);
    expect(idle.json<{ detail: string }>().detail).toMatch(/without activity/);
    clock.advance(-30 * 60_000);
    expect((await session()).statusCode, 'an ended session stays ended').toBe(401);
    // Back to where the file's other tests expect the clock (their partners' access tokens last an hour).
    clock.advance(-60 * 60_000);
  });

  it('lets one reviewer claim a case, names the holder to the next, and frees it on release, timeout or decision', async () => {
    const caseId = await caseInReview();
    const first = await claim(caseId, alice);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ staffId: alice.staffId, email: alice.email, expiresAt: new Date(clock.now().getTime() + 15 * 60_000).toISOString() });
    const second = await claim(caseId, bob);
    expect(second.statusCode).toBe(409);
    expect(second.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(second.json()).toMatchObject({ code: 'CASE_CLAIMED', claimedBy: { staffId: alice.staffId, email: alice.email } });
    expect((await review(caseId, bob, { decision: 'Rejected', reasonCode: 'face_mismatch' })).json()).toMatchObject({ code: 'CASE_CLAIMED' });
    expect((await claim(caseId, alice)).statusCode, 'renewing one\'s own claim').toBe(200);
    expect((await release(caseId, bob)).statusCode, 'a reviewer cannot end another\'s claim').toBe(403);
    expect((await release(caseId, lead)).statusCode, 'a ReviewLead can').toBe(204);
    expect((await release(caseId, lead)).statusCode, 'nothing left to release').toBe(404);
    expect((await claim(caseId, bob)).statusCode).toBe(200);
    clock.advance(15 * 60_000 + 1);
    expect((await claim(caseId, alice)).statusCode, 'an expired claim is free').toBe(200);
    expect((await review(caseId, alice, { decision: 'Approved', reasonCode: 'other', reason: 'Checked by phone.' })).statusCode).toBe(200);
    const afterDecision = await claim(caseId, bob);
    expect(afterDecision.statusCode).toBe(409);
    expect(afterDecision.json()).toMatchObject({ code: 'INVALID_CASE_STATE', currentStatus: 'Approved' });
    const actions = (await test.db.select({ action: auditLog.action, actor: auditLog.actor }).from(auditLog).where(eq(auditLog.target, `case:${caseId}`))).map((row) => `${row.action} ${row.actor}`);
    expect(actions).toEqual(expect.arrayContaining([`review.claimed staff:${alice.staffId}`, `review.released staff:${lead.staffId}`, `review.claimed staff:${bob.staffId}`, `verification.approve staff:${alice.staffId}`]));
  });

  it('refuses bad claim and review input with a 4xx problem', async () => {
    const caseId = await caseInReview();
    expect((await claim('nope', alice)).statusCode).toBe(400);
    expect((await claim(randomUUID(), alice)).statusCode).toBe(404);
    for (const payload of [
      { decision: 'Approved', reasonCode: 'other' },
      { decision: 'Approved', reasonCode: 'bored' },
      { decision: 'Approved', reason: 'x', corrections: { fields: {} } },
      { decision: 'Approved', reason: 'x', corrections: { fields: { surname: 5 } } },
      { decision: 'Approved', reason: 'x', corrections: { fields: { notAField: 'x' } } },
    ]) {
      const response = await review(caseId, alice, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json(), JSON.stringify(payload)).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await getCase(test, sandbox, caseId)).json()).toMatchObject({ status: 'PendingManualReview' });
  });

  it('decides with a reason from the list and OCR corrections recorded before and after', async () => {
    const caseId = await caseInReview();
    const view = await test.app.inject({ method: 'GET', url: `${INTERNAL}/cases/${caseId}`, headers: as(alice) });
    expect(view.statusCode).toBe(200);
    const body = view.json<{ case: { ocrResult: { extractedFieldsJson: string } }; tenant: { id: string }; timeline: { action: string }[] }>();
    expect(body.tenant.id).toBe(sandbox.tenantId);
    expect(body.timeline.map((entry) => entry.action)).toContain('verification.flag-for-review');
    const [field, before] = Object.entries(JSON.parse(body.case.ocrResult.extractedFieldsJson) as Record<string, string>)[0]!;
    const decided = await review(caseId, alice, { decision: 'Approved', reasonCode: 'document_unreadable', reason: 'Glare on the MRZ; read by eye.', corrections: { fields: { [field]: 'CORRECTED' }, notes: 'From the printed page' } });
    expect(decided.json()).toEqual({ caseId, status: 'Approved' });
    const detail = (await getCase(test, sandbox, caseId)).json<{ decisionReason: string; ocrResult: { extractedFieldsJson: string } }>();
    expect(detail.decisionReason).toBe('Manual review (document_unreadable): Glare on the MRZ; read by eye.');
    expect((JSON.parse(detail.ocrResult.extractedFieldsJson) as Record<string, string>)[field]).toBe('CORRECTED');
    const history = await test.app.inject({ method: 'GET', url: `${BASE}/verifications/${caseId}/history`, headers: sandbox.headers });
    expect(history.json<{ data: unknown[] }>().data).toContainEqual(
      expect.objectContaining({ action: 'verification.ocr_fields_corrected', actor: `staff:${alice.staffId}`, detail: { fields: { [field]: 'CORRECTED' }, notes: 'From the printed page', before: { fields: { [field]: before } } } }),
    );
    expect(history.json<{ data: { action: string }[] }>().data.map((entry) => entry.action).filter((action) => action.startsWith('review.')), "the operator's own trail stays out of the partner's timeline").toEqual([]);
    const viewed = await test.db.select().from(auditLog).where(and(eq(auditLog.target, `case:${caseId}`), eq(auditLog.action, 'review.case_viewed')));
    expect(viewed.map((row) => row.actor)).toEqual([`staff:${alice.staffId}`]);
  });

  it('serves evidence to staff across tenants, each view audited with the staff actor', async () => {
    const caseId = await caseInReview(other);
    const view = (await test.app.inject({ method: 'GET', url: `${INTERNAL}/cases/${caseId}`, headers: as(bob) })).json<{ case: { documentEvidence: { id: string }[] } }>();
    const evidenceId = view.case.documentEvidence[0]!.id;
    const file = await test.app.inject({ method: 'GET', url: `${INTERNAL}/evidence/${evidenceId}/file`, headers: as(bob) });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    // The same answer the partner gets: its recorded SHA-256 as the ETag, never cached.
    expect(file.headers.etag).toBe(`"${createHash('sha256').update(file.rawPayload).digest('hex')}"`);
    expect(file.headers['cache-control']).toBe('private, no-store');
    const audit = await test.db.select().from(auditLog).where(and(eq(auditLog.target, `evidence:${evidenceId}`), eq(auditLog.action, 'evidence.downloaded')));
    expect(audit).toMatchObject([{ actor: `staff:${bob.staffId}`, tenantId: other.tenantId }]);
    expect((await test.app.inject({ method: 'GET', url: `${INTERNAL}/evidence/${randomUUID()}/file`, headers: as(bob) })).statusCode).toBe(404);
    expect((await test.app.inject({ method: 'GET', url: `${INTERNAL}/evidence/${evidenceId}/file`, headers: sandbox.portal })).statusCode).toBe(401);
  });

  it('filters the queue by tenant, document type and reason, shows claims and the oldest wait, and reports it as a metric', async () => {
    const mine = await caseInReview(other, 'queue-filter#review');
    clock.advance(90_000);
    await claim(mine, bob);
    const queue = (query: string) => test.app.inject({ method: 'GET', url: `${INTERNAL}/review-queue?pageSize=100&${query}`, headers: as(alice) });
    const byTenant = (await queue(`tenantId=${other.tenantId}`)).json<{ items: { id: string; tenantName: string; claim: unknown; waitingSeconds: number }[]; oldestWaitingSeconds: number }>();
    expect(byTenant.items.every((item) => item.tenantName === 'Other')).toBe(true);
    expect(byTenant.items.find((item) => item.id === mine)).toMatchObject({ claim: { email: bob.email }, waitingSeconds: 90 });
    expect(byTenant.oldestWaitingSeconds).toBeGreaterThanOrEqual(90);
    expect((await queue(`tenantId=${other.tenantId}`)).json<{ tenants: { name: string }[] }>().tenants.map((tenant) => tenant.name), 'every tenant with a waiting case, whatever the filter').toEqual(['Other', 'Sandbox']);
    expect((await queue('documentType=SyrianNationalId')).json<{ totalCount: number }>().totalCount).toBe(0);
    const reason = (await queue('reason=face')).json<{ items: { decisionReason: string }[] }>();
    expect(reason.items.length).toBeGreaterThan(0);
    expect(reason.items.every((item) => /face/i.test(item.decisionReason))).toBe(true);
    expect((await queue('reason=no-such-reason')).json<{ totalCount: number }>().totalCount).toBe(0);
    for (const bad of ['tenantId=acme', 'documentType=Visa', 'page=0', 'sort=age']) expect((await queue(bad)).statusCode, bad).toBe(400);
    const scrape = await test.app.metrics.scrape();
    expect(Number(/^review_queue_oldest_seconds(?:\{[^}]*\})? (\d+)$/m.exec(scrape)?.[1])).toBe(byTenant.oldestWaitingSeconds);
    expect(scrape).toMatch(/^queue_depth\{queue="review",status="in_flight"[^}]*\} [1-9]/m);
  });

  it("shows a reviewer their own decisions and a ReviewLead everyone's, searchable by case id", async () => {
    const caseId = await caseInReview();
    await review(caseId, bob, { decision: 'Rejected', reasonCode: 'suspected_fraud', reason: '' });
    const history = (staff: StaffLogin, query: string) => test.app.inject({ method: 'GET', url: `${INTERNAL}/review-history?${query}`, headers: as(staff) });
    const bobs = (await history(bob, '')).json<{ items: { caseId: string; reviewer: { email: string } }[] }>();
    expect(bobs.items[0]).toMatchObject({ caseId, reviewer: { email: bob.email }, decision: 'Rejected', reasonCode: 'suspected_fraud', tenantName: 'Sandbox' });
    expect(bobs.items.every((item) => item.reviewer.email === bob.email)).toBe(true);
    expect((await history(alice, `caseId=${caseId}`)).json<{ totalCount: number }>().totalCount).toBe(0);
    expect((await history(alice, 'scope=everyone')).statusCode).toBe(403);
    const everyone = (await history(lead, `scope=everyone&caseId=${caseId}`)).json<{ items: unknown[] }>();
    expect(everyone.items).toEqual([expect.objectContaining({ caseId, reviewer: { id: bob.staffId, email: bob.email } })]);
    expect((await history(lead, 'caseId=nope')).statusCode).toBe(400);
  });

  it('creates staff with a role and refuses an unknown one', async () => {
    const created = await test.db.transaction((tx) => createStaffUser(tx, { email: `x-${randomUUID()}@operator.example`, password: PASSWORD, role: 'ReviewLead' }, clock.now()));
    expect(created.role).toBe('ReviewLead');
    await expect(test.db.transaction((tx) => createStaffUser(tx, { email: `y-${randomUUID()}@operator.example`, password: PASSWORD, role: 'Admin' }, clock.now()))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('the OCR fields beside the MRZ', () => {
  it('marks the fields that disagree, reads YYMMDD dates, and lists OCR fields alone without an MRZ', async () => {
    const { compareOcrWithMrz } = await import('../src/domain/review/mrz-comparison.js');
    const now = new Date('2026-11-26T00:00:00Z');
    const mrz = 'P<SYRSAMPLE<<TEST<PERSON<<<<<<<<<<<<<<<<<<<<\nN123456782SYR9001017M3101014<<<<<<<<<<<<<<06';
    const fields = JSON.stringify({ surname: 'SAMPLE', givenNames: 'TEST PERSONA', documentNumber: 'N12345678', dateOfBirth: '1990-01-01', nationality: 'SYR', expiryDate: '2031-01-01', placeOfBirth: 'DAMASCUS' });
    expect(compareOcrWithMrz(fields, mrz, now)).toEqual([
      { field: 'surname', ocr: 'SAMPLE', mrz: 'SAMPLE', matches: true },
      { field: 'givenNames', ocr: 'TEST PERSONA', mrz: 'TEST PERSON', matches: false },
      { field: 'documentNumber', ocr: 'N12345678', mrz: 'N12345678', matches: true },
      { field: 'dateOfBirth', ocr: '1990-01-01', mrz: '1990-01-01', matches: true },
      { field: 'nationality', ocr: 'SYR', mrz: 'SYR', matches: true },
      { field: 'expiryDate', ocr: '2031-01-01', mrz: '2031-01-01', matches: true },
      { field: 'placeOfBirth', ocr: 'DAMASCUS', mrz: null, matches: null },
    ]);
    expect(compareOcrWithMrz(JSON.stringify({ surname: 'X' }), null, now)).toEqual([{ field: 'surname', ocr: 'X', mrz: null, matches: null }]);
    expect(compareOcrWithMrz('not json', 'garbage', now)).toEqual([]);
  });
});

describe('liveness stills for reviewers', () => {
  let test: TestApp;
  let sandbox: Partner;
  let staff: { authorization: string };
  let videoDirectory: string;
  let video: Buffer;

  beforeAll(async () => {
    videoDirectory = await mkdtemp(join(tmpdir(), 'frames-test-'));
    const file = join(videoDirectory, 'clip.mp4');
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=10', '-pix_fmt', 'yuv420p', file]);
    video = await readFile(file);
    test = await buildTestApp({ RATE_LIMIT_PER_MINUTE: '100000' });
    sandbox = await partnerWithToken(test, 'Sandbox', undefined, { sandbox: true });
    const email = `frames-${randomUUID()}@operator.example`;
    await test.db.transaction((tx) => createStaffUser(tx, { email, password: PASSWORD }, new Date()));
    const login = await test.app.inject({ method: 'POST', url: `${INTERNAL}/login`, payload: { email, password: PASSWORD } });
    staff = { authorization: `Bearer ${login.json<{ sessionToken: string }>().sessionToken}` };
  });
  afterAll(async () => {
    await test.close();
    await rm(videoDirectory, { recursive: true, force: true });
  });

  async function caseWithVideo(bytes: Buffer) {
    const started = await startedCase(test, sandbox, 'SyrianPassport', 'frames#review');
    for (const [type, content] of [['DocumentFront', jpegBytes()], ['Selfie', pngBytes()], ['LivenessVideo', bytes]] as const) {
      expect((await uploadEvidence(test, started.captureToken, type, content)).statusCode).toBe(201);
    }
    const view = await test.app.inject({ method: 'GET', url: `${INTERNAL}/cases/${started.caseId}`, headers: staff });
    return view.json<{ case: { videoEvidence: { id: string }[]; documentEvidence: { id: string }[] } }>().case;
  }
  const frames = (evidenceId: string) => test.app.inject({ method: 'GET', url: `${INTERNAL}/evidence/${evidenceId}/frames`, headers: staff });

  it('serves a JPEG strip of the video, each look audited with the staff actor', async () => {
    const detail = await caseWithVideo(video);
    const evidenceId = detail.videoEvidence[0]!.id;
    const first = await frames(evidenceId);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('image/jpeg');
    expect(first.rawPayload.subarray(0, 2).toString('hex')).toBe('ffd8');
    const again = await frames(evidenceId);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    const audit = await test.db.select().from(auditLog).where(and(eq(auditLog.target, `evidence:${evidenceId}`), eq(auditLog.action, 'evidence.frames_viewed')));
    expect(audit).toHaveLength(2);
    expect((await frames(detail.documentEvidence[0]!.id)).statusCode, 'a document is no video').toBe(404);
    expect((await frames(randomUUID())).statusCode).toBe(404);
    expect((await frames('nope')).statusCode).toBe(400);
  });

  it('answers 422 FRAMES_UNAVAILABLE for a video ffmpeg cannot read', async () => {
    const detail = await caseWithVideo(mp4Bytes());
    const response = await frames(detail.videoEvidence[0]!.id);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'FRAMES_UNAVAILABLE' });
  });

  it('extracts once per video: the second look reads neither the storage nor ffmpeg', async () => {
    const strips = createFrameStrips({ ffmpegPath: 'ffmpeg' });
    let opened = 0;
    const open = async () => {
      opened += 1;
      return Readable.from([video]);
    };
    const [first, second] = await Promise.all([strips.get('same-hash', open), strips.get('same-hash', open)]);
    const third = await strips.get('same-hash', open);
    expect(opened).toBe(1);
    expect(second.equals(first) && third.equals(first)).toBe(true);
  });
});

describe('the console page', () => {
  let root: string;
  let test: TestApp;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'identity-console-root-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html><html lang="en"><head><script type="module" src="/console/assets/app-abc123.js"></script></head><body></body></html>');
    await writeFile(join(root, 'assets', 'app-abc123.js'), 'console.log("console")');
    test = await buildTestApp({ CONSOLE_WEB_ROOT: root });
  });
  afterAll(async () => {
    await test.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves the app at /console and every path below it under a strict CSP, and its hashed assets', async () => {
    for (const url of ['/console', '/console/queue', `/console/cases/${randomUUID()}`, '/console/sign-in?ended=1']) {
      const response = await test.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toContain('text/html');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
    }
    expect((await test.app.inject({ method: 'GET', url: '/console/assets/app-abc123.js' })).headers['cache-control']).toContain('immutable');
    expect((await test.app.inject({ method: 'GET', url: '/console/assets/nope.js' })).statusCode).toBe(404);
  });
});
