import { precompressAssets } from '@svc/service-kit/vite';
import { defineConfig } from 'vite';

// Run with the capture directory as root: `vite build capture` / `vite capture` from services/identity.
export default defineConfig({
  // identity serves the page at /capture, the hashed assets at /capture/assets/.
  base: '/capture/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [precompressAssets()],
  build: {
    outDir: '../dist/capture',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    // Keep every asset a file: no data: URL for the CSP to allow.
    assetsInlineLimit: 0,
    target: 'es2020',
  },
  server: {
    port: Number(process.env.CAPTURE_DEV_PORT ?? 5176),
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3001}` },
  },
});
