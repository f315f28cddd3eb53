import { fileURLToPath } from 'node:url';
import { webAppPlugin } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';

/** From src/plugins (tsx) and from dist/plugins (built) alike, this is services/identity/dist/capture. */
export const DEFAULT_CAPTURE_ROOT = fileURLToPath(new URL('../../dist/capture/', import.meta.url));

/**
 * The end user's hosted capture page at /capture, its hashed assets under /capture/assets/. The
 * session token arrives in the URL fragment and the page calls /api/capture/v1 on this origin.
 * The camera is allowed on this page alone (never the microphone: the liveness video is silent),
 * and no Referer leaves it, so neither the page's address nor anything in it reaches another site.
 */
export const capturePagePlugin: FastifyPluginAsync<{ root?: string | undefined }> = async (app, options) => {
  await app.register(webAppPlugin, {
    root: options.root ?? DEFAULT_CAPTURE_ROOT,
    assetsPrefix: '/capture/assets/',
    description: 'capture page',
    buildCommand: 'pnpm build',
    // Captured stills are shown back for confirmation as blob: URLs; the QR code and frames are drawn on canvas.
    imgSrc: ['blob:'],
    mediaSrc: ['blob:'],
    referrerPolicy: 'no-referrer',
    permissionsPolicy: 'camera=(self), microphone=()',
    pages: [{ url: '/capture' }],
  });
};
