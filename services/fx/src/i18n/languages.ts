import { ValidationError } from '@svc/problem-json';
import * as ar from './ar.js';
import * as de from './de.js';
import * as en from './en.js';
import * as kmr from './kmr.js';
import * as ku from './ku.js';
import * as tr from './tr.js';

import { RATE_LANGUAGES, STANDARD_TAGS, type Language } from './language-list.js';

export { PRICE_LANGUAGES, RATE_LANGUAGES, type Language } from './language-list.js';

const disclaimers: Record<Language, string> = { ar: ar.disclaimer, en: en.disclaimer, de: de.disclaimer, tr: tr.disclaimer, ku: ku.disclaimer, kmr: kmr.disclaimer };

export function disclaimerFor(language: Language): string {
  return disclaimers[language];
}

interface WeightedTag {
  tag: string;
  quality: number;
  order: number;
}

function parseAcceptLanguage(header: string): WeightedTag[] {
  return header
    .split(',')
    .map((part, order) => {
      const [rawTag = '', ...parameters] = part.trim().split(';');
      const qualityParameter = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
      const quality = qualityParameter === undefined ? 1 : Number(qualityParameter.slice(2));
      return { tag: rawTag.trim().toLowerCase(), quality: Number.isFinite(quality) ? quality : 0, order };
    })
    .filter((entry) => entry.tag.length > 0 && entry.quality > 0)
    .sort((left, right) => right.quality - left.quality || left.order - right.order);
}

/** A language's standard tag where the API spells it otherwise (`ckb` for the spec's `ku`, Sorani) names it too. */
const TAG_ALIASES: Record<string, Language> = Object.fromEntries(RATE_LANGUAGES.filter((language) => STANDARD_TAGS[language] !== language).map((language) => [STANDARD_TAGS[language], language]));

/**
 * `lang` wins (400 when not offered); else the highest-q Accept-Language range we offer
 * (primary subtag match, `*` = default); else Arabic.
 */
export function negotiateLanguage(lang: string | undefined, acceptLanguage: string | undefined, offered: readonly Language[]): Language {
  if (lang !== undefined) {
    const wanted = lang.toLowerCase();
    const match = offered.find((language) => language === wanted);
    if (!match) throw new ValidationError(`Unsupported lang: ${lang}.`, [{ path: 'query.lang', message: `must be one of ${offered.join(', ')}` }]);
    return match;
  }
  if (!acceptLanguage) return 'ar';
  if (acceptLanguage.length > CACHED_HEADER_LENGTH) return fromAcceptLanguage(acceptLanguage, offered);
  // Browsers send a handful of distinct headers: each is parsed once per offered set, in bounded memory.
  let negotiated = negotiatedByOffer.get(offered);
  if (!negotiated) negotiatedByOffer.set(offered, (negotiated = new Map<string, Language>()));
  let chosen = negotiated.get(acceptLanguage);
  if (chosen === undefined) {
    if (negotiated.size >= CACHED_HEADERS) negotiated.clear();
    chosen = fromAcceptLanguage(acceptLanguage, offered);
    negotiated.set(acceptLanguage, chosen);
  }
  return chosen;
}

const CACHED_HEADERS = 1000;
const CACHED_HEADER_LENGTH = 200;
const negotiatedByOffer = new WeakMap<readonly Language[], Map<string, Language>>();

function fromAcceptLanguage(acceptLanguage: string, offered: readonly Language[]): Language {
  for (const { tag } of parseAcceptLanguage(acceptLanguage)) {
    if (tag === '*') return 'ar';
    const primary = tag.split('-')[0] ?? tag;
    const candidate = TAG_ALIASES[primary] ?? primary;
    const match = offered.find((language) => language === candidate);
    if (match) return match;
  }
  return 'ar';
}
