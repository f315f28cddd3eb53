/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { buildViteApp } from '@svc/service-kit/browser-testing';
import { AXE_LANGUAGES as LANGUAGES, AXE_SIZES as SIZES, axeSweep } from './axe-sweep.js';
import { expectVisibleFocus, tabUntil } from './keyboard-walk.js';
import {
  buildPortal,
  createTenant,
  launchChromium,
  openPage,
  partnerApi,
  PASSWORD,
  removeQuietly,
  runIdentityCli,
  runSandboxCase,
  screenshotPath,
  SERVICE_DIR,
  startIdentity,
  tearDownPortalTest,
  type IdentityService,
  type PartnerApi,
  type WatchedPage,
} from './portal-fixture.js';

const INTERNAL = '/api/internal/v1';
// A case another reviewer holds answers its claim with 409, which Chromium logs as a failed load.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (401|409)/;

// axe-core's WCAG 2.1 A/AA rules on every screen of the reviewers' console (sign-in, queue, a case
// held by the viewer and one held by someone else, history, security, an unknown screen), Arabic and
// English, phone and desktop: one page per language, the sizes only resize it.
describeEmbeddedOnly("the reviewers' console meets WCAG 2.1 AA (axe-core)", () => {
  const started = { opened: [] as WatchedPage[], browser: undefined as Browser | undefined, service: undefined as IdentityService | undefined, webRoot: '' };
  let consoleRoot = '';
  let sandboxApi: PartnerApi;
  const reviewer = `axe-reviewer-${randomUUID().slice(0, 8)}@operator.example`;
  const holder = `axe-holder-${randomUUID().slice(0, 8)}@operator.example`;

  beforeAll(async () => {
    started.webRoot = buildPortal();
    consoleRoot = buildViteApp(SERVICE_DIR, 'console', 'identity-console-');
    const service = (started.service = await startIdentity(started.webRoot, { CONSOLE_WEB_ROOT: consoleRoot }));
    const sandbox = await service.whileStopped(async () => {
      for (const email of [reviewer, holder]) await runIdentityCli(service, ['staff:create', '--email', email, '--password', PASSWORD, '--role', 'ReviewLead']);
      return createTenant(service, { sandbox: true, name: 'Axe Bank' });
    });
    started.browser = await launchChromium();
    sandboxApi = await partnerApi(service.baseUrl, sandbox);
  }, 240_000);
  afterAll(async () => {
    await tearDownPortalTest(started);
    removeQuietly(consoleRoot);
  });

  const reviewCase = async () => (await runSandboxCase(sandboxApi, { externalReference: `AXE-${randomUUID().slice(0, 6)}#review`, until: ['PendingManualReview'] })).caseId;

  /** The other reviewer's calls through the API: a claim shows the viewer the read-only banner, a decision fills the history. */
  async function asHolder(caseId: string, action: 'claim' | 'review') {
    const baseUrl = started.service!.baseUrl;
    const login = await fetch(`${baseUrl}${INTERNAL}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: holder, password: PASSWORD }) });
    const { sessionToken } = (await login.json()) as { sessionToken: string };
    const body = action === 'review' ? JSON.stringify({ decision: 'Rejected', reasonCode: 'face_mismatch', reason: 'Another person.' }) : undefined;
    const answer = await fetch(`${baseUrl}${INTERNAL}/cases/${caseId}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sessionToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body } : {}),
    });
    expect(answer.status, await answer.clone().text()).toBeLessThan(300);
  }

  it('has no violations on any screen, in Arabic and English, at phone and desktop size', async () => {
    const baseUrl = started.service!.baseUrl;
    const { found, checked, check } = axeSweep((screen, language) => screenshotPath(`console-axe-${screen.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}-${language}`));
    for (const language of LANGUAGES) {
      const mine = await reviewCase();
      const held = await reviewCase();
      await asHolder(held, 'claim');
      const decided = await reviewCase();
      await asHolder(decided, 'claim');
      await asHolder(decided, 'review');
      const watched = await openPage(started.browser!, { ...SIZES.phone, locale: language, ignoreConsole: REFUSED_LOAD });
      started.opened.push(watched);
      const { page } = watched;
      const heading = () => page.locator('h1').first().waitFor();
      for (const path of ['/console/sign-in', '/console/sign-in?ended=1', '/console/password-reset']) {
        await page.goto(`${baseUrl}${path}`);
        await check(page, path, language, heading);
      }
      await page.goto(`${baseUrl}/console/sign-in`);
      await page.locator('#sign-in-email').fill(reviewer);
      await page.locator('#sign-in-password').fill(PASSWORD);
      await page.locator('form.sign-in-card button[type=submit]').click();
      await page.waitForURL(`${baseUrl}/console/queue`);
      const screens: Array<[string, string, () => Promise<unknown>]> = [
        ['/console/queue', '/console/queue', async () => {
          await page.locator(`tr[data-case-id="${mine}"]`).waitFor();
          expect(await page.locator(`tr[data-case-id="${mine}"] .reason-cell`).getAttribute('lang'), "the checks' English reason is marked as English").toBe('en');
        }],
        [`/console/cases/${mine}`, '/console/cases/:mine', () => expect.poll(() => page.getByTestId('claim-banner').textContent()).toMatch(language === 'en' ? /^You hold/ : /محجوزة لك/)],
        [`/console/cases/${held}`, '/console/cases/:held', () => expect.poll(() => page.getByTestId('claim-banner').textContent()).toContain(holder)],
        ['/console/history?scope=everyone', '/console/history', () => page.getByTestId('history-table').waitFor()],
        ['/console/security', '/console/security', heading],
        ['/console/no-such-screen', '/console/no-such-screen', heading],
      ];
      for (const [path, screen, ready] of screens) {
        await page.goto(`${baseUrl}${path}`);
        await check(page, screen, language, ready);
      }
      expect(await watched.problems()).toEqual([]);
    }
    console.log(`console axe: ${checked.length} checks, violations per screen: ${JSON.stringify(found, null, 1)}`);
    expect(found).toEqual({});
    expect(checked).toHaveLength(LANGUAGES.length * Object.keys(SIZES).length * 9);
  }, 300_000);

  it('signs in, opens a case from the queue and decides it with the keyboard alone, focus always visible', async () => {
    const baseUrl = started.service!.baseUrl;
    const caseId = await reviewCase();
    const watched = await openPage(started.browser!, { ...SIZES.desktop, locale: 'en', ignoreConsole: REFUSED_LOAD });
    started.opened.push(watched);
    const { page } = watched;
    /** Tab to the control and check it shows its focus: every stop on the walk is a place a keyboard user lands. */
    const reach = async (selector: string) => {
      await tabUntil(page, selector);
      await expectVisibleFocus(page, selector);
    };
    await page.goto(`${baseUrl}/console/sign-in`);
    await page.locator('#sign-in-email').waitFor();
    await reach('#sign-in-email');
    await page.keyboard.type(reviewer);
    await reach('#sign-in-password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/console/queue`);
    await page.locator(`tr[data-case-id="${caseId}"]`).waitFor();
    // The skip link comes first and takes focus past the header and the navigation.
    await page.keyboard.press('Tab');
    await expectVisibleFocus(page, 'the skip link');
    await reach(`tr[data-case-id="${caseId}"] a`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${baseUrl}/console/cases/${caseId}`);
    await expect.poll(() => page.getByTestId('claim-banner').textContent()).toMatch(/^You hold/);
    // Tab enters the radio group once (on its first radio while none is chosen); the arrow keys choose within it.
    await reach('input[name=decision]');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Reject').isChecked()).toBe(true);
    await reach('#decision-reason');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('#decision-reason').inputValue()).not.toBe('');
    await reach('#decision-notes');
    await page.keyboard.type('Decided from the keyboard alone.');
    await reach('form.decision-panel button[type=submit]');
    await page.screenshot({ path: screenshotPath('console-keyboard-decide-en'), fullPage: false });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('decided').textContent()).toBe('Recorded: the case is now Rejected.');
    // No trap: Tab keeps moving through the page and comes round to the start.
    const visited = new Set<string>();
    for (let presses = 0; presses < 80; presses++) {
      await page.keyboard.press('Tab');
      visited.add(await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80) ?? ''));
    }
    expect(visited.size).toBeGreaterThan(10);
    expect([...visited].some((html) => html.startsWith('<a class="skip-link"')), 'Tab comes round to the skip link').toBe(true);
    expect(await watched.problems()).toEqual([]);
  }, 120_000);
});
