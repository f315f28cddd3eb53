import type { Language } from '@svc/web-ui/i18n';

/** A waiting time in its largest two units ("2 hr, 5 min"), in the reader's language and digits. */
export function formatAge(seconds: number, language: Language): string {
  const locale = language === 'ar' ? 'ar' : 'en';
  const unit = (value: number, name: 'day' | 'hour' | 'minute' | 'second') => new Intl.NumberFormat(locale, { style: 'unit', unit: name, unitDisplay: 'short' }).format(value);
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const parts = days > 0 ? [unit(days, 'day'), hours > 0 ? unit(hours, 'hour') : ''] : hours > 0 ? [unit(hours, 'hour'), minutes > 0 ? unit(minutes, 'minute') : ''] : [minutes > 0 ? unit(minutes, 'minute') : unit(seconds, 'second')];
  return new Intl.ListFormat(locale, { style: 'narrow', type: 'unit' }).format(parts.filter(Boolean));
}
