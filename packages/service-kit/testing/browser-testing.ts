import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export { chartPixelsOfColour, lowContrastText, transferredScriptAndStyleBytes, unlabelledControls } from './page-audits.js';

/** Debian's chromium package; .ci/run and scripts/run.mjs install it (browser downloads are impossible here). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Builds a service's Vite app with the current sources into a directory of its own, so a test
 * never serves a stale build and never overwrites the one a running service is serving.
 * `appDir` is the app's folder relative to `serviceDir` (e.g. `web`, `portal`).
 *
 * Within one vitest run (SVC_TEST_RUN_DIR, set by the shared global setup) each app is built
 * once and shared by every test file that serves it: the sources cannot change during a run, and
 * a `vite build` per browser file cost each of them many seconds on a busy machine.
 */
export function buildViteApp(serviceDir: string, appDir: string, prefix = 'vite-app-'): string {
  const runDir = process.env.SVC_TEST_RUN_DIR;
  const shared = runDir ? join(runDir, 'vite', `${prefix}${createHash('sha256').update(join(serviceDir, appDir)).digest('hex').slice(0, 8)}`) : null;
  if (shared && existsSync(join(shared, 'index.html'))) return shared;
  const outDir = mkdtempSync(join(runDir ? join(runDir, 'vite') : tmpdir(), prefix));
  const result = spawnSync(join(serviceDir, 'node_modules', '.bin', 'vite'), ['build', appDir, '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: serviceDir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`vite build ${appDir} failed:\n${result.stdout}\n${result.stderr}`);
  if (!shared) return outDir;
  try {
    // Complete builds only are published; a sibling file that built the same app meanwhile wins.
    renameSync(outDir, shared);
  } catch {
    rmSync(outDir, { recursive: true, force: true });
  }
  return shared;
}

/** `extraArgs`: e.g. the fake camera's `--use-fake-device-for-media-stream` flags. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Without the background-networking flags Chromium keeps dialling Google's hosts, which this machine's closed network refuses.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP violations seen so far. */
  problems(): Promise<string[]>;
}

export interface OpenPageOptions {
  width: number;
  height?: number;
  fakeClock?: boolean;
  /** Browser language (navigator.language, Accept-Language), e.g. 'ar'. */
  locale?: string;
  /** Console errors to tolerate, e.g. the 4xx an error-path test provokes on purpose. */
  ignoreConsole?: RegExp;
}

/**
 * A page in a fresh context (own cookies and storage) that records console errors, uncaught
 * errors and Content-Security-Policy violations.
 */
export async function openPage(browser: Browser, options: OpenPageOptions = { width: 1280 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height ?? 900 }, deviceScaleFactor: 1, ...(options.locale ? { locale: options.locale } : {}) });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !options.ignoreConsole?.test(message.text())) problems.push(`console: ${message.text()}`);
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

/** `<artifactsDir>/<name>.png`, creating the folder. */
export function screenshotPath(artifactsDir: string, name: string): string {
  mkdirSync(artifactsDir, { recursive: true });
  return join(artifactsDir, `${name}.png`);
}

export function removeQuietly(path: string) {
  // The run's shared builds (buildViteApp) outlive one file; the global teardown removes them.
  const runDir = process.env.SVC_TEST_RUN_DIR;
  if (runDir && path.startsWith(join(runDir, 'vite'))) return;
  rmSync(path, { recursive: true, force: true });
}

/** The WCAG 2.1 A and AA rules of axe-core: every page of every service is held to these. */
export const WCAG_21_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

/**
 * Rules switched off for every page, each with the reason it truly cannot be met. The one place
 * to disable a rule: a page-level exception would hide a regression on the other pages.
 */
export const DISABLED_AXE_RULES: Readonly<Record<string, string>> = {};

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now, one line each (rule, impact, first targets). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const { AxeBuilder } = await import('@axe-core/playwright');
  const results = await new AxeBuilder({ page }).withTags([...WCAG_21_AA_TAGS]).disableRules(Object.keys(DISABLED_AXE_RULES)).analyze();
  return results.violations.map(
    (violation) => `${violation.id} (${violation.impact ?? 'n/a'}): ${violation.help} — ${violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(' | ')}`,
  );
}
