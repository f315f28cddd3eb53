import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webAppViteConfig } from '../src/vite.js';

// A real Vite build of a minimal app through the shared config: what the services' pages are built with.
let workDir: string;
let outDir: string;

async function buildFixture(name: string, options: { viewport?: string } = {}): Promise<string> {
  const appDir = join(workDir, name);
  mkdirSync(join(appDir, 'src'), { recursive: true });
  // The page states only its own head (lang, title, referrer); the shared part is injected.
  writeFileSync(join(appDir, 'index.html'), '<!doctype html>\n<html lang="en">\n  <head>\n    <meta name="referrer" content="same-origin" />\n    <title>Fixture</title>\n  </head>\n  <body><div id="app"></div></body>\n</html>\n');
  writeFileSync(join(appDir, 'src', 'main.tsx'), "document.getElementById('app')?.append('rendered');\n");
  writeFileSync(join(appDir, 'src', 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>\n');
  const config = webAppViteConfig({ app: name, themeColor: '#123456', devPort: 5999, apiPort: 3999, ...options });
  await build({ ...config, root: appDir, configFile: false, logLevel: 'silent' });
  return join(workDir, 'dist', name);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'web-ui-build-'));
  outDir = await buildFixture('fixture');
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('webAppViteConfig', () => {
  it('gives the page the shared head before its own, with the entry bundled and the icon hashed under the base', () => {
    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    const order = ['<meta charset="utf-8"', '<meta name="viewport" content="width=device-width, initial-scale=1"', '<meta name="theme-color" content="#123456"', '<title>Fixture</title>'].map((part) => html.indexOf(part));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((left, right) => left - right)).toEqual(order);
    expect(html).toMatch(/<link rel="icon" type="image\/svg\+xml" href="\/fixture\/assets\/favicon-[\w-]+\.svg">/);
    expect(html).toMatch(/<script type="module" crossorigin src="\/fixture\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(html).not.toContain('src/main.tsx');
    // The services' CSP allows no inline script or style.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);
  });

  it('writes a brotli and a gzip copy beside each text asset, the same bytes once decompressed', () => {
    const assetsDir = join(outDir, 'assets');
    const names = readdirSync(assetsDir);
    const textAssets = names.filter((name) => /\.(js|css|svg)$/.test(name));
    expect(textAssets.some((name) => name.endsWith('.js'))).toBe(true);
    for (const name of textAssets) {
      const original = readFileSync(join(assetsDir, name));
      expect(brotliDecompressSync(readFileSync(join(assetsDir, `${name}.br`)))).toEqual(original);
      expect(gunzipSync(readFileSync(join(assetsDir, `${name}.gz`)))).toEqual(original);
    }
  });

  it("takes a page's own viewport", async () => {
    const html = readFileSync(join(await buildFixture('phone', { viewport: 'width=device-width, initial-scale=1, viewport-fit=cover' }), 'index.html'), 'utf8');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">');
    expect(html.match(/name="viewport"/g)).toHaveLength(1);
  });
});
