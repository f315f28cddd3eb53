import { builtWebAppPlugin } from '@svc/service-kit';

/**
 * The partner portal: one page at /portal and every path below it (the app routes in the
 * browser), its hashed assets under /portal/assets/ (built into services/identity/dist/portal).
 * It calls the partner API on this origin with the portal session cookie; no token ever reaches
 * the browser.
 */
export const portalPagePlugin = builtWebAppPlugin(new URL('../../dist/portal/', import.meta.url), {
  assetsPrefix: '/portal/assets/',
  description: 'partner portal',
  // Evidence thumbnails and the liveness video come from /api/partner/v1/evidence/… on this origin; uPlot draws on canvas.
  imgSrc: ['data:'],
  pages: [{ url: '/portal' }, { url: '/portal/*' }],
});
