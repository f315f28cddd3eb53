import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServiceProcess, type ServiceProcess } from '@svc/service-kit/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const ARTIFACTS_DIR = join(SERVICE_DIR, 'test-artifacts');
export const ADMIN_TOKEN = 'browser-test-admin-token-0123456789';
/** Debian's chromium package; .ci/run and scripts/run.mjs install it (browser downloads are impossible here). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Builds the page with the current sources into a directory of its own (FX_WEB_ROOT), so the
 * test never serves a stale dist/web and never overwrites the one a running fx is serving.
 */
export function buildPage(): string {
  const outDir = mkdtempSync(join(tmpdir(), 'fx-web-'));
  const result = spawnSync(join(SERVICE_DIR, 'node_modules', '.bin', 'vite'), ['build', 'web', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: SERVICE_DIR, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
  return outDir;
}

/** fx as an operator starts it on the embedded default (PGlite, demo data), on a free port. */
export async function startFx(webRoot: string, env: Record<string, string> = {}): Promise<ServiceProcess & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fx-browser-data-'));
  const service = await startServiceProcess({
    cwd: SERVICE_DIR,
    entry: 'src/server.ts',
    healthPath: '/api/v1/health',
    timeoutMs: 60_000,
    env: {
      DATA_DIR: dataDir,
      FX_WEB_ROOT: webRoot,
      FX_ADMIN_TOKEN: ADMIN_TOKEN,
      // The page's own requests are few; the tests load it many times a minute from one IP.
      RATE_LIMIT_ANON_PER_MINUTE: '100000',
      RATE_LIMIT_ANON_PER_HOUR: '1000000',
      ...env,
    },
  });
  return Object.assign(service, { dataDir });
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP violations seen so far. */
  problems(): Promise<string[]>;
}

/**
 * A page in a fresh context (own storage: no previous-close cache carried over) that records
 * console errors, uncaught errors and Content-Security-Policy violations.
 */
export async function openPage(browser: Browser, options: { width: number; height?: number; fakeClock?: boolean } = { width: 1280 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height ?? 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Injected through DevTools, so the page's own CSP does not apply to this listener.
  await page.addInitScript(() => {
    const store = ((globalThis as unknown as { __csp: string[] }).__csp = [] as string[]);
    document.addEventListener('securitypolicyviolation', (event) => store.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  if (options.fakeClock) await page.clock.install();
  return {
    page,
    context,
    async problems() {
      const csp = await page.evaluate(() => (globalThis as unknown as { __csp?: string[] }).__csp ?? []).catch(() => [] as string[]);
      return [...problems, ...csp.map((violation) => `CSP violation: ${violation}`)];
    },
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, `${name}.png`);
}

export function removeQuietly(path: string) {
  rmSync(path, { recursive: true, force: true });
}

export async function postAdmin(baseUrl: string, path: string, body: unknown) {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN_TOKEN }, body: JSON.stringify(body) });
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
  return response.json() as Promise<unknown>;
}

export async function getApi<T>(baseUrl: string, path: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`);
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return response.json() as Promise<T>;
}
