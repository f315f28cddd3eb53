import { fileURLToPath } from 'node:url';
import { webAppPlugin } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';

/** From src/plugins (tsx) and from dist/plugins (built) alike, this is services/identity/dist/console. */
export const DEFAULT_CONSOLE_ROOT = fileURLToPath(new URL('../../dist/console/', import.meta.url));

/**
 * The reviewers' console: one page at /console and every path below it, its hashed assets under
 * /console/assets/. It calls the internal review API on this origin with the staff session
 * cookie; evidence images, the liveness video and its stills come from that API too.
 */
export const consolePagePlugin: FastifyPluginAsync<{ root?: string | undefined }> = async (app, options) => {
  await app.register(webAppPlugin, {
    root: options.root ?? DEFAULT_CONSOLE_ROOT,
    assetsPrefix: '/console/assets/',
    description: "reviewers' console",
    buildCommand: 'pnpm build',
    pages: [{ url: '/console' }, { url: '/console/*' }],
  });
};
