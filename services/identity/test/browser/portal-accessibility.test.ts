/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { AXE_LANGUAGES as LANGUAGES, AXE_SIZES as SIZES, axeSweep } from './axe-sweep.js';
import { buildPortal, createTenant, launchChromium, openPage, partnerApi, runSandboxCaseToApproval, signIn, startIdentity, tearDownPortalTest } from './portal-fixture.js';
import type { IdentityService, TenantAdmin, WatchedPage } from './portal-fixture.js';

// An unknown invitation or reset link is a 4xx answer, which Chromium logs as a failed load.
const REFUSED_LOAD = /Failed to load resource: the server responded with a status of (400|401|404|410)/;
const SIGNED_OUT = ['/portal/sign-in', '/portal/password-reset', '/portal/invitations'];
const SIGNED_IN = ['/portal/cases', '/portal/clients', '/portal/webhooks', '/portal/reports', '/portal/team', '/portal/account', '/portal/no-such-screen'];

// axe-core's WCAG 2.1 A/AA rules on every screen of the partner portal, Arabic and English,
// phone and desktop: one started service, one page per language, sizes only resize it.
describeEmbeddedOnly('the partner portal meets WCAG 2.1 AA (axe-core)', () => {
  const started = { opened: [] as WatchedPage[], browser: undefined as Browser | undefined, service: undefined as IdentityService | undefined, webRoot: '' };
  let admin: TenantAdmin;
  let caseId = '';

  beforeAll(async () => {
    started.webRoot = buildPortal();
    const service = (started.service = await startIdentity(started.webRoot));
    admin = await service.whileStopped(() => createTenant(service, { sandbox: true, name: 'Axe Bank' }));
    started.browser = await launchChromium();
    ({ caseId } = await runSandboxCaseToApproval(await partnerApi(service.baseUrl, admin)));
  }, 240_000);
  afterAll(() => tearDownPortalTest(started));

  it('has no violations on any screen, in Arabic and English, at phone and desktop size', async () => {
    const baseUrl = started.service!.baseUrl;
    const { found, checked, check } = axeSweep();
    for (const language of LANGUAGES) {
      const watched = await openPage(started.browser!, { ...SIZES.phone, locale: language, ignoreConsole: REFUSED_LOAD });
      started.opened.push(watched);
      const { page } = watched;
      for (const path of SIGNED_OUT) {
        await page.goto(`${baseUrl}${path}`);
        await check(page, path, language);
      }
      await signIn(page, baseUrl, admin.email, admin.password);
      for (const path of [...SIGNED_IN, `/portal/cases/${caseId}`]) {
        await page.goto(`${baseUrl}${path}`);
        await check(page, path.replace(caseId, ':id'), language);
      }
      expect(await watched.problems()).toEqual([]);
    }
    console.log(`portal axe: ${checked.length} checks, violations per screen: ${JSON.stringify(found)}`);
    expect(found).toEqual({});
    expect(checked).toHaveLength(LANGUAGES.length * Object.keys(SIZES).length * (SIGNED_OUT.length + SIGNED_IN.length + 1));
  }, 300_000);
});
