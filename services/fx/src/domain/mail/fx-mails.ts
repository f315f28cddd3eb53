import type { MailCatalog, MailContent, TemplateContext } from '@svc/mailer';
import { RATE_LANGUAGES, type Language } from '../../i18n/language-list.js';
import { developerMailTemplates, type DeveloperMails } from './developer-mails.js';
import { developerNoticeMailTemplates, type DeveloperNoticeMails } from './developer-notice-mails.js';

export interface FxMails extends DeveloperMails, DeveloperNoticeMails {
  /** A rate-alert webhook turned off by its tenth consecutive failed firing; the link is the API reference's re-enabling call. */
  'alert-disabled': { clientName: string; webhookUrl: string; label: string | null; lastStatus: number | null; failures: number };
}

type Write<Data> = (data: Data, context: TemplateContext) => MailContent;

/**
 * Where the re-enabling call is documented: the API reference's PUT of a client webhook. The
 * developer dashboard's rate-alerts screen is not built yet, and a mail must not link to a page
 * that answers 404.
 */
const reEnableReference = '/docs#/client/updateClientWebhook';
const named = (url: string, label: string | null) => (label ? `"${label}" (${url})` : url);
const status = (value: number | null, none: string) => (value === null ? none : String(value));

const alertDisabled: Record<Language, Write<FxMails['alert-disabled']>> = {
  en: ({ clientName, webhookUrl, label, lastStatus, failures }, { link }) => ({
    subject: 'Your rate alert webhook was disabled',
    greeting: 'Hello,',
    paragraphs: [
      `The rate alert ${named(webhookUrl, label)} of your API client ${clientName} failed ${failures} times in a row and was disabled: it is no longer evaluated.`,
      `Last status: ${status(lastStatus, 'no answer (connection failed or timed out)')}.`,
      'Fix the endpoint, then re-enable the alert on the rate alerts screen (or with PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'Open the API reference', url: link(reEnableReference) },
    footnote: 'You get this mail because this address is the contact of the API client.',
  }),
  ar: ({ clientName, webhookUrl, label, lastStatus, failures }, { link }) => ({
    subject: 'تم تعطيل webhook تنبيه السعر',
    greeting: 'مرحباً،',
    paragraphs: [
      `فشل تنبيه السعر ${named(webhookUrl, label)} التابع لعميل الواجهة البرمجية ${clientName} ${failures} مرات متتالية فتم تعطيله: لم يعد يُقيَّم.`,
      `آخر حالة: ${status(lastStatus, 'لا إجابة (فشل الاتصال أو انتهت المهلة)')}.`,
      'أصلح نقطة الاستقبال ثم أعد تفعيل التنبيه من شاشة تنبيهات الأسعار (أو عبر PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'فتح مرجع الواجهة البرمجية', url: link(reEnableReference) },
    footnote: 'تصلك هذه الرسالة لأن هذا العنوان هو عنوان التواصل لعميل الواجهة البرمجية.',
  }),
  de: ({ clientName, webhookUrl, label, lastStatus, failures }, { link }) => ({
    subject: 'Ihr Kursalarm-Webhook wurde deaktiviert',
    greeting: 'Hallo,',
    paragraphs: [
      `Der Kursalarm ${named(webhookUrl, label)} Ihres API-Clients ${clientName} ist ${failures}-mal in Folge fehlgeschlagen und wurde deaktiviert: er wird nicht mehr ausgewertet.`,
      `Letzter Status: ${status(lastStatus, 'keine Antwort (Verbindung fehlgeschlagen oder Zeitüberschreitung)')}.`,
      'Beheben Sie den Endpunkt und aktivieren Sie den Alarm auf der Seite „Kursalarme“ wieder (oder mit PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'API-Referenz öffnen', url: link(reEnableReference) },
    footnote: 'Sie erhalten diese E-Mail, weil diese Adresse als Kontakt des API-Clients hinterlegt ist.',
  }),
  tr: ({ clientName, webhookUrl, label, lastStatus, failures }, { link }) => ({
    subject: 'Kur alarmı webhook’unuz devre dışı bırakıldı',
    greeting: 'Merhaba,',
    paragraphs: [
      `${clientName} API istemcinizin ${named(webhookUrl, label)} kur alarmı art arda ${failures} kez başarısız oldu ve devre dışı bırakıldı: artık değerlendirilmiyor.`,
      `Son durum: ${status(lastStatus, 'yanıt yok (bağlantı kurulamadı veya zaman aşımı)')}.`,
      'Uç noktayı düzeltin, ardından alarmı kur alarmları ekranından yeniden etkinleştirin (veya PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'API başvurusunu aç', url: link(reEnableReference) },
    footnote: 'Bu e-postayı, bu adres API istemcisinin iletişim adresi olduğu için alıyorsunuz.',
  }),
  ku: ({ clientName, webhookUrl, label, lastStatus, failures }, { link }) => ({
    subject: 'webhookی ئاگادارکردنەوەی نرخ ناچالاک کرا',
    greeting: 'سڵاو،',
    paragraphs: [
      `ئاگادارکردنەوەی نرخی ${named(webhookUrl, label)} ی کڕیاری API ـی ${clientName} ${failures} جار لە دوای یەک سەرکەوتوو نەبوو و ناچالاک کرا: ئیتر هەڵناسەنگێنرێت.`,
      `دوایین دۆخ: ${status(lastStatus, 'وەڵام نییە (پەیوەندی سەرکەوتوو نەبوو یان کات تەواو بوو)')}.`,
      'خاڵی وەرگرتن چاک بکە، پاشان لە شاشەی ئاگادارکردنەوەکانی نرخ دووبارە چالاکی بکەرەوە (یان بە PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'کردنەوەی ڕێبەری API', url: link(reEnableReference) },
    footnote: 'ئەم نامەیەت پێگەیشتووە چونکە ئەم ناونیشانە ناونیشانی پەیوەندیی کڕیاری API ـیەکەیە.',
  }),
  kmr: ({ clientName, webhookUrl, label, lastStatus, failures }, { link }) => ({
    subject: 'Webhooka hişyariya rêjeyê hat neçalakkirin',
    greeting: 'Silav,',
    paragraphs: [
      `Hişyariya rêjeyê ${named(webhookUrl, label)} ya muşteriyê API ${clientName} ${failures} caran li pey hev têk çû û hat neçalakkirin: êdî nayê nirxandin.`,
      `Rewşa dawî: ${status(lastStatus, 'bersiv tune (girêdan têk çû an dem qediya)')}.`,
      'Xala wergirtinê sererast bike, paşê hişyariyê di ekrana hişyariyên rêjeyê de dîsa çalak bike (an bi PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'Referansa API veke', url: link(reEnableReference) },
    footnote: 'Ev peyam ji te re hat ji ber ku ev navnîşan navnîşana têkiliyê ya muşteriyê API ye.',
  }),
};

/** fx's mails in its six languages; Arabic, fx's default language, is the fallback. */
export const fxMailCatalog: MailCatalog<FxMails, Language> = {
  languages: RATE_LANGUAGES,
  templates: { 'alert-disabled': alertDisabled, ...developerMailTemplates, ...developerNoticeMailTemplates },
};
