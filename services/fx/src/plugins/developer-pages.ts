import { DEVELOPER_SCREENS } from '@svc/fx-client/types';
import { builtWebAppPlugin } from '@svc/service-kit';
import { RATE_LANGUAGES, type Language } from '../i18n/language-list.js';
import { localisedDocument } from './web-page.js';

/** `/developers…` is Arabic, fx's default; `/{lang}/developers…` any of the six, as the rates page does. */
const BASES: readonly (readonly [Language, string])[] = [['ar', '/developers'], ...RATE_LANGUAGES.map((language) => [language, `/${language}/developers`] as const)];

/**
 * The developer dashboard, a second Vite app beside the rates page (services/fx/developers, built
 * into dist/developers): every screen's path answers the same HTML, in its language and direction,
 * under the same strict CSP; the assets are under /developers/assets/.
 */
export const developerPagesPlugin = builtWebAppPlugin(new URL('../../dist/developers/', import.meta.url), {
  assetsPrefix: '/developers/assets/',
  description: 'developer dashboard',
  // The key pair is shown on these pages: never sent on as a referrer.
  referrerPolicy: 'no-referrer',
  pages: BASES.flatMap(([language, base]) =>
    [base, ...DEVELOPER_SCREENS.map((screen) => `${base}/${screen}`)].map((url) => ({ url, html: (html: string) => localisedDocument(html, language) })),
  ),
});
