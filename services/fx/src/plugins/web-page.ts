import { fileURLToPath } from 'node:url';
import { webAppPlugin } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';
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

/** The public rates page at `/` (Arabic) and `/{lang}`, and its hashed assets under /assets/. */
export const webPagePlugin: FastifyPluginAsync<WebPageOptions> = async (app, options) => {
  await app.register(webAppPlugin, {
    root: options.root ?? DEFAULT_WEB_ROOT,
    assetsPrefix: '/assets/',
    description: 'rates page',
    buildCommand: 'pnpm build',
    imgSrc: ['data:'],
    pages: [
      { url: '/', html: (html) => localisedDocument(html, 'ar') },
      ...RATE_LANGUAGES.map((language) => ({ url: `/${language}`, html: (html: string) => localisedDocument(html, language) })),
    ],
  });
};
