import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { ProblemError } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';

export interface WebAppOptions {
  /** The Vite build: index.html and assets/. */
  root: string;
  /** URL prefix of the hashed assets, e.g. `/assets/` or `/portal/assets/` (the build's `base` + assets/). */
  assetsPrefix: string;
  /** Routes answering the HTML, each with an optional rewrite of it (e.g. `lang`/`dir` set before any script runs). */
  pages: {
    url: string;
    html?: (html: string, request: FastifyRequest) => string;
    /**
     * Origins that may frame this request's page (e.g. looked up from its query): listed, the page
     * answers `frame-ancestors 'self' <origins>` without X-Frame-Options; none, it is never framed.
     */
    framedBy?: (request: FastifyRequest) => Promise<readonly string[]>;
  }[];
  /** What the app is, and the command that builds it (default `pnpm build`), for the 503 a missing build answers. */
  description: string;
  buildCommand?: string;
  /** Extra sources beyond 'self' (e.g. `data:` images). */
  imgSrc?: string[];
  mediaSrc?: string[];
  /** Referrer-Policy of the pages and assets; default strict-origin-when-cross-origin. */
  referrerPolicy?: 'no-referrer' | 'same-origin' | 'strict-origin-when-cross-origin';
  /**
   * A Permissions-Policy header for the pages (e.g. `camera=(self), microphone=()`), or one made
   * from the origins allowed to frame the page (its `framedBy`); none by default.
   */
  permissionsPolicy?: string | ((framedBy: readonly string[]) => string);
}

/**
 * A built single-page app and its hashed assets under a strict Content-Security-Policy (no
 * inline script, same-origin everything, never framed). Registered without fastify-plugin by
 * the services, so helmet's headers apply to these routes only and the JSON API and the
 * Swagger UI under /docs (which needs inline script) keep theirs.
 */
export const webAppPlugin: FastifyPluginAsync<WebAppOptions> = async (app, options) => {
  const root = resolve(options.root);
  const indexFile = join(root, 'index.html');
  const buildCommand = options.buildCommand ?? 'pnpm build';
  if (!existsSync(indexFile)) app.log.warn(`${options.description} not built (${indexFile} missing): its pages answer 503 until \`${buildCommand}\` runs`);

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", ...(options.imgSrc ?? [])],
        mediaSrc: ["'self'", ...(options.mediaSrc ?? [])],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // No upgrade-insecure-requests: a local http://localhost would have its assets rewritten to https.
      },
    },
    referrerPolicy: { policy: options.referrerPolicy ?? 'strict-origin-when-cross-origin' },
    // For browsers without frame-ancestors: same answer, never framed.
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });

  const notBuilt = () =>
    new ProblemError({
      status: 503,
      code: 'WEB_PAGE_NOT_BUILT',
      title: 'Service Unavailable',
      detail: `The ${options.description} is not built (no index.html in ${root}). Run \`${buildCommand}\`; the JSON API works without it.`,
    });

  for (const page of options.pages) {
    // Read per request (about 1 KB): a build while the service runs then serves the new asset names at once.
    app.get(page.url, { schema: { hide: true } }, async (request, reply) => {
      const html = await readFile(indexFile, 'utf8').catch(() => null);
      if (html === null) throw notBuilt();
      const framedBy = page.framedBy ? await page.framedBy(request) : [];
      if (framedBy.length > 0) {
        // helmet wrote these on the raw response when the request arrived; this page's answer widens them.
        const csp = String(reply.raw.getHeader('content-security-policy') ?? '');
        reply.raw.setHeader('content-security-policy', csp.replace("frame-ancestors 'none'", `frame-ancestors 'self' ${framedBy.join(' ')}`));
        reply.raw.removeHeader('x-frame-options');
      }
      const permissionsPolicy = typeof options.permissionsPolicy === 'function' ? options.permissionsPolicy(framedBy) : options.permissionsPolicy;
      if (permissionsPolicy) reply.header('Permissions-Policy', permissionsPolicy);
      // no-cache: the HTML names the hashed assets of the current build, so it is revalidated every time.
      return reply
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(page.html ? page.html(html, request) : html);
    });
  }

  await app.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: options.assetsPrefix,
    // Vite names every asset after its content hash, so a URL never changes meaning.
    immutable: true,
    maxAge: '365d',
    // The build writes .br and .gz beside each asset; served by Accept-Encoding without compressing per request.
    preCompressed: true,
    index: false,
    list: false,
  });
};

/**
 * A service's web app as a plugin of its own: built beside the compiled code at `builtAt` (a URL
 * relative to the caller's module, so the same from src/ under tsx and from dist/), unless
 * registered with another `root` (tests, or a deployment serving the build from elsewhere).
 */
export function builtWebAppPlugin(builtAt: URL, options: Omit<WebAppOptions, 'root'>): FastifyPluginAsync<{ root?: string | undefined }> {
  const defaultRoot = fileURLToPath(builtAt);
  return async (app, { root }) => {
    await app.register(webAppPlugin, { ...options, root: root ?? defaultRoot });
  };
}
