import { builtWebAppPlugin } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';
import type { IdentityExecutor } from '../db/schema.js';
import { captureEmbedOriginsOfCase } from '../domain/tenants/capture-embed.js';

/**
 * The end user's hosted capture page at /capture, its hashed assets under /capture/assets/
 * (built into services/identity/dist/capture). The session token arrives in the URL fragment
 * and the page calls /api/capture/v1 on this origin. The camera is allowed on this page alone
 * (never the microphone: the liveness video is silent), and no Referer leaves it, so neither
 * the page's address nor anything in it reaches another site.
 *
 * Framing: the page's query names its case (`?case=<caseId>`, not a secret), and the case's tenant
 * lists the origins that may show it in an iframe (captureEmbedOrigins); those, and only those,
 * also get the camera. Without a case, or with an empty list, the page is never framed.
 */
export const capturePagePlugin: FastifyPluginAsync<{ root?: string | undefined; db: IdentityExecutor }> = async (app, { root, db }) => {
  const plugin = builtWebAppPlugin(new URL('../../dist/capture/', import.meta.url), {
    assetsPrefix: '/capture/assets/',
    description: 'capture page',
    // Captured stills are shown back for confirmation as blob: URLs; the QR code and frames are drawn on canvas.
    imgSrc: ['blob:'],
    mediaSrc: ['blob:'],
    referrerPolicy: 'no-referrer',
    permissionsPolicy: (framedBy) => `camera=(self${framedBy.map((origin) => ` "${origin}"`).join('')}), microphone=()`,
    pages: [{ url: '/capture', framedBy: (request) => captureEmbedOriginsOfCase(db, (request.query as { case?: unknown }).case as string | undefined) }],
  });
  await app.register(plugin, { root });
};
