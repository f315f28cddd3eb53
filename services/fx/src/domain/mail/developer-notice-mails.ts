import type { MailContent, TemplateContext } from '@svc/mailer';
import type { Language } from '../../i18n/language-list.js';

export interface DeveloperNoticeMails {
  /** A client's private key was replaced on the dashboard; `oldKeyValidUntil` (ISO 8601) is null when the old key stopped at once. */
  'key-rotated': { clientName: string; publicKey: string; oldKeyValidUntil: string | null };
  /** "Forgot password": the token is only in the link's fragment, which browsers never send to a server. */
  'password-reset': { token: string; validMinutes: number };
  /** Sent when a reset link set a new password, so a reset the owner did not ask for does not go unnoticed. */
  'password-changed': { email: string; changedAt: string };
}

type Write<Data> = (data: Data, context: TemplateContext) => MailContent;

/** A dashboard page in the mail's language (Arabic, fx's default, has no prefix). */
export const dashboardPage = (language: string, path: string) => (language === 'ar' ? `/developers${path}` : `/${language}/developers${path}`);

/** An instant as mails show it everywhere: ISO 8601 in UTC, to the minute, which reads the same in every language. */
const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

interface Words {
  hello: string;
  rotatedSubject: string;
  rotated: (client: string, publicKey: string) => string;
  oldKeyUntil: (until: string) => string;
  oldKeyEnded: string;
  rotatedFoot: string;
  keysAction: string;
  resetSubject: string;
  reset: (minutes: number) => string;
  resetAction: string;
  resetFoot: string;
  changedSubject: string;
  changed: (email: string, at: string) => string;
  changedFoot: string;
  signInAction: string;
}

const words: Record<Language, Words> = {
  en: {
    hello: 'Hello,',
    rotatedSubject: 'The private key of your API client was replaced',
    rotated: (client, publicKey) => `A new private key was issued for your API client ${client} (public key ${publicKey}).`,
    oldKeyUntil: (until) => `The old private key keeps working until ${until}; switch your deployments to the new one before then.`,
    oldKeyEnded: 'The old private key no longer works.',
    rotatedFoot: 'If you did not do this, sign in and rotate the key again, then change your password.',
    keysAction: 'Open my keys',
    resetSubject: 'Choose a new password for the exchange rate API',
    reset: (minutes) => `Someone asked to reset the password of the developer account of this address. The link works once, within ${minutes} minutes.`,
    resetAction: 'Choose a new password',
    resetFoot: 'If you did not ask for this, ignore this mail: your password stays as it is.',
    changedSubject: 'Your password was changed',
    changed: (email, at) => `The password of the developer account ${email} was changed at ${at} with a reset link. Every other session was signed out.`,
    changedFoot: 'If you did not do this, ask for a new reset link at once and contact the operator.',
    signInAction: 'Sign in',
  },
  ar: {
    hello: 'مرحباً،',
    rotatedSubject: 'تم استبدال المفتاح الخاص لعميل الواجهة البرمجية',
    rotated: (client, publicKey) => `صدر مفتاح خاص جديد لعميل الواجهة البرمجية ${client} (المفتاح العام ${publicKey}).`,
    oldKeyUntil: (until) => `يبقى المفتاح الخاص القديم صالحاً حتى ${until}؛ انقل أنظمتك إلى المفتاح الجديد قبل ذلك.`,
    oldKeyEnded: 'لم يعد المفتاح الخاص القديم يعمل.',
    rotatedFoot: 'إن لم تقم بذلك فسجّل الدخول واستبدل المفتاح مرة أخرى ثم غيّر كلمة المرور.',
    keysAction: 'فتح مفاتيحي',
    resetSubject: 'اختر كلمة مرور جديدة لواجهة أسعار الصرف البرمجية',
    reset: (minutes) => `طلب أحدٌ إعادة تعيين كلمة مرور حساب المطوّر لهذا العنوان. يصلح الرابط مرة واحدة خلال ${minutes} دقيقة.`,
    resetAction: 'اختيار كلمة مرور جديدة',
    resetFoot: 'إن لم تطلب ذلك فتجاهل هذه الرسالة: تبقى كلمة المرور كما هي.',
    changedSubject: 'تم تغيير كلمة المرور',
    changed: (email, at) => `تم تغيير كلمة مرور حساب المطوّر ${email} في ${at} برابط إعادة التعيين، وأُنهيت كل الجلسات الأخرى.`,
    changedFoot: 'إن لم تقم بذلك فاطلب رابط إعادة تعيين جديداً فوراً وتواصل مع المشغّل.',
    signInAction: 'تسجيل الدخول',
  },
  de: {
    hello: 'Hallo,',
    rotatedSubject: 'Der private Schlüssel Ihres API-Clients wurde ersetzt',
    rotated: (client, publicKey) => `Für Ihren API-Client ${client} (öffentlicher Schlüssel ${publicKey}) wurde ein neuer privater Schlüssel ausgegeben.`,
    oldKeyUntil: (until) => `Der alte private Schlüssel gilt noch bis ${until}; stellen Sie Ihre Systeme bis dahin um.`,
    oldKeyEnded: 'Der alte private Schlüssel gilt nicht mehr.',
    rotatedFoot: 'Wenn Sie das nicht waren, melden Sie sich an, ersetzen Sie den Schlüssel erneut und ändern Sie Ihr Passwort.',
    keysAction: 'Meine Schlüssel öffnen',
    resetSubject: 'Neues Passwort für die Wechselkurs-API wählen',
    reset: (minutes) => `Jemand möchte das Passwort des Entwicklerkontos dieser Adresse zurücksetzen. Der Link gilt einmal, ${minutes} Minuten lang.`,
    resetAction: 'Neues Passwort wählen',
    resetFoot: 'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.',
    changedSubject: 'Ihr Passwort wurde geändert',
    changed: (email, at) => `Das Passwort des Entwicklerkontos ${email} wurde am ${at} über einen Link zum Zurücksetzen geändert. Alle anderen Sitzungen wurden abgemeldet.`,
    changedFoot: 'Wenn Sie das nicht waren, fordern Sie sofort einen neuen Link an und wenden Sie sich an den Betreiber.',
    signInAction: 'Anmelden',
  },
  tr: {
    hello: 'Merhaba,',
    rotatedSubject: 'API istemcinizin özel anahtarı değiştirildi',
    rotated: (client, publicKey) => `${client} API istemciniz (açık anahtar ${publicKey}) için yeni bir özel anahtar oluşturuldu.`,
    oldKeyUntil: (until) => `Eski özel anahtar ${until} tarihine kadar çalışmaya devam eder; sistemlerinizi o zamana kadar yenisine geçirin.`,
    oldKeyEnded: 'Eski özel anahtar artık çalışmıyor.',
    rotatedFoot: 'Bunu siz yapmadıysanız oturum açıp anahtarı yeniden değiştirin ve parolanızı değiştirin.',
    keysAction: 'Anahtarlarımı aç',
    resetSubject: 'Döviz kuru API’si için yeni bir parola seçin',
    reset: (minutes) => `Biri bu adresin geliştirici hesabının parolasını sıfırlamak istedi. Bağlantı bir kez ve ${minutes} dakika içinde çalışır.`,
    resetAction: 'Yeni parola seç',
    resetFoot: 'Bunu siz istemediyseniz bu e-postayı yok sayın: parolanız değişmez.',
    changedSubject: 'Parolanız değiştirildi',
    changed: (email, at) => `${email} geliştirici hesabının parolası ${at} tarihinde bir sıfırlama bağlantısıyla değiştirildi. Diğer tüm oturumlar kapatıldı.`,
    changedFoot: 'Bunu siz yapmadıysanız hemen yeni bir sıfırlama bağlantısı isteyin ve işletmeciyle iletişime geçin.',
    signInAction: 'Oturum aç',
  },
  ku: {
    hello: 'سڵاو،',
    rotatedSubject: 'کلیلی تایبەتی کڕیاری API ـەکەت گۆڕدرا',
    rotated: (client, publicKey) => `کلیلێکی تایبەتی نوێ بۆ کڕیاری API ـی ${client} دەرچوو (کلیلی گشتی ${publicKey}).`,
    oldKeyUntil: (until) => `کلیلی تایبەتی کۆن تا ${until} کار دەکات؛ پێش ئەو کاتە سیستەمەکانت بگوازەرەوە بۆ کلیلە نوێیەکە.`,
    oldKeyEnded: 'کلیلی تایبەتی کۆن ئیتر کار ناکات.',
    rotatedFoot: 'ئەگەر تۆ ئەمەت نەکردووە، بچۆ ژوورەوە و کلیلەکە دووبارە بگۆڕە، پاشان وشەی نهێنی بگۆڕە.',
    keysAction: 'کردنەوەی کلیلەکانم',
    resetSubject: 'وشەی نهێنیی نوێ بۆ API ـی نرخی دراو هەڵبژێرە',
    reset: (minutes) => `کەسێک داوای ڕێکخستنەوەی وشەی نهێنیی هەژماری گەشەپێدەری ئەم ناونیشانەی کرد. بەستەرەکە یەک جار و لە ماوەی ${minutes} خولەکدا کار دەکات.`,
    resetAction: 'هەڵبژاردنی وشەی نهێنیی نوێ',
    resetFoot: 'ئەگەر داوات نەکردووە، ئەم نامەیە پشتگوێ بخە: وشەی نهێنییەکەت وەک خۆی دەمێنێتەوە.',
    changedSubject: 'وشەی نهێنییەکەت گۆڕدرا',
    changed: (email, at) => `وشەی نهێنیی هەژماری گەشەپێدەری ${email} لە ${at} بە بەستەری ڕێکخستنەوە گۆڕدرا. هەموو دانیشتنەکانی تر کۆتاییان پێهات.`,
    changedFoot: 'ئەگەر تۆ ئەمەت نەکردووە، دەستبەجێ داوای بەستەرێکی نوێ بکە و پەیوەندی بە بەڕێوەبەرەوە بکە.',
    signInAction: 'چوونەژوورەوە',
  },
  kmr: {
    hello: 'Silav,',
    rotatedSubject: 'Mifteya taybet a muşteriyê te yê API hat guhertin',
    rotated: (client, publicKey) => `Ji bo muşteriyê te yê API ${client} (mifteya giştî ${publicKey}) mifteyeke taybet a nû hat dayîn.`,
    oldKeyUntil: (until) => `Mifteya taybet a kevn heta ${until} dixebite; berî wê demê pergalên xwe derbasî ya nû bike.`,
    oldKeyEnded: 'Mifteya taybet a kevn êdî naxebite.',
    rotatedFoot: 'Heke te ev nekiribe, têkeve û mifteyê dîsa biguherîne, paşê şîfreya xwe biguherîne.',
    keysAction: 'Mifteyên min veke',
    resetSubject: 'Ji bo API ya rêjeya diravan şîfreyeke nû hilbijêre',
    reset: (minutes) => `Kesekî xwest şîfreya hesabê pêşdebir ê vê navnîşanê ji nû ve saz bike. Girêdan tenê carekê û di nav ${minutes} deqeyan de dixebite.`,
    resetAction: 'Şîfreyeke nû hilbijêre',
    resetFoot: 'Heke te ev nexwestibe, vê peyamê paşguh bike: şîfreya te wekî xwe dimîne.',
    changedSubject: 'Şîfreya te hat guhertin',
    changed: (email, at) => `Şîfreya hesabê pêşdebir ${email} di ${at} de bi girêdaneke sazkirinê hat guhertin. Hemû danişînên din hatin girtin.`,
    changedFoot: 'Heke te ev nekiribe, yekser girêdaneke nû bixwaze û bi operatorê re têkilî dayne.',
    signInAction: 'Têkeve',
  },
};

/** One template in every language of a table of words: the table holds the translations, the template the layout. */
export const templatesOver =
  <Text>(table: Record<Language, Text>) =>
  <Data>(write: (data: Data, context: TemplateContext, text: Text) => MailContent) =>
    Object.fromEntries(Object.entries(table).map(([language, text]) => [language, (data: Data, context: TemplateContext) => write(data, context, text)])) as Record<Language, Write<Data>>;
const perLanguage = templatesOver(words);

export const developerNoticeMailTemplates = {
  'key-rotated': perLanguage<DeveloperNoticeMails['key-rotated']>(({ clientName, publicKey, oldKeyValidUntil }, { link, language }, text) => ({
    subject: text.rotatedSubject,
    greeting: text.hello,
    paragraphs: [text.rotated(clientName, publicKey), oldKeyValidUntil ? text.oldKeyUntil(minute(oldKeyValidUntil)) : text.oldKeyEnded],
    action: { label: text.keysAction, url: link(dashboardPage(language, '')) },
    footnote: text.rotatedFoot,
  })),
  'password-reset': perLanguage<DeveloperNoticeMails['password-reset']>(({ token, validMinutes }, { link, language }, text) => ({
    subject: text.resetSubject,
    greeting: text.hello,
    paragraphs: [text.reset(validMinutes)],
    action: { label: text.resetAction, url: link(dashboardPage(language, `/reset#${token}`)) },
    footnote: text.resetFoot,
  })),
  'password-changed': perLanguage<DeveloperNoticeMails['password-changed']>(({ email, changedAt }, { link, language }, text) => ({
    subject: text.changedSubject,
    greeting: text.hello,
    paragraphs: [text.changed(email, minute(changedAt))],
    action: { label: text.signInAction, url: link(dashboardPage(language, '')) },
    footnote: text.changedFoot,
  })),
};
