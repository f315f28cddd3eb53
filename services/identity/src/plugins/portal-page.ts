import { fileURLToPath } from 'node:url';
import { webAppPlugin } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';

/** From src/plugins (tsx) and from dist/plugins (built) alike, this is services/identity/dist/portal. */
export const DEFAULT_PORTAL_ROOT = fileURLToPath(new URL('../../dist/portal/', import.meta.url));

/**
 * The partner portal: one page at /portal and every path below it (the app routes in the
 * browser), its hashed assets under /portal/assets/. It calls the partner API on this origin
 * with the portal session cookie; no token ever reaches the browser.
 */
export const portalPagePlugin: FastifyPluginAsync<{ root?: string | undefined }> = async (app, options) => {
  await app.register(webAppPlugin, {
    root: options.root ?? DEFAULT_PORTAL_ROOT,
    assetsPrefix: '/portal/assets/',
    description: 'partner portal',
    buildCommand: 'pnpm build',
    // Evidence thumbnails and the liveness video come from /api/partner/v1/evidence/… on this origin; uPlot draws on canvas.
    imgSrc: ['data:'],
    pages: [{ url: '/portal' }, { url: '/portal/*' }],
  });
};
