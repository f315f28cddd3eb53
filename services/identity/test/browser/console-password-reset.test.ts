/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEmbeddedOnly } from '@svc/db/testing';
import { buildViteApp } from '@svc/service-kit/browser-testing';
import { buildPortal, launchChromium, openPage, PASSWORD, removeQuietly, runIdentityCli, screenshotPath, SERVICE_DIR, startIdentity, tearDownPortalTest, type IdentityService, type WatchedPage } from './portal-fixture.js';
import { resetPasswordThroughMail } from './password-reset-walk.js';

const INTERNAL = '/api/internal/v1';
const NEW_PASSWORD = 'a new console passphrase 47';

// The portal's forgot-password test for the console: the .eml the log names, its link, a new password, signed in.
describeEmbeddedOnly("reviewers' console: forgot password in Chromium", () => {
  const started = { opened: [] as WatchedPage[], browser: undefined as Browser | undefined, service: undefined as IdentityService | undefined, webRoot: '' };
  let consoleRoot = '';
  const email = `reviewer-${randomUUID().slice(0, 8)}@operator.example`;

  beforeAll(async () => {
    started.webRoot = buildPortal();
    consoleRoot = buildViteApp(SERVICE_DIR, 'console', 'identity-console-');
    const service = (started.service = await startIdentity(started.webRoot, { CONSOLE_WEB_ROOT: consoleRoot, LOG_LEVEL: 'info' }));
    await runIdentityCli(service, ['staff:create', '--email', email, '--password', PASSWORD]);
    started.browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await tearDownPortalTest(started);
    removeQuietly(consoleRoot);
  });

  it('"Forgot password?" → the mailed link → a new password → signed in, and the old session is gone', async () => {
    const service = started.service!;
    const login = await fetch(`${service.baseUrl}${INTERNAL}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const oldSession = ((await login.json()) as { sessionToken: string }).sessionToken;
    const watched = await openPage(started.browser!, { width: 1280 });
    started.opened.push(watched);
    const { page } = watched;
    await resetPasswordThroughMail(page, service, { app: 'console', email, newPassword: NEW_PASSWORD });
    await page.getByTestId('staff-email').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/queue');
    await page.screenshot({ path: screenshotPath('console-password-reset-signed-in') });

    const old = await fetch(`${service.baseUrl}${INTERNAL}/session`, { headers: { authorization: `Bearer ${oldSession}` } });
    expect(old.status).toBe(401);
    expect(await watched.problems()).toEqual([]);
  });
});
