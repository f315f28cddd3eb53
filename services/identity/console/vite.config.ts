import { precompressAssets } from '@svc/service-kit/vite';
import { defineConfig } from 'vite';

// Run with the console directory as root: `vite build console` / `vite console` from services/identity.
export default defineConfig({
  // identity serves the page at /console and every path below it, the hashed assets at /console/assets/.
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [precompressAssets()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    // Keep every asset a file: no data: URL for the CSP to allow.
    assetsInlineLimit: 0,
    target: 'es2020',
  },
  server: {
    port: Number(process.env.CONSOLE_DEV_PORT ?? 5175),
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3001}` },
  },
});
