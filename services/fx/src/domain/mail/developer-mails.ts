import type { MailContent, TemplateContext } from '@svc/mailer';
import type { Language } from '../../i18n/language-list.js';

export interface DeveloperMails {
  /** The single link this mail exists to deliver; the token is only in the fragment, which browsers never send to a server. */
  'verify-email': { token: string; validHours: number };
  /** Sent instead of a verification link when the address already has an account, so sign-up reveals nothing. */
  'account-exists': { email: string };
}

type Write<Data> = (data: Data, context: TemplateContext) => MailContent;

/** A dashboard page in the mail's language (Arabic, fx's default, has no prefix). */
const page = (language: string, path: string) => (language === 'ar' ? `/developers${path}` : `/${language}/developers${path}`);

const words: Record<Language, { verifySubject: string; verify: (hours: number) => string; verifyAction: string; verifyFoot: string; existsSubject: string; exists: (email: string) => string; existsAction: string; hello: string }> = {
  en: {
    hello: 'Hello,',
    verifySubject: 'Confirm your address for the exchange rate API',
    verify: (hours) => `Confirm this address to finish signing up and get your API keys. The link works once, within ${hours} hours.`,
    verifyAction: 'Confirm my address',
    verifyFoot: 'If you did not sign up, ignore this mail: no account is used without this link.',
    existsSubject: 'You already have an account',
    exists: (email) => `Someone tried to sign up with ${email}, which already has an account. Sign in instead; if you forgot the password, ask the operator to reset it.`,
    existsAction: 'Sign in',
  },
  ar: {
    hello: 'مرحباً،',
    verifySubject: 'أكّد عنوانك لواجهة أسعار الصرف البرمجية',
    verify: (hours) => `أكّد هذا العنوان لإكمال التسجيل والحصول على مفاتيح الواجهة البرمجية. يصلح الرابط مرة واحدة خلال ${hours} ساعة.`,
    verifyAction: 'تأكيد العنوان',
    verifyFoot: 'إن لم تسجّل فتجاهل هذه الرسالة: لا يُستخدم أي حساب من دون هذا الرابط.',
    existsSubject: 'لديك حساب بالفعل',
    exists: (email) => `حاول أحدٌ التسجيل بالعنوان ${email} وله حساب بالفعل. سجّل الدخول بدلاً من ذلك.`,
    existsAction: 'تسجيل الدخول',
  },
  de: {
    hello: 'Hallo,',
    verifySubject: 'Bestätigen Sie Ihre Adresse für die Wechselkurs-API',
    verify: (hours) => `Bestätigen Sie diese Adresse, um die Registrierung abzuschließen und Ihre API-Schlüssel zu erhalten. Der Link gilt einmal, ${hours} Stunden lang.`,
    verifyAction: 'Adresse bestätigen',
    verifyFoot: 'Wenn Sie sich nicht registriert haben, ignorieren Sie diese E-Mail.',
    existsSubject: 'Sie haben bereits ein Konto',
    exists: (email) => `Jemand wollte sich mit ${email} registrieren, für die es bereits ein Konto gibt. Melden Sie sich stattdessen an.`,
    existsAction: 'Anmelden',
  },
  tr: {
    hello: 'Merhaba,',
    verifySubject: 'Döviz kuru API’si için adresinizi doğrulayın',
    verify: (hours) => `Kaydı tamamlamak ve API anahtarlarınızı almak için bu adresi doğrulayın. Bağlantı bir kez ve ${hours} saat içinde çalışır.`,
    verifyAction: 'Adresimi doğrula',
    verifyFoot: 'Kaydolmadıysanız bu e-postayı yok sayın.',
    existsSubject: 'Zaten bir hesabınız var',
    exists: (email) => `Biri zaten hesabı olan ${email} adresiyle kaydolmaya çalıştı. Bunun yerine oturum açın.`,
    existsAction: 'Oturum aç',
  },
  ku: {
    hello: 'سڵاو،',
    verifySubject: 'ناونیشانەکەت بۆ API ـی نرخی دراو پشتڕاست بکەرەوە',
    verify: (hours) => `ئەم ناونیشانە پشتڕاست بکەرەوە بۆ تەواوکردنی تۆمارکردن و وەرگرتنی کلیلەکانی API. بەستەرەکە یەک جار و لە ماوەی ${hours} کاتژمێردا کار دەکات.`,
    verifyAction: 'پشتڕاستکردنەوەی ناونیشان',
    verifyFoot: 'ئەگەر تۆمارت نەکردووە، ئەم نامەیە پشتگوێ بخە.',
    existsSubject: 'پێشتر هەژمارت هەیە',
    exists: (email) => `کەسێک هەوڵی دا بە ${email} تۆمار بکات کە پێشتر هەژماری هەیە. لەجیاتی ئەوە بچۆ ژوورەوە.`,
    existsAction: 'چوونەژوورەوە',
  },
  kmr: {
    hello: 'Silav,',
    verifySubject: 'Navnîşana xwe ji bo API ya rêjeya diravan piştrast bike',
    verify: (hours) => `Vê navnîşanê piştrast bike da ku qeydkirinê biqedînî û mifteyên API bistînî. Girêdan tenê carekê û di nav ${hours} saetan de dixebite.`,
    verifyAction: 'Navnîşana min piştrast bike',
    verifyFoot: 'Heke te qeyd nekiribe, vê peyamê paşguh bike.',
    existsSubject: 'Hesabê te jixwe heye',
    exists: (email) => `Kesekî xwest bi ${email} qeyd bibe, ku hesabê wê jixwe heye. Li şûna wê têkeve.`,
    existsAction: 'Têkeve',
  },
};

const perLanguage = <Data>(write: (data: Data, context: TemplateContext, text: (typeof words)[Language]) => MailContent) =>
  Object.fromEntries(Object.entries(words).map(([language, text]) => [language, (data: Data, context: TemplateContext) => write(data, context, text)])) as Record<Language, Write<Data>>;

export const developerMailTemplates = {
  'verify-email': perLanguage<DeveloperMails['verify-email']>(({ token, validHours }, { link, language }, text) => ({
    subject: text.verifySubject,
    greeting: text.hello,
    paragraphs: [text.verify(validHours)],
    action: { label: text.verifyAction, url: link(page(language, `/verify#${token}`)) },
    footnote: text.verifyFoot,
  })),
  'account-exists': perLanguage<DeveloperMails['account-exists']>(({ email }, { link, language }, text) => ({
    subject: text.existsSubject,
    greeting: text.hello,
    paragraphs: [text.exists(email)],
    action: { label: text.existsAction, url: link(page(language, '')) },
  })),
};
