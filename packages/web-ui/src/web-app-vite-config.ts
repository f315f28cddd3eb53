import type { UserConfig } from 'vite';
import { documentHead, type DocumentHeadOptions } from './document-head.js';
import { precompressAssets } from './precompress-assets.js';

export interface WebAppViteOptions extends DocumentHeadOptions {
  /**
   * The app's directory in its service (Vite's root): the build goes to the service's `dist/<app>`,
   * where its page plugin reads it, and `vite <app>` listens on `<APP>_DEV_PORT` (default `devPort`).
   */
  app: string;
  /** Where the service serves the page (default `/<app>/`); its hashed assets are under `${base}assets/`. */
  base?: string;
  devPort: number;
  /** The service's default PORT: in development /api is proxied to it (to PORT when set). */
  apiPort: number;
}

/**
 * One build for every web app (Preact, served by service-kit's webAppPlugin under a strict CSP).
 * Run with the app's directory as root: `vite build portal`, `vite web`.
 */
export function webAppViteConfig(options: WebAppViteOptions): UserConfig {
  const devPort = process.env[`${options.app.toUpperCase()}_DEV_PORT`] ?? options.devPort;
  const apiPort = process.env.PORT ?? options.apiPort;
  return {
    base: options.base ?? `/${options.app}/`,
    // Preact's automatic JSX runtime through esbuild; no framework plugin needed.
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    plugins: [documentHead(options), precompressAssets()],
    build: {
      outDir: `../dist/${options.app}`,
      emptyOutDir: true,
      // Every browser we target has modulepreload; the polyfill would only add bytes (bundled, so CSP-safe, but unused).
      modulePreload: { polyfill: false },
      // Keep every asset a file: cached like the others, and no data: URL for the CSP to allow.
      assetsInlineLimit: 0,
      target: 'es2020',
    },
    server: {
      port: Number(devPort),
      // The page calls the API on its own origin (cookies included); in development the service runs beside Vite.
      proxy: { '/api': `http://127.0.0.1:${apiPort}` },
    },
  };
}
