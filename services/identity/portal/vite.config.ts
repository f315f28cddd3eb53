import { precompressAssets } from '@svc/service-kit/vite';
import { defineConfig } from 'vite';

// Run with the portal directory as root: `vite build portal` / `vite portal` from services/identity.
export default defineConfig({
  // identity serves the page at /portal and every path below it, the hashed assets at /portal/assets/.
  base: '/portal/',
  // Preact's automatic JSX runtime through esbuild; no framework plugin needed.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [precompressAssets()],
  build: {
    outDir: '../dist/portal',
    emptyOutDir: true,
    // Every browser we target has modulepreload; the polyfill would only add bytes.
    modulePreload: { polyfill: false },
    // Keep every asset a file: cached like the others, and no data: URL for the CSP to allow.
    assetsInlineLimit: 0,
    target: 'es2020',
  },
  server: {
    port: Number(process.env.PORTAL_DEV_PORT ?? 5174),
    // The portal calls the partner API on its own origin with the session cookie; in development identity runs beside Vite.
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3001}` },
  },
});
