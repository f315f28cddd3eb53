import { createLanguageStore } from '@svc/web-ui/language-store';

/** Arabic (the default), English, Kurdish Sorani (Arabic script) and Kurmanji (Latin script). */
export const LANGUAGES = ['ar', 'en', 'ckb', 'kmr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_NAMES: Record<Language, string> = { ar: 'العربية', en: 'English', ckb: 'کوردی (سۆرانی)', kmr: 'Kurdî (Kurmancî)' };
const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar', 'ckb']);

const STORAGE_KEY = 'capture.language';

/** A browser tag to one of ours: ku-Arab and ckb are Sorani, other ku and kmr Kurmanji. */
function fromTag(tag: string): Language | null {
  const lower = tag.toLowerCase();
  if (lower.startsWith('ckb') || lower.startsWith('ku-arab') || lower === 'ku-iq') return 'ckb';
  if (lower.startsWith('kmr') || lower.startsWith('ku')) return 'kmr';
  if (lower.startsWith('ar')) return 'ar';
  if (lower.startsWith('en')) return 'en';
  return null;
}

function initialLanguage(): Language {
  try {
    const remembered = window.sessionStorage.getItem(STORAGE_KEY);
    if ((LANGUAGES as readonly string[]).includes(remembered ?? '')) return remembered as Language;
  } catch {
    // Storage can be refused; the browser's languages decide then.
  }
  // The primary language only: browsers append English to the list on their own, which would
  // outvote the Arabic default for everyone whose first language is one we do not speak.
  return fromTag(navigator.language) ?? 'ar';
}

const store = createLanguageStore<Language>({ initial: initialLanguage(), rightToLeft: RIGHT_TO_LEFT, storage: () => window.sessionStorage, storageKey: STORAGE_KEY });

export const currentLanguage = (): Language => store.current();
export const setLanguage = (language: Language): void => store.set(language);
export const useLanguage = (): Language => store.use();
