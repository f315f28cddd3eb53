import { builtWebAppPlugin } from '@svc/service-kit';
import { RATE_LANGUAGES, RIGHT_TO_LEFT_LANGUAGES, type Language } from '../i18n/language-list.js';

/**
 * The HTML with `lang` and `dir` already set, so the first paint is in the right direction
 * before any script runs (the page itself is rendered by the script).
 */
export function localisedDocument(html: string, language: Language): string {
  return html.replace(/<html[^>]*>/, `<html lang="${language}" dir="${RIGHT_TO_LEFT_LANGUAGES.has(language) ? 'rtl' : 'ltr'}">`);
}

/** The public rates page at `/` (Arabic) and `/{lang}`, and its hashed assets under /assets/; built into services/fx/dist/web. */
export const webPagePlugin = builtWebAppPlugin(new URL('../../dist/web/', import.meta.url), {
  assetsPrefix: '/assets/',
  description: 'rates page',
  imgSrc: ['data:'],
  pages: [
    { url: '/', html: (html) => localisedDocument(html, 'ar') },
    ...RATE_LANGUAGES.map((language) => ({ url: `/${language}`, html: (html: string) => localisedDocument(html, language) })),
  ],
});
