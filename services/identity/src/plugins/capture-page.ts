import { builtWebAppPlugin } from '@svc/service-kit';

/**
 * The end user's hosted capture page at /capture, its hashed assets under /capture/assets/
 * (built into services/identity/dist/capture). The session token arrives in the URL fragment
 * and the page calls /api/capture/v1 on this origin. The camera is allowed on this page alone
 * (never the microphone: the liveness video is silent), and no Referer leaves it, so neither
 * the page's address nor anything in it reaches another site.
 */
export const capturePagePlugin = builtWebAppPlugin(new URL('../../dist/capture/', import.meta.url), {
  assetsPrefix: '/capture/assets/',
  description: 'capture page',
  // Captured stills are shown back for confirmation as blob: URLs; the QR code and frames are drawn on canvas.
  imgSrc: ['blob:'],
  mediaSrc: ['blob:'],
  referrerPolicy: 'no-referrer',
  permissionsPolicy: 'camera=(self), microphone=()',
  pages: [{ url: '/capture' }],
});
