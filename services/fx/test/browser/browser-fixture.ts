import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildViteApp, screenshotPath as screenshotIn } from '@svc/service-kit/browser-testing';
import { startServiceProcess, type ServiceProcess } from '@svc/service-kit/testing';

export { launchChromium, openPage, removeQuietly, type WatchedPage } from '@svc/service-kit/browser-testing';

export const SERVICE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const ARTIFACTS_DIR = join(SERVICE_DIR, 'test-artifacts');
export const ADMIN_TOKEN = 'browser-test-admin-token-0123456789';

/** The page built from the current sources into a directory of its own (FX_WEB_ROOT). */
export function buildPage(): string {
  return buildViteApp(SERVICE_DIR, 'web', 'fx-web-');
}

/** fx as an operator starts it on the embedded default (PGlite, demo data), on a free port. */
export async function startFx(webRoot: string, env: Record<string, string> = {}): Promise<ServiceProcess & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fx-browser-data-'));
  const service = await startServiceProcess({
    cwd: SERVICE_DIR,
    entry: 'src/server.ts',
    healthPath: '/api/v1/health',
    timeoutMs: 120_000,
    env: {
      DATA_DIR: dataDir,
      FX_WEB_ROOT: webRoot,
      FX_ADMIN_TOKEN: ADMIN_TOKEN,
      // The page's own requests are few; the tests load it many times a minute from one IP.
      RATE_LIMIT_ANON_PER_MINUTE: '100000',
      RATE_LIMIT_ANON_PER_HOUR: '1000000',
      // Every page the tests keep open holds a live stream from the same IP.
      FX_STREAM_MAX_PER_IP: '1000',
      ...env,
    },
  });
  return Object.assign(service, { dataDir });
}

export function screenshotPath(name: string): string {
  return screenshotIn(ARTIFACTS_DIR, name);
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
