/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { lowContrastText, unlabelledControls } from '@svc/service-kit/browser-testing';
import {
  buildPortal,
  createTenant,
  createUser,
  launchChromium,
  openPage,
  partnerApi,
  removeQuietly,
  runSandboxCase,
  runSandboxCaseToApproval,
  screenshotPath,
  signIn,
  startIdentity,
  type IdentityService,
  type PartnerApi,
  type TenantAdmin,
  type WatchedPage,
} from './portal-fixture.js';

interface CaseDetail {
  status: string;
  ocrResult: { extractedFieldsJson: string } | null;
}

/** The states a sandbox case passes through on its way to approval, in order. */
const APPROVAL_STATES = ['SessionIssued', 'CaptureStarted', 'EvidenceUploaded', 'AutomatedChecksRunning', 'Approved'];

// identity runs as a real process on the embedded default with a sandbox tenant, whose cases the
// simulator decides; the browser reaches everything with the portal session cookie only.
describeEmbeddedOnly('portal cases screens in Chromium', () => {
  let webRoot = '';
  let service: IdentityService;
  let admin: TenantAdmin;
  let support: { email: string; password: string };
  let partner: PartnerApi;
  let browser: Browser;
  const opened: WatchedPage[] = [];
  // A run-specific prefix, so searches find exactly this run's cases.
  const run = randomUUID().slice(0, 6).toUpperCase();
  const cases = {} as Record<'approved' | 'review' | 'rejected', { caseId: string; externalReference: string }> & { open: { caseId: string; externalReference: string } };

  async function signedIn(user: { email: string; password: string }, options: Parameters<typeof openPage>[1] = { width: 1280 }): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    await signIn(watched.page, service.baseUrl, user.email, user.password);
    return watched;
  }

  async function openCase(page: Page, caseId: string) {
    await page.goto(`${service.baseUrl}/portal/cases/${caseId}`);
    await page.getByTestId('case-id').waitFor();
  }

  /** Every control named (label, aria-label or text) and all text readable (WCAG AA contrast). */
  async function expectAccessible(page: Page) {
    expect(await page.evaluate(unlabelledControls)).toEqual([]);
    expect(await page.evaluate(lowContrastText)).toEqual([]);
  }

  const timelineStates = (page: Page) => page.locator('[data-testid=case-timeline] li[data-to-status]').evaluateAll((items) => items.map((item) => item.getAttribute('data-to-status')));

  beforeAll(async () => {
    webRoot = buildPortal();
    service = await startIdentity(webRoot);
    admin = await createTenant(service, { sandbox: true, name: 'Sandbox Bank' });
    support = await createUser(service, admin.tenantId, 'PartnerReadOnly');
    partner = await partnerApi(service.baseUrl, admin);
    const [approved, review, rejected] = await Promise.all([
      runSandboxCaseToApproval(partner, `CASES-${run}-APPROVED`),
      runSandboxCase(partner, { externalReference: `CASES-${run}-REVIEW#review`, until: ['PendingManualReview'] }),
      runSandboxCase(partner, { externalReference: `CASES-${run}-REJECTED#reject`, until: ['Rejected'] }),
    ]);
    const open = await partner.call<{ caseId: string }>('POST', '/verifications', { documentType: 'SyrianNationalId', externalReference: `CASES-${run}-OPEN` });
    Object.assign(cases, { approved, review, rejected, open: { caseId: open.caseId, externalReference: `CASES-${run}-OPEN` } });
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    await service?.stop();
    if (service) removeQuietly(service.dataDir);
    if (webRoot) removeQuietly(webRoot);
  });

  it('lists the cases, filters by status, searches by external reference or id, and keeps both in the URL', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/cases`);
    const rows = page.locator('[data-testid=case-table] tbody tr');
    await expect.poll(() => rows.count()).toBe(4);
    await expectAccessible(page);
    await page.screenshot({ path: screenshotPath('portal-cases-en') });

    await page.getByLabel('Status').selectOption('Approved');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-case-id')).toBe(cases.approved.caseId);
    expect(await rows.first().locator('.badge').getAttribute('data-status')).toBe('Approved');
    expect(new URL(page.url()).searchParams.get('status')).toBe('Approved');

    // Case-insensitive prefix of the external reference, together with the status filter.
    await page.getByRole('searchbox', { name: 'Search' }).fill(`cases-${run.toLowerCase()}-appr`);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('search')).toBe(`cases-${run.toLowerCase()}-appr`);
    await expect.poll(() => rows.count()).toBe(1);
    await page.reload();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByLabel('Status').inputValue()).toBe('Approved');
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe(`cases-${run.toLowerCase()}-appr`);

    // A case id finds its case whatever the status filter was, once the filter is cleared.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(4);
    await page.getByRole('searchbox', { name: 'Search' }).fill(cases.review.caseId);
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-case-id')))).toEqual([cases.review.caseId]);
    await page.getByLabel('Status').selectOption('Cancelled');
    await expect.poll(() => page.locator('.empty-state').textContent()).toContain('No case matches these filters.');

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(4);
    await page.getByRole('button', { name: 'العربية' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await expect.poll(() => page.locator('h1').textContent()).toBe('الحالات');
    expect(await page.getByLabel('الحالة').locator('option[value=Approved]').textContent()).toBe('مقبولة');
    await expectAccessible(page);
    await page.screenshot({ path: screenshotPath('portal-cases-ar') });
    expect(await watched.problems()).toEqual([]);
  });

  it("shows an approved case: its timeline, evidence fetched through the session, scores against thresholds, and no cancel", async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/cases?status=Approved`);
    await page.getByRole('link', { name: cases.approved.externalReference }).click();
    await page.getByTestId('case-id').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/portal/cases/${cases.approved.caseId}`);
    expect(await page.getByTestId('case-title').textContent()).toBe(cases.approved.externalReference);
    expect(await page.locator('[data-testid=case-status] .badge').getAttribute('data-status')).toBe('Approved');
    await expect.poll(() => timelineStates(page)).toEqual(APPROVAL_STATES);
    expect(await page.locator('[data-testid=case-timeline] li[data-to-status=Approved]').textContent()).toContain('by automated checks');
    expect(await page.getByTestId('consent').textContent()).toMatch(/^Given .+ in en$/);

    // Thumbnails decode (the cookie went with the request) and every media URL is the API's own path.
    const thumbnails = page.locator('.evidence-thumb img');
    expect(await thumbnails.count()).toBe(2);
    await expect.poll(() => thumbnails.evaluateAll((images) => (images as HTMLImageElement[]).every((image) => image.complete && image.naturalWidth > 0))).toBe(true);
    const sources = await page.locator('.evidence-list img, .evidence-list video').evaluateAll((elements) => elements.map((element) => element.getAttribute('src')));
    expect(sources).toHaveLength(3);
    for (const source of sources) expect(source).toMatch(/^\/api\/partner\/v1\/evidence\/[0-9a-f-]{36}\/file$/);
    const video = page.locator('video.evidence-video');
    expect(await video.getAttribute('controls')).not.toBeNull();
    await expect.poll(() => video.evaluate((element) => (element as HTMLVideoElement).readyState)).toBeGreaterThanOrEqual(1);

    const faceMatch = page.getByTestId('face-match');
    expect(await faceMatch.getByRole('meter').getAttribute('aria-valuenow')).toBe('0.94');
    expect(await faceMatch.textContent()).toContain('Threshold 0.80');
    expect(await faceMatch.textContent()).toContain('sandbox-simulator 1.0');
    expect(await page.getByTestId('liveness').getByRole('meter').getAttribute('aria-valuenow')).toBe('0.96');
    expect(await page.locator('[data-testid=ocr-fields] tr[data-field=surname] td').textContent()).toBe('SAMPLE');
    // Closed: neither cancel nor correction is offered.
    expect(await page.getByTestId('cancel-case').count()).toBe(0);
    expect(await page.getByTestId('ocr-correct').count()).toBe(0);

    // A thumbnail opens larger in a modal dialog; Escape closes it.
    await page.getByRole('button', { name: 'View Document front larger' }).click();
    const viewer = page.getByTestId('image-viewer');
    await expect.poll(() => viewer.evaluate((dialog) => (dialog as HTMLDialogElement).open)).toBe(true);
    await expect.poll(() => viewer.locator('img').evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => viewer.evaluate((dialog) => (dialog as HTMLDialogElement).open)).toBe(false);
    // Focus went back to the thumbnail; the screenshots show the page at rest.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    await expectAccessible(page);
    await page.screenshot({ path: screenshotPath('portal-case-detail-en'), fullPage: true });
    await page.getByRole('button', { name: 'العربية' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    await expect.poll(() => page.locator('#timeline-title').textContent()).toBe('السجل الزمني');
    await expectAccessible(page);
    await page.screenshot({ path: screenshotPath('portal-case-detail-ar'), fullPage: true });
    expect(await watched.problems()).toEqual([]);
  });

  it('corrects an OCR field of a case in review and shows the value before and after', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    await openCase(page, cases.review.caseId);
    expect(await page.locator('[data-testid=case-status] .badge').getAttribute('data-status')).toBe('PendingManualReview');
    await page.getByTestId('ocr-correct').click();
    // Saving nothing changed sends nothing.
    await page.getByRole('button', { name: 'Save corrections' }).click();
    await expect.poll(() => page.getByText('Nothing changed: edit a value before saving.').isVisible()).toBe(true);

    await expectAccessible(page);
    await page.getByLabel('Value of surname').fill('CORRECTED');
    await page.getByLabel('Notes (kept in the audit trail)').fill('Typo read from the passport');
    await page.getByRole('button', { name: 'Save corrections' }).click();
    const change = page.locator('[data-testid=ocr-before-after] tr[data-field=surname]');
    await expect.poll(() => change.locator('.before').textContent()).toBe('SAMPLE');
    expect(await change.locator('.after').textContent()).toBe('CORRECTED');
    expect(await page.locator('[data-testid=ocr-before-after] tbody tr').count()).toBe(1);
    await expect.poll(() => page.locator('[data-testid=ocr-fields] tr[data-field=surname] td').textContent()).toBe('CORRECTED');
    const entry = page.locator('[data-testid=case-timeline] li[data-action="verification.ocr_fields_corrected"]');
    await expect.poll(() => entry.textContent()).toContain('CORRECTED');
    expect(await entry.locator('.timeline-note').textContent()).toBe('NotesTypo read from the passport');

    const stored = await partner.call<CaseDetail>('GET', `/verifications/${cases.review.caseId}`);
    expect(JSON.parse(stored.ocrResult!.extractedFieldsJson)).toMatchObject({ surname: 'CORRECTED', givenNames: 'TEST PERSON' });
    expect(await watched.problems()).toEqual([]);
  });

  it('cancels an open case only with a reason, after a confirmation that says it is irreversible', async () => {
    const watched = await signedIn(admin);
    const { page } = watched;
    await openCase(page, cases.open.caseId);
    expect(await page.getByText('No OCR result yet', { exact: false }).isVisible()).toBe(true);
    await page.getByTestId('cancel-case').click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this case?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('irreversible');
    const confirm = dialog.getByRole('button', { name: 'Cancel case' });
    expect(await confirm.isDisabled()).toBe(true);
    // Escape leaves the case as it was.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await partner.call<CaseDetail>('GET', `/verifications/${cases.open.caseId}`)).status).toBe('SessionIssued');

    await page.getByTestId('cancel-case').click();
    await dialog.getByLabel('Reason (required)').fill('Customer withdrew the application');
    await expectAccessible(page);
    await confirm.click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.locator('[data-testid=case-status] .badge').getAttribute('data-status')).toBe('Cancelled');
    await expect.poll(() => timelineStates(page)).toEqual(['SessionIssued', 'Cancelled']);
    const cancelled = page.locator('[data-testid=case-timeline] li[data-to-status=Cancelled]');
    expect(await cancelled.locator('.timeline-note p').textContent()).toBe('Customer withdrew the application');
    expect(await cancelled.textContent()).toContain('by a portal user');
    expect(await page.getByTestId('cancel-case').count()).toBe(0);
    expect((await partner.call<CaseDetail>('GET', `/verifications/${cases.open.caseId}`)).status).toBe('Cancelled');
    expect(await watched.problems()).toEqual([]);
  });

  it('gives a read-only user the case without any correction or cancel control', async () => {
    const watched = await signedIn(support);
    const { page } = watched;
    await openCase(page, cases.review.caseId);
    await page.getByTestId('ocr-fields').waitFor();
    await expect.poll(() => timelineStates(page)).toEqual(['SessionIssued', 'CaptureStarted', 'EvidenceUploaded', 'AutomatedChecksRunning', 'PendingManualReview']);
    expect(await page.getByTestId('cancel-case').count()).toBe(0);
    expect(await page.getByTestId('ocr-correct').count()).toBe(0);
    expect(await page.locator('[data-testid=ocr-fields] input').count()).toBe(0);
    // The review case's face match sits under its threshold: drawn as failed, with the mark where the threshold is.
    const faceMatch = page.getByTestId('face-match');
    expect(await faceMatch.getAttribute('class')).toContain('failed');
    expect(await faceMatch.textContent()).toContain('No match');
    expect(await watched.problems()).toEqual([]);
  });

  it('pages through a long list, and comes back to the same page from a case', async () => {
    // 21 more cases under a prefix of their own: one more than a page holds (PAGE_SIZE 20).
    for (let index = 1; index <= 21; index += 1) {
      await partner.call('POST', '/verifications', { documentType: 'SyrianPassport', externalReference: `PAGED-${run}-${String(index).padStart(2, '0')}` });
    }
    const watched = await signedIn(admin);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/cases?search=PAGED-${run}`);
    const rows = page.locator('[data-testid=case-table] tbody tr');
    await expect.poll(() => rows.count()).toBe(20);
    const pagination = page.getByRole('navigation', { name: 'Pages' });
    expect(await pagination.textContent()).toContain('21');
    await pagination.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');
    await expect.poll(() => rows.count()).toBe(1);
    // Newest first: the first case created is the last one on the last page.
    const oldest = `PAGED-${run}-01`;
    await page.getByRole('link', { name: oldest }).click();
    await expect.poll(() => page.getByTestId('case-title').textContent()).toBe(oldest);
    await page.goBack();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator('a').textContent()).toBe(oldest);
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    // An old link past the end shows the empty page with the way back to the last one.
    await page.goto(`${service.baseUrl}/portal/cases?search=PAGED-${run}&page=9`);
    await page.locator('.empty-state').waitFor();
    await pagination.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    // A new search starts again from the first page.
    await page.getByRole('searchbox', { name: 'Search' }).fill(`PAGED-${run}-0`);
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await expect.poll(() => rows.count()).toBe(9);
    expect(new URL(page.url()).searchParams.get('page')).toBeNull();
    expect(await watched.problems()).toEqual([]);
  });

  it("shows the API's answer for a case that does not exist, and a plain message for an address that is not a case", async () => {
    const watched = await signedIn(admin, { width: 1280, ignoreConsole: /status of 404/ });
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/cases/${randomUUID()}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('No verification case with id');
    await page.goto(`${service.baseUrl}/portal/cases/not-a-case`);
    await expect.poll(() => page.locator('.empty-state').textContent()).toContain('This is not a case address.');
    await page.getByRole('link', { name: '← All cases' }).click();
    await page.locator('[data-testid=case-table]').waitFor();
    expect(await watched.problems()).toEqual([]);
  });
  it('shows "no preview" with the download for a stored image the browser cannot decode, and sizes in whole bytes', async () => {
    // The repository's placeholder samples: real JPEG/MP4 headers (enough for content sniffing) around bytes that do not decode.
    const sample = (name: string) => readFileSync(new URL(`../../samples/${name}`, import.meta.url));
    const placeholder = await runSandboxCase(partner, {
      externalReference: `CASES-${run}-PLACEHOLDER`,
      until: ['Approved'],
      evidence: { documentFront: sample('document-front.jpg'), selfie: sample('selfie.png'), livenessVideo: sample('liveness.mp4') },
    });
    const watched = await signedIn(admin);
    const { page } = watched;
    await page.goto(`${service.baseUrl}/portal/cases/${placeholder.caseId}`);
    const front = page.locator('.evidence-item[data-evidence-type=DocumentFront]');
    await expect.poll(() => front.getByTestId('preview-unavailable').textContent()).toBe('No preview: the browser cannot show this file. Download it to inspect it.');
    expect(await front.locator('img').count()).toBe(0);
    expect(await front.getByRole('link', { name: 'Download' }).count()).toBe(1);
    expect(await front.textContent()).toContain(`image/jpeg · ${sample('document-front.jpg').length} bytes`);
    // The selfie placeholder is a real 16×16 PNG: it still shows as a thumbnail.
    const selfie = page.locator('.evidence-item[data-evidence-type=Selfie]');
    await expect.poll(() => selfie.locator('img').evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBe(16);
    await front.screenshot({ path: screenshotPath('portal-evidence-no-preview-en') });
    // In Arabic on a phone: the message wraps inside its tile.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'العربية' }).click();
    await expect.poll(() => front.getByTestId('preview-unavailable').textContent()).toBe('لا معاينة: لا يستطيع المتصفح عرض هذا الملف. نزّله لفحصه.');
    await page.locator('.evidence-list').screenshot({ path: screenshotPath('portal-evidence-no-preview-ar-phone') });
    expect(await watched.problems()).toEqual([]);
  });
});
