import type { Messages } from '../i18n.js';

type Key =
  | 'loading'
  | 'copy'
  | 'copied'
  | 'copyFailed'
  | 'cancel'
  | 'close'
  | 'previous'
  | 'next'
  | 'pageOf'
  | 'totalItems'
  | 'pagination'
  | 'errorTitle'
  | 'retry'
  | 'nothingHere';

export const componentMessages: Messages<Key> = {
  en: {
    loading: 'Loading…',
    copy: 'Copy',
    copied: 'Copied',
    copyFailed: 'Copy failed: select the text and copy it yourself',
    cancel: 'Cancel',
    close: 'Close',
    previous: 'Previous',
    next: 'Next',
    pageOf: 'Page {page} of {pages}',
    totalItems: '{count} in all',
    pagination: 'Pages',
    errorTitle: 'Something went wrong',
    retry: 'Try again',
    nothingHere: 'Nothing here yet.',
  },
  ar: {
    loading: 'جارٍ التحميل…',
    copy: 'نسخ',
    copied: 'تم النسخ',
    copyFailed: 'تعذّر النسخ: حدّد النص وانسخه بنفسك',
    cancel: 'إلغاء',
    close: 'إغلاق',
    previous: 'السابق',
    next: 'التالي',
    pageOf: 'الصفحة {page} من {pages}',
    totalItems: '{count} إجمالًا',
    pagination: 'الصفحات',
    errorTitle: 'حدث خطأ',
    retry: 'أعد المحاولة',
    nothingHere: 'لا شيء هنا بعد.',
  },
};
