import { builtWebAppPlugin } from '@svc/service-kit';

/**
 * The reviewers' console: one page at /console and every path below it, its hashed assets under
 * /console/assets/ (built into services/identity/dist/console). It calls the internal review API
 * on this origin with the staff session cookie; evidence images, the liveness video and its
 * stills come from that API too.
 */
export const consolePagePlugin = builtWebAppPlugin(new URL('../../dist/console/', import.meta.url), {
  assetsPrefix: '/console/assets/',
  description: "reviewers' console",
  pages: [{ url: '/console' }, { url: '/console/*' }],
});
