import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

// A stand-in for the Vite build (the browser tests in test/browser use the real one): what is
// checked here is how fx serves whatever the build wrote.
function writeWebRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'fx-web-root-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html>\n<html lang="ar" dir="rtl"><head><script type="module" src="/assets/index-AbC123.js"></script></head><body></body></html>\n');
  const script = 'console.log("rates page");'.repeat(50);
  writeFileSync(join(root, 'assets', 'index-AbC123.js'), script);
  writeFileSync(join(root, 'assets', 'index-AbC123.js.br'), brotliCompressSync(script));
  return root;
}

describe('fx web page serving', () => {
  let webRoot = '';
  let testApp: TestApp;
  let unbuilt: TestApp;

  beforeAll(async () => {
    webRoot = writeWebRoot();
    [testApp, unbuilt] = await Promise.all([buildTestApp({ FX_WEB_ROOT: webRoot }), buildTestApp({ FX_WEB_ROOT: join(webRoot, 'missing') })]);
  });
  afterAll(async () => {
    await Promise.all([testApp?.close(), unbuilt?.close()]);
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('serves the page at / in Arabic and at /{lang} with lang and dir set, revalidated on every visit', async () => {
    const cases = { '/': ['ar', 'rtl'], '/ar': ['ar', 'rtl'], '/en': ['en', 'ltr'], '/de': ['de', 'ltr'], '/tr': ['tr', 'ltr'], '/ku': ['ku', 'rtl'], '/kmr': ['kmr', 'ltr'] };
    for (const [url, [lang, dir]] of Object.entries(cases)) {
      const response = await testApp.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain(`<html lang="${lang}" dir="${dir}">`);
    }
  });

  it('sends a strict CSP without inline script, frame-ancestors none and a Referrer-Policy with the page', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/en' });
    const csp = String(response.headers['content-security-policy']);
    expect(csp.split(';')).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]));
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves hashed assets for a year, immutable, pre-compressed when the browser accepts it', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/assets/index-AbC123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    const plain = await testApp.app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('rates page');
  });

  it('leaves the JSON API and the Swagger UI as they were: open CORS, no page CSP', async () => {
    const latest = await testApp.app.inject({ method: 'GET', url: '/api/v1/rates/latest', headers: { origin: 'https://example.org' } });
    expect(latest.statusCode).toBe(200);
    expect(latest.headers['access-control-allow-origin']).toBe('*');
    expect(latest.headers['content-security-policy']).toBeUndefined();
    const docs = await testApp.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-security-policy']).toBeUndefined();
  });

  it('answers 404 problems for an unknown language or asset', async () => {
    for (const url of ['/fr', '/assets/nothing-here.js', '/en/extra']) {
      const response = await testApp.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
  });

  it('answers 503 naming `pnpm build` when the page was never built, and the API still works', async () => {
    const response = await unbuilt.app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.json()).toMatchObject({ code: 'WEB_PAGE_NOT_BUILT', detail: expect.stringContaining('pnpm build') });
    expect((await unbuilt.app.inject({ method: 'GET', url: '/api/v1/rates/latest' })).statusCode).toBe(200);
  });
});
