/// <reference lib="dom" />
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessibilityViolations } from '@svc/service-kit/browser-testing';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshotPath } from './browser-fixture.js';
import { callWithKeys, committedScreenshot, DEVELOPER_PASSWORD, MAILED_LINKS, mailedLink, signUpByApi, uniqueEmail, useDashboard } from './developer-fixture.js';

// fx as a process on the embedded default (PGlite, .eml mail); with DATABASE_URL (CI's second pass)
// the same screens run against the same API, already proven in the first pass.
const withDatabase = Boolean(process.env.DATABASE_URL);
const NEW_PASSWORD = 'seven lanterns over the harbour';
/** The 4xx an error-path test provokes on purpose, which Chromium logs as failed loads. */
const REFUSED_LOADS = /Failed to load resource: the server responded with a status of (400|401|403|404|410|429)/;
const SIZES = [['phone', 390, 844], ['desktop', 1280, 900]] as const;
/** What each screen shows once it has loaded what it needs. */
const READY = { 'sign-up': 'signup-form', 'sign-in': 'signin-form', forgot: 'forgot-form', reset: 'reset-form', keys: 'clients', alerts: 'create-alert', usage: 'usage-chart', plan: 'plans' } as const;
const dashboardPath = (language: 'ar' | 'en', screen: string) => `${language === 'ar' ? '' : `/${language}`}/developers/${screen}`;

/** A confirmed account (its link spent by the API, as the sign-up test shows the screens do), signed in nowhere. */
async function confirmedAccount(baseUrl: string, dataDir: string, tag: string, language: 'ar' | 'en' = 'en') {
  const email = uniqueEmail(tag);
  await signUpByApi(baseUrl, email, language);
  const { link } = await mailedLink(dataDir, email);
  const verified = await fetch(`${baseUrl}/api/v1/developer/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: new URL(link).hash.slice(1) }) });
  expect(verified.status).toBe(200);
  return email;
}

/** Fills the sign-in form and waits for the API's answer to it. */
async function signInWith(page: Page, email: string, password: string): Promise<number> {
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  const answered = page.waitForResponse((response) => response.url().endsWith('/api/v1/developer/login'));
  await page.getByTestId('signin-form').getByRole('button', { name: 'Sign in' }).click();
  return (await answered).status();
}

describe.skipIf(withDatabase)('fx developer dashboard in Chromium', () => {
  const dashboard = useDashboard();

  it('signs up in English, verifies by the mailed link, shows the key once, and counts exactly the calls made with it', async () => {
    const fx = dashboard.fx();
    const watched = await dashboard.open({ width: 1280 });
    const { page, context } = watched;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fx.baseUrl });
    const email = uniqueEmail('en');

    await page.goto(`${fx.baseUrl}/en/developers`);
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(DEVELOPER_PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByTestId('check-mail').textContent()).toContain(email);

    // What a new user does: the log names the .eml, the .eml holds the link.
    const { link, file } = await mailedLink(fx.dataDir, email);
    expect(fx.output()).toContain(file);
    expect(link.startsWith(`${fx.baseUrl}/en/developers/verify#`)).toBe(true);
    await page.goto(link);
    const panel = page.getByTestId('new-key');
    await panel.waitFor();
    // The token is spent and gone from the address bar.
    expect(new URL(page.url()).hash).toBe('');
    expect(new URL(page.url()).pathname).toBe('/en/developers/keys');
    const publicKey = (await page.getByTestId('new-public-key').textContent()) ?? '';
    const privateKey = (await page.getByTestId('new-private-key').textContent()) ?? '';
    expect(publicKey).toMatch(/^svc_pub_/);
    expect(privateKey).toMatch(/^svc_prv_/);
    expect(await page.getByTestId('curl-example').textContent()).toContain(`X-Api-Secret: ${privateKey}`);
    await page.getByTestId('copy-private-key').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(privateKey);
    await expect.poll(() => page.getByTestId('clients').locator('tbody tr').count()).toBe(1);
    await page.screenshot({ path: screenshotPath('developers-en-desktop-new-key'), fullPage: true });

    // Shown once: a reload keeps the session and the key's row, never the private key.
    await page.reload();
    await page.getByTestId('clients').waitFor();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(privateKey);
    expect(await page.getByTestId('clients').textContent()).toContain(publicKey);

    // /client/* counts per day but not against the monthly quota; data routes count in both (the quota headers' figure).
    await page.getByRole('link', { name: 'Usage' }).click();
    const today = new Date().toISOString().slice(0, 10);
    const todayRequests = page.locator(`[data-testid="usage-days"] tr[data-day="${today}"] td`).first();
    await todayRequests.waitFor();
    const monthBefore = Number(await page.getByTestId('month-to-date').getAttribute('data-value'));
    const todayBefore = Number(await todayRequests.getAttribute('data-value'));
    const keys = { publicKey, privateKey };
    for (let call = 0; call < 3; call += 1) expect((await callWithKeys(fx.baseUrl, '/api/v1/client/me', keys)).status).toBe(200);
    let quotaUsed: number | null = null;
    for (let call = 0; call < 2; call += 1) {
      const answer = await callWithKeys(fx.baseUrl, '/api/v1/rates/latest?lang=en', keys);
      expect(answer.status).toBe(200);
      quotaUsed = answer.quotaUsed;
    }
    await page.reload();
    await expect.poll(async () => Number(await todayRequests.getAttribute('data-value'))).toBe(todayBefore + 5);
    expect(Number(await page.getByTestId('month-to-date').getAttribute('data-value'))).toBe(monthBefore + 2);
    expect(Number(await page.getByTestId('month-to-date').getAttribute('data-value'))).toBe(quotaUsed);
    expect(await page.getByTestId('usage-chart').getAttribute('data-days')).toBe('30');
    expect(await page.getByTestId('reset-instant').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-01T00:00:00/);
    await page.screenshot({ path: screenshotPath('developers-en-desktop-usage'), fullPage: true });

    await page.getByRole('link', { name: 'Plan' }).click();
    await expect.poll(() => page.locator('tr[aria-current="true"]').getAttribute('data-plan')).toBe('Free');
    await page.screenshot({ path: screenshotPath('developers-en-desktop-plan'), fullPage: true });

    // Rename, then deactivate: its keys are refused from then on.
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByTestId('clients').getByRole('textbox').fill('Build server');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('clients').locator('tbody th').textContent()).toBe('Build server');
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('group', { name: 'Deactivate' }).getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => page.getByTestId('clients').locator('tbody tr').getAttribute('class')).toBe('inactive');
    expect((await callWithKeys(fx.baseUrl, '/api/v1/client/me', keys)).status).toBe(401);

    // Sign out, then in again with the same password.
    await page.getByTestId('sign-out').click();
    await page.getByTestId('signin-form').waitFor();
    expect(new URL(page.url()).pathname).toBe('/en/developers/sign-in');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(DEVELOPER_PASSWORD);
    await page.getByTestId('signin-form').getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(email);
    expect(await watched.problems()).toEqual([]);
  });

  it('reads right to left in Arabic at phone size, from the Arabic mail link to the usage and plan screens', async () => {
    const fx = dashboard.fx();
    const email = uniqueEmail('ar');
    await signUpByApi(fx.baseUrl, email, 'ar');
    const { link } = await mailedLink(fx.dataDir, email);
    expect(new URL(link).pathname).toBe('/developers/verify');
    const watched = await dashboard.open({ width: 390, height: 844 });
    const { page } = watched;
    await page.goto(link);
    await page.getByTestId('new-key').waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    expect(await page.locator('h1').textContent()).toBe('لوحة المطوّرين');
    // Nothing wider than the phone: keys and the curl line scroll inside their own boxes.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: screenshotPath('developers-ar-phone-new-key'), fullPage: true });
    await page.getByRole('link', { name: 'الاستهلاك' }).click();
    await page.getByTestId('usage-chart').waitFor();
    await page.screenshot({ path: screenshotPath('developers-ar-phone-usage'), fullPage: true });
    await page.getByRole('link', { name: 'الخطة' }).click();
    await page.getByTestId('plans').waitFor();
    await page.screenshot({ path: screenshotPath('developers-ar-phone-plan'), fullPage: true });
    expect(await watched.problems()).toEqual([]);
  });

  it('answers a second use of the link, and a wrong password, with a message rather than a blank screen', async () => {
    const fx = dashboard.fx();
    const email = uniqueEmail('reuse');
    await signUpByApi(fx.baseUrl, email, 'en');
    const { link } = await mailedLink(fx.dataDir, email);
    expect((await fetch(`${fx.baseUrl}/api/v1/developer/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: new URL(link).hash.slice(1) }) })).status).toBe(200);
    const watched = await dashboard.open({ width: 1280, ignoreConsole: /Failed to load resource: the server responded with a status of (401|410)/ });
    const { page } = watched;
    await page.goto(link);
    await expect.poll(() => page.getByTestId('verify').getByRole('alert').textContent()).toContain('already used');
    await page.goto(`${fx.baseUrl}/en/developers/sign-in`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByTestId('signin-form').getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('signin-error').textContent()).toBe('Wrong email address or password.');
    expect(await watched.problems()).toEqual([]);
  });

  /** A confirmed account of its own, and a desktop page at the English sign-in screen. */
  async function confirmedAtSignIn(label: string) {
    const fx = dashboard.fx();
    const email = await confirmedAccount(fx.baseUrl, fx.dataDir, label);
    const watched = await dashboard.open({ width: 1280, ignoreConsole: REFUSED_LOADS });
    await watched.page.goto(`${fx.baseUrl}/en/developers/sign-in`);
    return { fx, email, watched, page: watched.page };
  }

  it('"Forgot password?" → the mailed link → a new password → sign in with it; the old password and the spent link are refused', async () => {
    const { fx, email, watched, page } = await confirmedAtSignIn('forgot');
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByTestId('forgot-form').waitFor();
    expect(new URL(page.url()).pathname).toBe('/en/developers/forgot');
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await expect.poll(() => page.getByTestId('forgot-sent').textContent()).toBe(`If ${email} has an account, we mailed it a link to choose a new password. It works once, within 60 minutes.`);

    const { link } = await mailedLink(fx.dataDir, email, MAILED_LINKS.reset);
    expect(link.startsWith(`${fx.baseUrl}/en/developers/reset#`)).toBe(true);
    await page.goto(link);
    await page.getByTestId('reset-form').waitFor();
    // The token is held by the page, gone from the address bar.
    expect(new URL(page.url()).hash).toBe('');
    // A common password: the API's refusal, in the screen's words with its detail; the link is not spent.
    await page.getByLabel('New password', { exact: true }).fill('passwordpassword');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByTestId('reset-error').textContent()).toMatch(/^Choose another password: .*common/);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByTestId('signin-notice').textContent()).toBe('Your password was changed: sign in with the new one.');
    expect(new URL(page.url()).pathname).toBe('/en/developers/sign-in');

    expect(await signInWith(page, email, DEVELOPER_PASSWORD)).toBe(401);
    await expect.poll(() => page.getByTestId('signin-error').textContent()).toBe('Wrong email address or password.');
    expect(await signInWith(page, email, NEW_PASSWORD)).toBe(200);
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(email);

    // The link works once: opened again, the screen says so and offers a new one.
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('yet another long passphrase');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.getByTestId('reset-unusable').getAttribute('data-code')).toBe('RESET_LINK_USED');
    expect(await page.getByTestId('reset-unusable').textContent()).toContain('already used');
    await page.getByRole('button', { name: 'Ask for a new link' }).click();
    await page.getByTestId('forgot-form').waitFor();
    expect(await watched.problems()).toEqual([]);
  });

  it('locks sign-in after 5 failures: the screen says so with the time left, and the right password is refused while locked', async () => {
    const { email, watched, page } = await confirmedAtSignIn('lockout');
    for (let attempt = 1; attempt <= 5; attempt++) expect(await signInWith(page, email, `wrong guess number ${attempt}`), `attempt ${attempt}`).toBe(401);
    expect(await signInWith(page, email, DEVELOPER_PASSWORD)).toBe(429);
    await expect.poll(() => page.getByTestId('signin-error').textContent()).toMatch(/^Too many failed attempts: sign-in is locked for 1[45] more minutes\./);
    expect(await page.getByTestId('signed-in-as').count()).toBe(0);
    expect(await watched.problems()).toEqual([]);
  });

  it('refuses a forged POST from a page of another origin on the same host with 403, and the session stays', async () => {
    const fx = dashboard.fx();
    const email = uniqueEmail('forged');
    await signUpByApi(fx.baseUrl, email, 'en');
    const watched = await dashboard.open({ width: 1280, ignoreConsole: REFUSED_LOADS });
    const { page } = watched;
    await page.goto((await mailedLink(fx.dataDir, email)).link);
    await page.getByTestId('new-key').waitFor();

    // A page served from another port of the same host, as an attacker's would be: the same site, so the
    // SameSite=Lax cookie goes along; only the origin check stands. (A page the browser did not load from
    // loopback may not call loopback at all: Chromium's local network access would refuse it first.)
    const elsewhere = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title><p>a page of another origin</p>'));
    await new Promise<void>((listening) => elsewhere.listen(0, '127.0.0.1', listening));
    const logout = `${fx.baseUrl}/api/v1/developer/logout`;
    const post = async (from: string) => {
      await page.goto(from);
      const answered = page.waitForResponse((response) => response.url() === logout);
      await page.evaluate((url) => fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include' }).then(() => undefined, () => undefined), logout);
      return answered;
    };
    const forged = await post(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`).finally(() => elsewhere.close());
    expect(forged.status()).toBe(403);
    await page.goto(`${fx.baseUrl}/en/developers/keys`);
    await expect.poll(() => page.getByTestId('signed-in-as').textContent()).toContain(email);

    // The same request from the dashboard's own origin is obeyed: the forged one failed for its origin alone.
    expect((await post(`${fx.baseUrl}/en/developers/keys`)).status()).toBe(204);
    await page.goto(`${fx.baseUrl}/en/developers/keys`);
    await page.getByTestId('signin-form').waitFor();
    expect(await watched.problems()).toEqual([]);
  });

  // Every screen, each in both languages at both sizes: a test per language and size, each with a page of its own.
  for (const language of ['ar', 'en'] as const) {
    for (const [size, width, height] of SIZES) {
      it(`has no axe violations on any screen in ${language} at ${size} size (${width}×${height}); forgot and reset are photographed`, async () => {
        const fx = dashboard.fx();
        const violations: Record<string, string[]> = {};
        const email = uniqueEmail(`axe-${language}`);
        await signUpByApi(fx.baseUrl, email, language);
        const watched = await dashboard.open({ width, height });
        const { page } = watched;
        const audit = async (name: string) => {
          const found = await accessibilityViolations(page);
          if (found.length > 0) violations[name] = found;
        };
        const open = async (screen: keyof typeof READY, fragment = '') => {
          await page.goto(`${fx.baseUrl}${dashboardPath(language, screen)}${fragment}`);
          await page.getByTestId(READY[screen]).waitFor();
          expect(await page.evaluate(() => document.documentElement.scrollWidth), screen).toBeLessThanOrEqual(width);
        };
        for (const screen of ['sign-up', 'sign-in'] as const) {
          await open(screen);
          await audit(screen);
        }
        await open('forgot');
        expect(await page.locator('html').getAttribute('dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
        await page.screenshot({ path: committedScreenshot(`fx-developers-forgot-${language}-${size}`), fullPage: true });
        await audit('forgot');
        // The answer, for an address without an account: the same as for one with.
        await page.getByTestId('forgot-form').getByRole('textbox').fill(uniqueEmail('nobody'));
        await page.getByTestId('forgot-form').getByRole('button').click();
        await page.getByTestId('forgot-sent').locator('p').waitFor();
        await audit('forgot, answered');
        await open('reset', `#${'A'.repeat(43)}`);
        await page.screenshot({ path: committedScreenshot(`fx-developers-reset-${language}-${size}`), fullPage: true });
        await audit('reset');
        await page.goto(`${fx.baseUrl}${dashboardPath(language, 'reset')}`);
        await page.getByTestId('reset-unusable').waitFor();
        await audit('reset without a token');
        // The mailed link signs in and shows the first key: the verify screen's end and the keys screen at once.
        await page.goto((await mailedLink(fx.dataDir, email)).link);
        await page.getByTestId('new-key').waitFor();
        await audit('verify → keys');
        for (const screen of ['alerts', 'usage', 'plan'] as const) {
          await open(screen);
          await audit(screen);
        }
        expect(violations).toEqual({});
        expect(await watched.problems()).toEqual([]);
      });
    }
  }
});

// A second fx, started after the first has stopped (two starting at once outrun the start deadline on a small machine).
describe.skipIf(withDatabase)('fx developer dashboard with sign-up closed', () => {
  const dashboard = useDashboard({ FX_SIGNUP: 'closed' });

  it('shows the operator page instead of the form when sign-up is closed', async () => {
    const fx = dashboard.fx();
    const watched = await dashboard.open({ width: 1280 });
    const { page } = watched;
    await page.goto(`${fx.baseUrl}/en/developers`);
    await expect.poll(() => page.getByTestId('signup-closed').textContent()).toContain('Sign-up is closed');
    expect(await page.getByTestId('signup-form').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('developers-en-desktop-closed') });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await watched.problems()).toEqual([]);
  });
});
