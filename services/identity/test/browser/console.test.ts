/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { buildViteApp, lowContrastText, unlabelledControls } from '@svc/service-kit/browser-testing';
import { startFakeInferenceServer } from '../fixtures/fake-inference-server.js';
import { startSignedReceiver, type SignedReceiver } from '../fixtures/signed-receiver.js';
import {
  createTenant,
  launchChromium,
  openPage,
  partnerApi,
  PASSWORD,
  runIdentityCli,
  runSandboxCase,
  screenshotPath,
  SERVICE_DIR,
  signIn as signInToPortal,
  startIdentity,
  tearDownPortalTest,
  type IdentityService,
  type PartnerApi,
  type TenantAdmin,
  type WatchedPage,
} from './portal-fixture.js';

// A refused sign-in or a claim held by someone else is a 401/409/429 answer, which Chromium logs as a failed load.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (401|403|409|429)/;

describeEmbeddedOnly("reviewers' console in Chromium", () => {
  const roots: string[] = [];
  let service: IdentityService;
  let browser: Browser;
  let receiver: SignedReceiver;
  let inference: Awaited<ReturnType<typeof startFakeInferenceServer>>;
  let sandbox: TenantAdmin;
  let live: TenantAdmin;
  let sandboxApi: PartnerApi;
  let liveApi: PartnerApi;
  const staff: Record<'alice' | 'bob' | 'lead' | 'locked', { email: string }> = {} as never;
  const opened: WatchedPage[] = [];

  async function open(options: Parameters<typeof openPage>[1] = { width: 1400, ignoreConsole: REFUSED_LOAD }): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    return watched;
  }

  async function fillAndSubmit(page: Page, email: string, password: string) {
    await page.locator('#sign-in-email').fill(email);
    await page.locator('#sign-in-password').fill(password);
    await page.locator('form.sign-in-card button[type=submit]').click();
  }

  async function signedIn(who: { email: string }): Promise<WatchedPage> {
    const watched = await open();
    await watched.page.goto(`${service.baseUrl}/console/sign-in`);
    await fillAndSubmit(watched.page, who.email, PASSWORD);
    await watched.page.waitForURL(`${service.baseUrl}/console/queue`);
    await watched.page.getByTestId('staff-email').waitFor();
    return watched;
  }

  const reviewCase = async (partner: PartnerApi, reference: string) => (await runSandboxCase(partner, { externalReference: reference, until: ['PendingManualReview'] })).caseId;
  const setLanguage = async (page: Page, language: 'en' | 'ar') => {
    if ((await page.locator('html').getAttribute('lang')) !== language) await page.getByRole('button', { name: language === 'ar' ? 'العربية' : 'English' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
  };

  beforeAll(async () => {
    const portalRoot = buildViteApp(SERVICE_DIR, 'portal', 'identity-portal-');
    const consoleRoot = buildViteApp(SERVICE_DIR, 'console', 'identity-console-');
    roots.push(portalRoot, consoleRoot);
    // Live cases go to an HTTP checks provider whose OCR disagrees with its MRZ (the ICAO specimen) and whose face
    // score (0.91) sits under a raised threshold: every live case waits for a person, with findings to weigh.
    inference = await startFakeInferenceServer();
    service = await startIdentity(portalRoot, {
      CONSOLE_WEB_ROOT: consoleRoot,
      CHECKS_PROVIDER: 'http',
      CHECKS_OCR_URL: inference.urls.ocrUrl,
      CHECKS_FACE_MATCH_URL: inference.urls.faceMatchUrl,
      CHECKS_LIVENESS_URL: inference.urls.livenessUrl,
      CHECKS_FACE_THRESHOLD: '0.95',
    });
    await service.whileStopped(async () => {
      sandbox = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
      live = await createTenant(service, { name: 'Live Bank' });
      for (const [name, role] of [['alice', 'Reviewer'], ['bob', 'Reviewer'], ['lead', 'ReviewLead'], ['locked', 'Reviewer']] as const) {
        const email = `${name}-${randomUUID().slice(0, 8)}@operator.example`;
        await runIdentityCli(service, ['staff:create', '--email', email, '--password', PASSWORD, '--role', role]);
        staff[name] = { email };
      }
    });
    [browser, receiver] = await Promise.all([launchChromium(), startSignedReceiver()]);
    [sandboxApi, liveApi] = await Promise.all([partnerApi(service.baseUrl, sandbox), partnerApi(service.baseUrl, live)]);
    const endpoint = await liveApi.call<{ signingSecret: string }>('POST', '/webhooks', { url: receiver.url('/live'), eventTypes: ['verification.approved'] });
    receiver.trust('/live', endpoint.signingSecret);
  }, 300_000);

  afterAll(() => tearDownPortalTest({ opened, browser, service }, { servers: [receiver, inference], roots }));

  it('signs a reviewer in and out, locks an address after five failures, in English and Arabic', async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${service.baseUrl}/console`);
    await page.waitForURL(`${service.baseUrl}/console/sign-in`);
    expect(await page.locator('h1').textContent()).toBe("Sign in to the reviewers' console");
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('console-sign-in-en'), fullPage: true });
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await fillAndSubmit(page, staff.locked.email, `wrong-password-${attempt}`);
      await expect.poll(() => page.locator('.sign-in-card [role=alert]').textContent()).toMatch(/incorrect/);
      await expect.poll(() => page.locator('.sign-in-card button[type=submit]').isDisabled()).toBe(false);
    }
    expect(await page.getByRole('alert').textContent()).toContain('now locked for 15 minutes');
    await fillAndSubmit(page, staff.locked.email, PASSWORD);
    await expect.poll(() => page.getByRole('alert').getAttribute('data-code')).toBe('ACCOUNT_LOCKED');
    await setLanguage(page, 'ar');
    await expect.poll(() => page.locator('h1').textContent()).toBe('تسجيل الدخول إلى وحدة تحكم المراجعين');
    await page.screenshot({ path: screenshotPath('console-sign-in-ar'), fullPage: true });
    await setLanguage(page, 'en');

    await fillAndSubmit(page, staff.alice.email, PASSWORD);
    await page.waitForURL(`${service.baseUrl}/console/queue`);
    expect(await page.getByTestId('staff-email').textContent()).toBe(staff.alice.email);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${service.baseUrl}/console/sign-in`);
    expect(await page.evaluate(async () => (await fetch('/api/internal/v1/session')).status)).toBe(401);
    expect(await watched.problems()).toEqual([]);
  });

  it('refuses a partner portal session: the console asks for a staff sign-in', async () => {
    const watched = await open();
    const { page } = watched;
    await signInToPortal(page, service.baseUrl, sandbox.email);
    await page.goto(`${service.baseUrl}/console/queue`);
    await page.waitForURL(`${service.baseUrl}/console/sign-in`);
    expect(await page.evaluate(async () => (await fetch('/api/internal/v1/review-queue')).status)).toBe(401);
    await fillAndSubmit(page, sandbox.email, PASSWORD);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('The email or password is incorrect.');
    expect(await watched.problems()).toEqual([]);
  });

  it('lists a live case the checks left to a person, with its reason, oldest first, filtered by tenant in the URL', async () => {
    const liveCase = await reviewCase(liveApi, `LIVE-${randomUUID().slice(0, 6)}`);
    await reviewCase(sandboxApi, `SBX-${randomUUID().slice(0, 6)}#review`);
    const watched = await signedIn(staff.alice);
    const { page } = watched;
    const row = page.locator(`tr[data-case-id="${liveCase}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Live Bank');
    expect(await row.locator('.reason-cell').textContent()).toMatch(/face similarity 0\.91 is below its threshold 0\.95/);
    expect(await page.getByTestId('oldest-waiting').textContent()).toMatch(/^Oldest case waiting: /);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('console-queue-en'), fullPage: true });
    await page.locator('#filter-tenant').selectOption({ label: 'Live Bank' });
    await page.locator('#filter-reason').fill('face');
    await setLanguage(page, 'ar');
    await setLanguage(page, 'en');
    expect(await page.locator('#filter-tenant').inputValue(), 'a re-render keeps the chosen filters').toBe(live.tenantId);
    expect(await page.locator('#filter-reason').inputValue()).toBe('face');
    await page.locator('#filter-reason').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(new RegExp(`tenantId=${live.tenantId}`));
    await expect.poll(async () => (await page.locator('tbody tr').allTextContents()).every((text) => text.includes('Live Bank'))).toBe(true);
    await page.reload();
    await row.waitFor();
    expect(await page.locator('#filter-tenant').inputValue()).toBe(live.tenantId);
    expect(await page.locator('#filter-tenant option').allTextContents()).toEqual(['All tenants', 'Live Bank', 'Sandbox Bank']);
    await setLanguage(page, 'ar');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    await page.screenshot({ path: screenshotPath('console-queue-ar'), fullPage: true });
    await setLanguage(page, 'en');
    expect(await watched.problems()).toEqual([]);
  });

  it('reviews a case: evidence, OCR beside MRZ, a correction, approval with a reason; the webhook and the portal see it', async () => {
    const caseId = await reviewCase(liveApi, `LIVE-${randomUUID().slice(0, 6)}`);
    const watched = await signedIn(staff.alice);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/console/cases/${caseId}`);
    await expect.poll(() => page.getByTestId('claim-banner').textContent()).toMatch(/^You hold this case until/);
    for (const image of ['document-image', 'selfie-image', 'portrait-image', 'liveness-frames']) {
      await expect.poll(() => page.getByTestId(image).evaluate((element) => (element as HTMLImageElement).naturalWidth), { message: image }).toBeGreaterThan(0);
    }
    await page.getByRole('button', { name: 'Zoom in' }).click();
    expect(await page.getByTestId('zoom-level').textContent()).toBe('Zoom 125%');
    // Every timeline entry reads as a sentence, never as the audit log's action name (the consent included).
    expect(await page.locator('[data-testid="case-timeline"] [data-action="verification.consent_given"] .timeline-action').textContent()).toBe('The end user gave consent');
    expect((await page.locator('[data-testid="case-timeline"] .timeline-action').allTextContents()).filter((text) => /^[a-z_]+\.[a-z_.]+$/.test(text))).toEqual([]);
    // The OCR read HADDAD, the MRZ says ERIKSSON: marked, and corrected to the MRZ's reading.
    const surname = page.locator('[data-testid="mrz-table"] tr[data-field="surname"]');
    expect(await surname.getAttribute('class')).toBe('mismatch');
    expect(await surname.locator('td').nth(1).textContent()).toBe('ERIKSSON');
    // The fake's fields are another person's than the specimen MRZ's (whose state, UTO, the parser leaves unread).
    expect(await page.locator('[data-testid="mrz-table"] tr.mismatch').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-field')))).toEqual(['surname', 'givenNames', 'documentNumber', 'dateOfBirth']);
    await surname.getByRole('textbox').fill('ERIKSSON');
    await expect.poll(() => page.getByTestId('corrections-pending').textContent()).toBe('Corrected fields recorded with the decision: 1.');
    await page.getByLabel('Approve').check();
    await page.locator('#decision-reason').selectOption('document_unreadable');
    await page.locator('#decision-notes').fill('Glare on the page; read by eye.');
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
    await page.screenshot({ path: screenshotPath('console-case-en'), fullPage: true });
    await page.getByRole('button', { name: 'Record decision' }).click();
    await expect.poll(() => page.getByTestId('decided').textContent()).toBe('Recorded: the case is now Approved.');

    await expect.poll(() => receiver.at('/live').filter((receipt) => receipt.body.data.caseId === caseId).length, { timeout: 20_000 }).toBe(1);
    const [event] = receiver.at('/live').filter((receipt) => receipt.body.data.caseId === caseId);
    expect(event!.body.eventType).toBe('verification.approved');
    expect(event!.verification.ok).toBe(true);

    const portal = await open();
    await signInToPortal(portal.page, service.baseUrl, live.email);
    await portal.page.goto(`${service.baseUrl}/portal/cases/${caseId}`);
    await expect.poll(() => portal.page.getByTestId('case-status').textContent()).toContain('Approved');
    expect(await portal.page.getByTestId('decision-reason').textContent()).toBe('Manual review (document_unreadable): Glare on the page; read by eye.');
    await expect.poll(() => portal.page.locator('body').textContent()).toContain('ERIKSSON');
    expect(await watched.problems()).toEqual([]);
  });

  it('tells a second reviewer who holds a case, and lets a ReviewLead release it', async () => {
    const caseId = await reviewCase(sandboxApi, `SBX-${randomUUID().slice(0, 6)}#review`);
    const first = await signedIn(staff.alice);
    await first.page.goto(`${service.baseUrl}/console/cases/${caseId}`);
    await expect.poll(() => first.page.getByTestId('claim-banner').textContent()).toMatch(/^You hold/);
    const second = await signedIn(staff.bob);
    await second.page.goto(`${service.baseUrl}/console/cases/${caseId}`);
    const holder = staff.alice.email.replace(/[.+]/g, '\\$&');
    await expect.poll(() => second.page.getByTestId('claim-banner').textContent()).toMatch(new RegExp(`^${holder} is reviewing this case until .+\\. You can look, but not decide\\.$`));
    expect(await second.page.locator('form.decision-panel').count()).toBe(0);
    await second.page.screenshot({ path: screenshotPath('console-claimed-en'), fullPage: true });
    await second.page.goto(`${service.baseUrl}/console/queue`);
    await expect.poll(() => second.page.locator(`tr[data-case-id="${caseId}"] [data-testid=claim-note]`).textContent()).toBe(`Claimed by ${staff.alice.email}`);

    const lead = await signedIn(staff.lead);
    await lead.page.goto(`${service.baseUrl}/console/cases/${caseId}`);
    await lead.page.getByRole('button', { name: 'Release their claim' }).click();
    await expect.poll(() => lead.page.getByTestId('claim-banner').textContent()).toMatch(/^You hold/);
    expect(await lead.problems()).toEqual([]);
  });

  it('reviews a case from the keyboard alone, then moves to the next one', async () => {
    const caseId = await reviewCase(liveApi, `KEY-${randomUUID().slice(0, 6)}`);
    const watched = await signedIn(staff.bob);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/console/cases/${caseId}`);
    await expect.poll(() => page.getByTestId('claim-banner').textContent()).toMatch(/^You hold/);
    await page.keyboard.press('+');
    await expect.poll(() => page.getByTestId('zoom-level').textContent()).toBe('Zoom 125%');
    await page.keyboard.press('o');
    await page.keyboard.press('r');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('decision-reason');
    expect(await page.getByLabel('Reject').isChecked()).toBe(true);
    await page.keyboard.press('a');
    expect(await page.getByLabel('Reject').isChecked(), 'typing in the reason list is no shortcut').toBe(true);
    await page.locator('#decision-reason').press('ArrowDown');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('decision-notes');
    await page.keyboard.type('Second look from the keyboard.');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.getByTestId('decided').textContent()).toBe('Recorded: the case is now Rejected.');
    await page.locator('body').press('n');
    await page.waitForURL((url) => url.pathname.startsWith('/console/cases/') && !url.pathname.endsWith(caseId));
    expect(await watched.problems()).toEqual([]);
  });

  it("shows a reviewer's own decisions and a lead everyone's, searchable by case id, in English and Arabic", async () => {
    const caseId = await reviewCase(sandboxApi, `HIS-${randomUUID().slice(0, 6)}#review`);
    const alice = await signedIn(staff.alice);
    await alice.page.goto(`${service.baseUrl}/console/cases/${caseId}`);
    await alice.page.getByLabel('Reject').check();
    await alice.page.locator('#decision-reason').selectOption('face_mismatch');
    await alice.page.getByRole('button', { name: 'Record decision' }).click();
    await alice.page.getByTestId('decided').waitFor();
    await alice.page.getByRole('link', { name: 'History' }).click();
    await alice.page.getByTestId('history-table').waitFor();
    expect(await alice.page.locator('fieldset.scope-switch').count(), 'a Reviewer sees only their own').toBe(0);
    expect(await alice.page.locator(`tr[data-case-id="${caseId}"]`).textContent()).toContain('Face mismatch');

    const lead = await signedIn(staff.lead);
    await lead.page.goto(`${service.baseUrl}/console/history?scope=everyone`);
    await lead.page.locator('#history-case').fill(caseId);
    // A re-render (the page's data arriving, a language switch) must keep what the reviewer typed.
    await lead.page.getByTestId('history-table').waitFor();
    await setLanguage(lead.page, 'ar');
    await setLanguage(lead.page, 'en');
    expect(await lead.page.locator('#history-case').inputValue()).toBe(caseId);
    await lead.page.getByRole('button', { name: 'Search' }).click();
    await lead.page.waitForURL(new RegExp(`caseId=${caseId}`));
    await expect.poll(() => lead.page.locator('[data-testid=history-table] tbody tr').count()).toBe(1);
    expect(await lead.page.locator(`tr[data-case-id="${caseId}"]`).textContent()).toContain(staff.alice.email);
    await lead.page.locator('#history-case').fill('');
    await lead.page.getByRole('button', { name: 'Search' }).click();
    await lead.page.getByTestId('history-table').waitFor();
    await lead.page.screenshot({ path: screenshotPath('console-history-en'), fullPage: true });
    await setLanguage(lead.page, 'ar');
    expect(await lead.page.evaluate(unlabelledControls)).toEqual([]);
    // The pointer rests on the language button after the switch: its hover state must stay legible too.
    await lead.page.getByRole('button', { name: 'English' }).hover();
    expect(await lead.page.evaluate(lowContrastText)).toEqual([]);
    await lead.page.screenshot({ path: screenshotPath('console-history-ar'), fullPage: true });

    const open = await reviewCase(sandboxApi, `AR-${randomUUID().slice(0, 6)}#review`);
    await lead.page.goto(`${service.baseUrl}/console/cases/${open}`);
    await expect.poll(() => lead.page.getByTestId('claim-banner').textContent()).toMatch(/^هذه الحالة محجوزة لك/);
    await lead.page.screenshot({ path: screenshotPath('console-case-ar'), fullPage: true });
    await setLanguage(lead.page, 'en');
    expect(await alice.problems()).toEqual([]);
    expect(await lead.problems()).toEqual([]);
  });
});
