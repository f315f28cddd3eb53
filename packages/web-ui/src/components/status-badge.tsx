import { useLanguage } from '../i18n.js';

type Tone = 'neutral' | 'progress' | 'attention' | 'success' | 'danger' | 'muted';

/**
 * Every status the portal shows (case states, webhook deliveries, clients and endpoints), its
 * colour family and its words in both languages. An unknown status still shows, as the API spells it.
 */
const STATUSES: Record<string, { tone: Tone; en: string; ar: string }> = {
  Requested: { tone: 'neutral', en: 'Requested', ar: 'مطلوبة' },
  SessionIssued: { tone: 'neutral', en: 'Session issued', ar: 'أُصدرت الجلسة' },
  CaptureStarted: { tone: 'progress', en: 'Capture started', ar: 'بدأ الالتقاط' },
  EvidenceUploaded: { tone: 'progress', en: 'Evidence uploaded', ar: 'رُفعت الأدلة' },
  AutomatedChecksRunning: { tone: 'progress', en: 'Checks running', ar: 'الفحوص جارية' },
  PendingManualReview: { tone: 'attention', en: 'Pending review', ar: 'بانتظار المراجعة' },
  Approved: { tone: 'success', en: 'Approved', ar: 'مقبولة' },
  Rejected: { tone: 'danger', en: 'Rejected', ar: 'مرفوضة' },
  Expired: { tone: 'muted', en: 'Expired', ar: 'منتهية الصلاحية' },
  Cancelled: { tone: 'muted', en: 'Cancelled', ar: 'ملغاة' },
  Failed: { tone: 'danger', en: 'Failed', ar: 'فشلت' },
  pending: { tone: 'neutral', en: 'Pending', ar: 'قيد الانتظار' },
  in_flight: { tone: 'progress', en: 'Sending', ar: 'قيد الإرسال' },
  succeeded: { tone: 'success', en: 'Delivered', ar: 'سُلّمت' },
  failed: { tone: 'danger', en: 'Failed', ar: 'فشلت' },
  active: { tone: 'success', en: 'Active', ar: 'نشط' },
  inactive: { tone: 'muted', en: 'Inactive', ar: 'غير نشط' },
  revoked: { tone: 'danger', en: 'Revoked', ar: 'ملغى' },
  expired: { tone: 'danger', en: 'Expired', ar: 'منتهية الصلاحية' },
  expiresSoon: { tone: 'attention', en: 'Expires soon', ar: 'تنتهي قريبًا' },
};

/** The status in words, for filters and selects that list statuses. */
export function statusLabel(status: string, language: 'en' | 'ar'): string {
  return STATUSES[status]?.[language] ?? status;
}

export function StatusBadge(props: { status: string; label?: string }) {
  const { language } = useLanguage();
  const known = STATUSES[props.status];
  return (
    <span class={`badge badge-${known?.tone ?? 'neutral'}`} data-status={props.status}>
      {props.label ?? known?.[language] ?? props.status}
    </span>
  );
}
