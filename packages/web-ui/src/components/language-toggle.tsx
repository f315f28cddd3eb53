import { useLanguage } from '../i18n.js';

/** The language switch names the other language in that language, so its reader finds it. */
export function LanguageToggle() {
  const { language, setLanguage } = useLanguage();
  const other = language === 'ar' ? 'en' : 'ar';
  return (
    <button type="button" class="button button-quiet language-toggle" lang={other} onClick={() => setLanguage(other)}>
      {other === 'ar' ? 'العربية' : 'English'}
    </button>
  );
}
