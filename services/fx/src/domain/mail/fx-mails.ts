import type { MailCatalog, MailContent, TemplateContext } from '@svc/mailer';
import { RATE_LANGUAGES, type Language } from '../../i18n/language-list.js';
import { developerMailTemplates, type DeveloperMails } from './developer-mails.js';

export interface FxMails extends DeveloperMails {
  /** A rate-alert webhook turned off by its tenth consecutive failed firing; the link is the dashboard's rate-alerts screen. */
  'alert-disabled': { clientName: string; webhookUrl: string; label: string | null; lastStatus: number | null; failures: number };
}

type Write<Data> = (data: Data, context: TemplateContext) => MailContent;

/** The dashboard's rate-alerts screen in the mail's language (Arabic, fx's default, has no prefix). */
const alertsScreen = (language: string) => (language === 'ar' ? '/developers#alerts' : `/${language}/developers#alerts`);
const named = (url: string, label: string | null) => (label ? `"${label}" (${url})` : url);
const status = (value: number | null, none: string) => (value === null ? none : String(value));

const alertDisabled: Record<Language, Write<FxMails['alert-disabled']>> = {
  en: ({ clientName, webhookUrl, label, lastStatus, failures }, { link, language }) => ({
    subject: 'Your rate alert webhook was disabled',
    greeting: 'Hello,',
    paragraphs: [
      `The rate alert ${named(webhookUrl, label)} of your API client ${clientName} failed ${failures} times in a row and was disabled: it is no longer evaluated.`,
      `Last status: ${status(lastStatus, 'no answer (connection failed or timed out)')}.`,
      'Fix the endpoint, then re-enable the alert on the rate alerts screen (or with PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'Open rate alerts', url: link(alertsScreen(language)) },
    footnote: 'You get this mail because this address is the contact of the API client.',
  }),
  ar: ({ clientName, webhookUrl, label, lastStatus, failures }, { link, language }) => ({
    subject: 'تم تعطيل webhook تنبيه السعر',
    greeting: 'مرحباً،',
    paragraphs: [
      `فشل تنبيه السعر ${named(webhookUrl, label)} التابع لعميل الواجهة البرمجية ${clientName} ${failures} مرات متتالية فتم تعطيله: لم يعد يُقيَّم.`,
      `آخر حالة: ${status(lastStatus, 'لا إجابة (فشل الاتصال أو انتهت المهلة)')}.`,
      'أصلح نقطة الاستقبال ثم أعد تفعيل التنبيه من شاشة تنبيهات الأسعار (أو عبر PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'فتح تنبيهات الأسعار', url: link(alertsScreen(language)) },
    footnote: 'تصلك هذه الرسالة لأن هذا العنوان هو عنوان التواصل لعميل الواجهة البرمجية.',
  }),
  de: ({ clientName, webhookUrl, label, lastStatus, failures }, { link, language }) => ({
    subject: 'Ihr Kursalarm-Webhook wurde deaktiviert',
    greeting: 'Hallo,',
    paragraphs: [
      `Der Kursalarm ${named(webhookUrl, label)} Ihres API-Clients ${clientName} ist ${failures}-mal in Folge fehlgeschlagen und wurde deaktiviert: er wird nicht mehr ausgewertet.`,
      `Letzter Status: ${status(lastStatus, 'keine Antwort (Verbindung fehlgeschlagen oder Zeitüberschreitung)')}.`,
      'Beheben Sie den Endpunkt und aktivieren Sie den Alarm auf der Seite „Kursalarme“ wieder (oder mit PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'Kursalarme öffnen', url: link(alertsScreen(language)) },
    footnote: 'Sie erhalten diese E-Mail, weil diese Adresse als Kontakt des API-Clients hinterlegt ist.',
  }),
  tr: ({ clientName, webhookUrl, label, lastStatus, failures }, { link, language }) => ({
    subject: 'Kur alarmı webhook’unuz devre dışı bırakıldı',
    greeting: 'Merhaba,',
    paragraphs: [
      `${clientName} API istemcinizin ${named(webhookUrl, label)} kur alarmı art arda ${failures} kez başarısız oldu ve devre dışı bırakıldı: artık değerlendirilmiyor.`,
      `Son durum: ${status(lastStatus, 'yanıt yok (bağlantı kurulamadı veya zaman aşımı)')}.`,
      'Uç noktayı düzeltin, ardından alarmı kur alarmları ekranından yeniden etkinleştirin (veya PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'Kur alarmlarını aç', url: link(alertsScreen(language)) },
    footnote: 'Bu e-postayı, bu adres API istemcisinin iletişim adresi olduğu için alıyorsunuz.',
  }),
  ku: ({ clientName, webhookUrl, label, lastStatus, failures }, { link, language }) => ({
    subject: 'webhookی ئاگادارکردنەوەی نرخ ناچالاک کرا',
    greeting: 'سڵاو،',
    paragraphs: [
      `ئاگادارکردنەوەی نرخی ${named(webhookUrl, label)} ی کڕیاری API ـی ${clientName} ${failures} جار لە دوای یەک سەرکەوتوو نەبوو و ناچالاک کرا: ئیتر هەڵناسەنگێنرێت.`,
      `دوایین دۆخ: ${status(lastStatus, 'وەڵام نییە (پەیوەندی سەرکەوتوو نەبوو یان کات تەواو بوو)')}.`,
      'خاڵی وەرگرتن چاک بکە، پاشان لە شاشەی ئاگادارکردنەوەکانی نرخ دووبارە چالاکی بکەرەوە (یان بە PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'کردنەوەی ئاگادارکردنەوەکانی نرخ', url: link(alertsScreen(language)) },
    footnote: 'ئەم نامەیەت پێگەیشتووە چونکە ئەم ناونیشانە ناونیشانی پەیوەندیی کڕیاری API ـیەکەیە.',
  }),
  kmr: ({ clientName, webhookUrl, label, lastStatus, failures }, { link, language }) => ({
    subject: 'Webhooka hişyariya rêjeyê hat neçalakkirin',
    greeting: 'Silav,',
    paragraphs: [
      `Hişyariya rêjeyê ${named(webhookUrl, label)} ya muşteriyê API ${clientName} ${failures} caran li pey hev têk çû û hat neçalakkirin: êdî nayê nirxandin.`,
      `Rewşa dawî: ${status(lastStatus, 'bersiv tune (girêdan têk çû an dem qediya)')}.`,
      'Xala wergirtinê sererast bike, paşê hişyariyê di ekrana hişyariyên rêjeyê de dîsa çalak bike (an bi PUT /api/v1/client/webhooks/{id} {"isActive": true}).',
    ],
    action: { label: 'Hişyariyên rêjeyê veke', url: link(alertsScreen(language)) },
    footnote: 'Ev peyam ji te re hat ji ber ku ev navnîşan navnîşana têkiliyê ya muşteriyê API ye.',
  }),
};

/** fx's mails in its six languages; Arabic, fx's default language, is the fallback. */
export const fxMailCatalog: MailCatalog<FxMails, Language> = {
  languages: RATE_LANGUAGES,
  templates: { 'alert-disabled': alertDisabled, ...developerMailTemplates },
};
