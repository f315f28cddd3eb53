import type { MailCatalog, MailContent, TemplateContext } from '@svc/mailer';

/** The languages of identity's pages, so of its mails; English is the fallback. */
export const MAIL_LANGUAGES = ['en', 'ar', 'ckb', 'kmr'] as const;
type MailLanguage = (typeof MAIL_LANGUAGES)[number];

/** Where a password is reset: the portal (partners' users) or the console (staff). */
export type ResetRealm = 'portal' | 'console';

export interface IdentityMails {
  /** The single link this mail exists to deliver; the token is only in the fragment, which browsers never send to a server. */
  'password-reset': { realm: ResetRealm; token: string; validMinutes: number };
  'password-changed': { realm: ResetRealm; email: string; changedAt: string };
  invitation: { tenantName: string; role: string; token: string; validHours: number };
}

type Write<Data> = (data: Data, context: TemplateContext) => MailContent;

const resetPath = (realm: ResetRealm, token: string) => `/${realm}/password-reset#${token}`;
const signInPath = (realm: ResetRealm) => `/${realm}/`;
const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const passwordReset: Record<MailLanguage, Write<IdentityMails['password-reset']>> = {
  en: ({ realm, token, validMinutes }, { link }) => ({
    subject: 'Reset your password',
    greeting: 'Hello,',
    paragraphs: [`Someone asked to reset the password of your account. The link below works once, within ${validMinutes} minutes.`],
    action: { label: 'Choose a new password', url: link(resetPath(realm, token)) },
    footnote: 'If you did not ask for this, ignore this mail: your password has not changed.',
  }),
  ar: ({ realm, token, validMinutes }, { link }) => ({
    subject: 'إعادة تعيين كلمة المرور',
    greeting: 'مرحباً،',
    paragraphs: [`طلب أحدٌ إعادة تعيين كلمة المرور لحسابك. يصلح الرابط أدناه مرة واحدة خلال ${validMinutes} دقيقة.`],
    action: { label: 'اختيار كلمة مرور جديدة', url: link(resetPath(realm, token)) },
    footnote: 'إن لم تطلب ذلك فتجاهل هذه الرسالة: كلمة مرورك لم تتغير.',
  }),
  ckb: ({ realm, token, validMinutes }, { link }) => ({
    subject: 'ڕێکخستنەوەی وشەی نهێنی',
    greeting: 'سڵاو،',
    paragraphs: [`داوا کرا وشەی نهێنیی هەژمارەکەت ڕێکبخرێتەوە. ئەم بەستەرە تەنها یەک جار و بۆ ماوەی ${validMinutes} خولەک کار دەکات.`],
    action: { label: 'وشەی نهێنیی نوێ دابنێ', url: link(resetPath(realm, token)) },
    footnote: 'ئەگەر تۆ داوات نەکردووە، ئەم نامەیە پشتگوێ بخە: وشەی نهێنییەکەت نەگۆڕاوە.',
  }),
  kmr: ({ realm, token, validMinutes }, { link }) => ({
    subject: 'Nûkirina şîfreyê',
    greeting: 'Silav,',
    paragraphs: [`Ji bo hesabê te daxwaza nûkirina şîfreyê hat kirin. Girêdana jêrîn tenê carekê û di nav ${validMinutes} deqeyan de derbasdar e.`],
    action: { label: 'Şîfreyeke nû hilbijêre', url: link(resetPath(realm, token)) },
    footnote: 'Heke te ev daxwaz nekiribe, vê peyamê paşguh bike: şîfreya te nehatiye guhertin.',
  }),
};

const passwordChanged: Record<MailLanguage, Write<IdentityMails['password-changed']>> = {
  en: ({ realm, email, changedAt }, { link }) => ({
    subject: 'Your password was changed',
    greeting: 'Hello,',
    paragraphs: [`The password of ${email} was changed at ${minute(changedAt)}. Every other session of the account was ended.`],
    action: { label: 'Sign in', url: link(signInPath(realm)) },
    footnote: 'If this was not you, reset the password at once and tell your administrator.',
  }),
  ar: ({ realm, email, changedAt }, { link }) => ({
    subject: 'تم تغيير كلمة المرور',
    greeting: 'مرحباً،',
    paragraphs: [`تم تغيير كلمة المرور للحساب ${email} في ${minute(changedAt)}. أُنهيت جميع الجلسات الأخرى للحساب.`],
    action: { label: 'تسجيل الدخول', url: link(signInPath(realm)) },
    footnote: 'إن لم تكن أنت من غيّرها فأعد تعيينها فوراً وأبلغ مسؤول حسابك.',
  }),
  ckb: ({ realm, email, changedAt }, { link }) => ({
    subject: 'وشەی نهێنی گۆڕدرا',
    greeting: 'سڵاو،',
    paragraphs: [`وشەی نهێنیی ${email} لە ${minute(changedAt)} گۆڕدرا. هەموو دانیشتنەکانی تری هەژمارەکە کۆتاییان پێهات.`],
    action: { label: 'چوونەژوورەوە', url: link(signInPath(realm)) },
    footnote: 'ئەگەر تۆ نەتگۆڕیوە، دەستبەجێ ڕێکی بخەرەوە و بەڕێوەبەرەکەت ئاگادار بکەرەوە.',
  }),
  kmr: ({ realm, email, changedAt }, { link }) => ({
    subject: 'Şîfreya te hat guhertin',
    greeting: 'Silav,',
    paragraphs: [`Şîfreya ${email} di ${minute(changedAt)} de hat guhertin. Hemû danişînên din ên hesabê hatin girtin.`],
    action: { label: 'Têkeve', url: link(signInPath(realm)) },
    footnote: 'Heke ne te guhertibe, yekser şîfreyê nû bike û rêveberê xwe agahdar bike.',
  }),
};

const invitation: Record<MailLanguage, Write<IdentityMails['invitation']>> = {
  en: ({ tenantName, role, token, validHours }, { link }) => ({
    subject: `You are invited to ${tenantName}'s partner portal`,
    greeting: 'Hello,',
    paragraphs: [`An administrator of ${tenantName} invited you to its identity verification portal as ${role}. Accept within ${validHours} hours and choose your password.`],
    action: { label: 'Accept the invitation', url: link(`/portal/invitations#${token}`) },
    footnote: 'If you do not know this organisation, ignore this mail: no account is created without you.',
  }),
  ar: ({ tenantName, role, token, validHours }, { link }) => ({
    subject: `دعوة إلى بوابة الشريك ${tenantName}`,
    greeting: 'مرحباً،',
    paragraphs: [`دعاك أحد مسؤولي ${tenantName} إلى بوابة التحقق من الهوية بدور ${role}. اقبل الدعوة خلال ${validHours} ساعة واختر كلمة مرورك.`],
    action: { label: 'قبول الدعوة', url: link(`/portal/invitations#${token}`) },
    footnote: 'إن كنت لا تعرف هذه الجهة فتجاهل هذه الرسالة: لن يُنشأ أي حساب من دونك.',
  }),
  ckb: ({ tenantName, role, token, validHours }, { link }) => ({
    subject: `بانگهێشت بۆ پۆرتاڵی ${tenantName}`,
    greeting: 'سڵاو،',
    paragraphs: [`بەڕێوەبەرێکی ${tenantName} بانگهێشتی کردوویت بۆ پۆرتاڵی پشتڕاستکردنەوەی ناسنامە وەک ${role}. لە ماوەی ${validHours} کاتژمێردا قبووڵی بکە و وشەی نهێنییەکەت دابنێ.`],
    action: { label: 'قبووڵکردنی بانگهێشت', url: link(`/portal/invitations#${token}`) },
    footnote: 'ئەگەر ئەم ڕێکخراوە ناناسیت، ئەم نامەیە پشتگوێ بخە: بەبێ تۆ هیچ هەژمارێک دروست ناکرێت.',
  }),
  kmr: ({ tenantName, role, token, validHours }, { link }) => ({
    subject: `Vexwendin bo portala ${tenantName}`,
    greeting: 'Silav,',
    paragraphs: [`Rêvebereke ${tenantName} tu wek ${role} vexwendî portala piştrastkirina nasnameyê kir. Di nav ${validHours} saetan de qebûl bike û şîfreya xwe hilbijêre.`],
    action: { label: 'Vexwendinê qebûl bike', url: link(`/portal/invitations#${token}`) },
    footnote: 'Heke tu vê rêxistinê nas nakî, vê peyamê paşguh bike: bêyî te tu hesab nayê çêkirin.',
  }),
};

export const identityMailCatalog: MailCatalog<IdentityMails, MailLanguage> = {
  languages: MAIL_LANGUAGES,
  templates: { 'password-reset': passwordReset, 'password-changed': passwordChanged, invitation },
};
