import { useEffect, useState } from 'preact/hooks';

export interface LanguageStore<L extends string> {
  current(): L;
  set(language: L): void;
  /** The language now, re-rendering the component when it changes. */
  use(): L;
}

/**
 * The page's language: applied to <html lang dir> (the whole page mirrors for right-to-left
 * scripts, and screen readers pick the right voice), remembered in `storage` under `storageKey`,
 * announced to every component using it. Each app chooses its languages and its first one.
 */
export function createLanguageStore<L extends string>(options: { initial: L; rightToLeft: ReadonlySet<L>; storage: () => Storage; storageKey: string }): LanguageStore<L> {
  let current = options.initial;
  const listeners = new Set<(language: L) => void>();
  const apply = (language: L) => {
    document.documentElement.lang = language;
    document.documentElement.dir = options.rightToLeft.has(language) ? 'rtl' : 'ltr';
  };
  apply(current);
  return {
    current: () => current,
    set(language) {
      if (language === current) return;
      current = language;
      apply(language);
      try {
        options.storage().setItem(options.storageKey, language);
      } catch {
        // Not remembered, still applied.
      }
      listeners.forEach((listener) => listener(language));
    },
    use() {
      const [language, setState] = useState(current);
      useEffect(() => {
        listeners.add(setState);
        // The language may have changed between the first render and this effect.
        setState(current);
        return () => void listeners.delete(setState);
      }, []);
      return language;
    },
  };
}
