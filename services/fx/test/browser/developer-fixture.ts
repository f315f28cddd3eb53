import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort } from '@svc/service-kit/testing';
import { simpleParser } from 'mailparser';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildViteApp, type OpenPageOptions } from '@svc/service-kit/browser-testing';
import { launchChromium, openPage, removeQuietly, SERVICE_DIR, startFx, type WatchedPage } from './browser-fixture.js';

export const DEVELOPER_PASSWORD = 'a quiet river at dawn 7';

/** The dashboard built from the current sources into a directory of its own (FX_DEVELOPERS_WEB_ROOT). */
export function buildDashboard(): string {
  return buildViteApp(SERVICE_DIR, 'developers', 'fx-developers-');
}

/**
 * fx as `npm start` runs it (embedded default: mails written as .eml under $DATA_DIR/fx/mail, the
 * log naming each), serving the dashboard build, with the mailed links pointing at its own port.
 */
export async function startFxWithDashboard(dashboardRoot: string, env: Record<string, string> = {}) {
  const port = await findFreePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // No rates page build: these tests never open it, and its 503 would say so if one did.
  return startFx(join(dashboardRoot, 'no-rates-page'), { PORT: String(port), PUBLIC_BASE_URL: baseUrl, FX_DEVELOPERS_WEB_ROOT: dashboardRoot, LOG_LEVEL: 'info', ...env });
}

/** The committed screenshots of the dashboard (docs/screenshots), looked at by a person after each change. */
export const committedScreenshot = (name: string) => join(SERVICE_DIR, '..', '..', 'docs', 'screenshots', `${name}.png`);

/** The links the dashboard's mails carry: the sign-up's confirmation, and "forgot password"'s. */
export const MAILED_LINKS = { verify: /https?:\/\/\S+\/developers\/verify#fxv_[0-9a-f]+/, reset: /https?:\/\/\S+\/developers\/reset#[A-Za-z0-9_-]{43}/ };

export function uniqueEmail(tag: string): string {
  return `dev-${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** The link (verification unless said) of the .eml file mailed to `email`, and that file's path, once the mail worker has written it. */
export async function mailedLink(dataDir: string, email: string, pattern: RegExp = MAILED_LINKS.verify): Promise<{ link: string; file: string }> {
  const mailDir = join(dataDir, 'fx', 'mail');
  let found: { link: string; file: string } | undefined;
  await expect
    .poll(
      async () => {
        const files = (() => {
          try {
            return readdirSync(mailDir).filter((name) => name.endsWith('.eml'));
          } catch {
            return [];
          }
        })();
        for (const name of files) {
          const mail = await simpleParser(readFileSync(join(mailDir, name)));
          const to = Array.isArray(mail.to) ? mail.to.map((address) => address.text).join(',') : (mail.to?.text ?? '');
          const link = pattern.exec(mail.text ?? '')?.[0];
          if (to.includes(email) && link) found = { link, file: join(mailDir, name) };
        }
        return found !== undefined;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(true);
  return found as { link: string; file: string };
}

export async function signUpByApi(baseUrl: string, email: string, language: string) {
  const response = await fetch(`${baseUrl}/api/v1/developer/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: DEVELOPER_PASSWORD, language }) });
  expect(response.status).toBe(202);
}

/** A request with a key pair, as a developer's own program makes it: its status, and the month's count its quota headers imply (null without them). */
export async function callWithKeys(baseUrl: string, path: string, keys: { publicKey: string; privateKey: string }): Promise<{ status: number; quotaUsed: number | null }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'X-Api-Key': keys.publicKey, 'X-Api-Secret': keys.privateKey } });
  await response.arrayBuffer();
  const limit = response.headers.get('x-quota-limit');
  const remaining = response.headers.get('x-quota-remaining');
  return { status: response.status, quotaUsed: limit === null || remaining === null ? null : Number(limit) - Number(remaining) };
}

/**
 * For the enclosing describe: the dashboard built, fx started with it (`env` on top) and Chromium
 * launched; every page opened through `open` is closed afterwards, and everything removed. `env` may
 * be a function, for settings known only once something the test runs has started (a mail server's port).
 */
export function useDashboard(env: Record<string, string> | (() => Promise<Record<string, string>>) = {}) {
  let dashboardRoot = '';
  let fx: Awaited<ReturnType<typeof startFxWithDashboard>> | undefined;
  let browser: Browser | undefined;
  const opened: WatchedPage[] = [];
  beforeAll(async () => {
    dashboardRoot = buildDashboard();
    fx = await startFxWithDashboard(dashboardRoot, typeof env === 'function' ? await env() : env);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    for (const watched of opened) await watched.context.close().catch(() => undefined);
    await browser?.close();
    if (fx) {
      await fx.stop();
      removeQuietly(fx.dataDir);
    }
    removeQuietly(dashboardRoot);
  });
  return {
    fx() {
      if (!fx) throw new Error('fx is not started');
      return fx;
    },
    async open(options: OpenPageOptions): Promise<WatchedPage> {
      if (!browser) throw new Error('Chromium is not launched');
      const watched = await openPage(browser, options);
      opened.push(watched);
      return watched;
    },
  };
}
