import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { ProblemError } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { RATE_LANGUAGES, type Language } from '../i18n/languages.js';

export interface WebPageOptions {
  /** Directory holding the Vite build (index.html + assets/); default dist/web beside the compiled code. */
  root?: string | undefined;
}

/** From src/plugins (tsx) and from dist/plugins (built) alike, this is services/fx/dist/web. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web/', import.meta.url));

const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar', 'ku']);

/**
 * The HTML with `lang` and `dir` already set, so the first paint is in the right direction
 * before any script runs (the page itself is rendered by the script).
 */
function localisedDocument(html: string, language: Language): string {
  return html.replace(/<html[^>]*>/, `<html lang="${language}" dir="${RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr'}">`);
}

const notBuilt = (root: string) =>
  new ProblemError({
    status: 503,
    code: 'WEB_PAGE_NOT_BUILT',
    title: 'Service Unavailable',
    detail: `The rates page is not built (no index.html in ${root}). Run \`pnpm build\` (or \`pnpm --filter @svc/fx build\`); the JSON API under /api/v1 works without it.`,
  });

/**
 * The public rates page at `/` (Arabic) and `/{lang}`, and its hashed assets under /assets/.
 * Registered without fastify-plugin on purpose: helmet's strict headers (CSP without inline
 * script, frame-ancestors 'none') then apply to these routes only, and the JSON API and the
 * Swagger UI under /docs (which needs inline script) keep the headers they have today.
 */
export const webPagePlugin: FastifyPluginAsync<WebPageOptions> = async (app, options) => {
  const root = resolve(options.root ?? DEFAULT_WEB_ROOT);
  const indexFile = join(root, 'index.html');
  if (!existsSync(indexFile)) app.log.warn(`fx rates page not built (${indexFile} missing): / answers 503 until \`pnpm build\` runs`);

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // No upgrade-insecure-requests: a local http://localhost:3002 would have its assets rewritten to https.
      },
    },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // For browsers without frame-ancestors: same answer, never framed.
    xFrameOptions: { action: 'deny' },
    // The page fetches only its own origin; nothing here is meant to be embedded elsewhere.
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });

  // Read per request (about 1 KB): a `pnpm build` while fx runs then serves the new asset names at once.
  const sendPage = async (reply: FastifyReply, language: Language) => {
    const html = await readFile(indexFile, 'utf8').then(
      (text) => localisedDocument(text, language),
      () => null,
    );
    if (html === null) throw notBuilt(root);
    // no-cache: the HTML names the hashed assets of the current build, so it is revalidated every time.
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendPage(reply, 'ar'));
  for (const language of RATE_LANGUAGES) {
    app.get(`/${language}`, { schema: { hide: true } }, async (_request, reply) => sendPage(reply, language));
  }

  await app.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: '/assets/',
    // Vite names every asset after its content hash, so a URL never changes meaning.
    immutable: true,
    maxAge: '365d',
    // The build writes .br and .gz beside each asset; served by Accept-Encoding without compressing per request.
    preCompressed: true,
    index: false,
    list: false,
  });
};
