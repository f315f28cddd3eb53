import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/**
 * Writes `.br` and `.gz` beside each text asset once at build time, so fx (@fastify/static
 * preCompressed) serves them compressed at maximum level without compressing per request.
 */
function precompressAssets(): Plugin {
  let assetsDir = '';
  return {
    name: 'fx-precompress-assets',
    apply: 'build',
    configResolved(config) {
      assetsDir = resolve(config.root, config.build.outDir, config.build.assetsDir);
    },
    closeBundle() {
      for (const name of readdirSync(assetsDir)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const content = readFileSync(join(assetsDir, name));
        writeFileSync(join(assetsDir, `${name}.br`), brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assetsDir, `${name}.gz`), gzipSync(content, { level: 9 }));
      }
    },
  };
}

// Run with the web directory as root: `vite build web` / `vite web` from services/fx.
export default defineConfig({
  base: '/',
  // Preact's automatic JSX runtime through esbuild; no framework plugin needed.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [precompressAssets()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // The polyfill would be fine under CSP (it is bundled, not inline), but every browser we target has modulepreload.
    modulePreload: { polyfill: false },
    // Keep the favicon a file: the CSP allows data: images, but a file is cached like the other assets.
    assetsInlineLimit: 0,
    target: 'es2020',
  },
  server: {
    port: Number(process.env.WEB_DEV_PORT ?? 5173),
    // `pnpm dev` runs fx (tsx watch) beside this server; the page calls the API on the same origin.
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3002}` },
  },
});
