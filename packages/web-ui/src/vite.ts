// Build-time helpers, loaded by each app's vite.config.ts in Node (never bundled into a page).
export { documentHead, type DocumentHeadOptions } from './document-head.js';
export { precompressAssets } from './precompress-assets.js';
export { webAppViteConfig, type WebAppViteOptions } from './web-app-vite-config.js';
