import { interpolate } from './interpolate.js';
import { createLanguageStore } from './language-store.js';

export { interpolate };

/**
 * Two languages, each screen holding its own messages beside itself (screens/<area>/messages.ts),
 * so no central message file is shared between the people writing screens.
 */
export type Language = 'en' | 'ar';
export type Messages<K extends string> = { en: Record<K, string>; ar: Record<K, string> };
export type Translate<K extends string> = (key: K, vars?: Record<string, string | number>) => string;

const STORAGE_KEY = 'portal.language';

function initialLanguage(): Language {
  try {
    const remembered = window.localStorage.getItem(STORAGE_KEY);
    if (remembered === 'en' || remembered === 'ar') return remembered;
  } catch {
    // Storage can be refused (privacy settings); the browser's language decides then.
  }
  return navigator.language.toLowerCase().startsWith('ar') ? 'ar' : 'en';
}

const store = createLanguageStore<Language>({ initial: initialLanguage(), rightToLeft: new Set(['ar']), storage: () => window.localStorage, storageKey: STORAGE_KEY });

export function currentLanguage(): Language {
  return store.current();
}

export function setLanguage(language: Language): void {
  store.set(language);
}

export function useLanguage(): { language: Language; setLanguage: (language: Language) => void } {
  return { language: store.use(), setLanguage };
}

export function translate<K extends string>(messages: Messages<K>, language: Language): Translate<K> {
  return (key, vars) => interpolate(messages[language][key] ?? messages.en[key] ?? key, vars);
}

export function useMessages<K extends string>(messages: Messages<K>): Translate<K> {
  const { language } = useLanguage();
  return translate(messages, language);
}
