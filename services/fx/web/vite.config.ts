import { precompressAssets } from '@svc/service-kit/vite';
import { defineConfig } from 'vite';

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
