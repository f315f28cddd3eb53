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
  /** A change to how the account signs in, other than its password: told to the account's own address. */
  'security-notice': { realm: ResetRealm; email: string; change: SecurityChange; changedAt: string };
  /** To each PartnerAdmin of the tenant: deliveries to this endpoint stopped without anyone asking. */
  'webhook-endpoint-disabled': { url: string; lastError: string; disabledAt: string };
}

/** The sign-in changes an account is told about (a changed password has its own mail). */
export const SECURITY_CHANGES = ['authenticator-added', 'second-factor-removed', 'passkey-registered', 'recovery-codes-regenerated'] as const;
export type SecurityChange = (typeof SECURITY_CHANGES)[number];

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

const securityNoticeText: Record<MailLanguage, { subject: string; greeting: string; changes: Record<SecurityChange, string>; at: (email: string, when: string) => string; action: string; footnote: string }> = {
  en: {
    subject: 'A security setting of your account changed',
    greeting: 'Hello,',
    changes: {
      'authenticator-added': 'An authenticator app was set up as a second factor.',
      'second-factor-removed': 'A second factor was removed.',
      'passkey-registered': 'A passkey was registered.',
      'recovery-codes-regenerated': 'New recovery codes were made; the earlier ones no longer work.',
    },
    at: (email, when) => `Account ${email}, at ${when}.`,
    action: 'Review your security settings',
    footnote: 'If this was not you, reset your password at once and tell your administrator.',
  },
  ar: {
    subject: 'تغيّر أحد إعدادات الأمان في حسابك',
    greeting: 'مرحباً،',
    changes: {
      'authenticator-added': 'أُعدّ تطبيق مصادقة عاملاً ثانياً.',
      'second-factor-removed': 'أُزيل عامل ثانٍ.',
      'passkey-registered': 'سُجّل مفتاح مرور.',
      'recovery-codes-regenerated': 'أُنشئت رموز استرداد جديدة؛ الرموز السابقة لم تعد تعمل.',
    },
    at: (email, when) => `الحساب ${email}، في ${when}.`,
    action: 'مراجعة إعدادات الأمان',
    footnote: 'إن لم تكن أنت من فعل ذلك فأعد تعيين كلمة المرور فوراً وأبلغ مسؤول حسابك.',
  },
  ckb: {
    subject: 'ڕێکخستنێکی ئاسایشی هەژمارەکەت گۆڕدرا',
    greeting: 'سڵاو،',
    changes: {
      'authenticator-added': 'ئەپێکی ناسینەوە وەک هۆکاری دووەم دانرا.',
      'second-factor-removed': 'هۆکارێکی دووەم لابرا.',
      'passkey-registered': 'کلیلی چوونەژوورەوە (passkey) تۆمار کرا.',
      'recovery-codes-regenerated': 'کۆدی گەڕاندنەوەی نوێ دروست کران؛ کۆدەکانی پێشوو چیتر کار ناکەن.',
    },
    at: (email, when) => `هەژماری ${email}، لە ${when}.`,
    action: 'ڕێکخستنەکانی ئاسایش ببینە',
    footnote: 'ئەگەر تۆ نەتکردووە، دەستبەجێ وشەی نهێنی ڕێکبخەرەوە و بەڕێوەبەرەکەت ئاگادار بکەرەوە.',
  },
  kmr: {
    subject: 'Mîhengeke ewlehiyê ya hesabê te hat guhertin',
    greeting: 'Silav,',
    changes: {
      'authenticator-added': 'Sepaneke piştrastkirinê wek faktora duyem hat danîn.',
      'second-factor-removed': 'Faktoreke duyem hat rakirin.',
      'passkey-registered': 'Passkeyek hat tomarkirin.',
      'recovery-codes-regenerated': 'Kodên vegerandinê yên nû hatin çêkirin; yên berê êdî naxebitin.',
    },
    at: (email, when) => `Hesabê ${email}, di ${when} de.`,
    action: 'Mîhengên ewlehiyê binêre',
    footnote: 'Heke ne tu bûyî, yekser şîfreyê nû bike û rêveberê xwe agahdar bike.',
  },
};

/** The portal's and the console's screens where second factors are managed. */
const securityPath = (realm: ResetRealm) => (realm === 'portal' ? '/portal/account' : '/console/security');

const securityNotice = Object.fromEntries(
  MAIL_LANGUAGES.map((language) => {
    const text = securityNoticeText[language];
    const write: Write<IdentityMails['security-notice']> = ({ realm, email, change, changedAt }, { link }) => ({
      subject: text.subject,
      greeting: text.greeting,
      paragraphs: [text.changes[change], text.at(email, minute(changedAt))],
      action: { label: text.action, url: link(securityPath(realm)) },
      footnote: text.footnote,
    });
    return [language, write];
  }),
) as Record<MailLanguage, Write<IdentityMails['security-notice']>>;

const webhookDisabled: Record<MailLanguage, Write<IdentityMails['webhook-endpoint-disabled']>> = {
  en: ({ url, lastError, disabledAt }, { link }) => ({
    subject: 'A webhook endpoint was disabled',
    greeting: 'Hello,',
    paragraphs: [`Deliveries to ${url} stopped at ${minute(disabledAt)}: the endpoint was disabled.`, `Last error: ${lastError}`],
    action: { label: 'Open the webhooks screen', url: link('/portal/webhooks') },
    footnote: 'Events are not delivered to this endpoint until it is enabled again.',
  }),
  ar: ({ url, lastError, disabledAt }, { link }) => ({
    subject: 'تم تعطيل نقطة استقبال webhook',
    greeting: 'مرحباً،',
    paragraphs: [`توقفت عمليات التسليم إلى ${url} في ${minute(disabledAt)}: عُطّلت نقطة الاستقبال.`, `آخر خطأ: ${lastError}`],
    action: { label: 'فتح شاشة webhooks', url: link('/portal/webhooks') },
    footnote: 'لن تُسلَّم الأحداث إلى نقطة الاستقبال هذه حتى يُعاد تفعيلها.',
  }),
  ckb: ({ url, lastError, disabledAt }, { link }) => ({
    subject: 'خاڵێکی webhook ناچالاک کرا',
    greeting: 'سڵاو،',
    paragraphs: [`گەیاندن بۆ ${url} لە ${minute(disabledAt)} وەستا: خاڵەکە ناچالاک کرا.`, `دوایین هەڵە: ${lastError}`],
    action: { label: 'شاشەی webhooks بکەرەوە', url: link('/portal/webhooks') },
    footnote: 'تا دووبارە چالاک نەکرێتەوە، هیچ ڕووداوێک بۆ ئەم خاڵە نانێردرێت.',
  }),
  kmr: ({ url, lastError, disabledAt }, { link }) => ({
    subject: 'Xalek webhookê hat neçalakkirin',
    greeting: 'Silav,',
    paragraphs: [`Gihandina bo ${url} di ${minute(disabledAt)} de rawestiya: xal hat neçalakkirin.`, `Xeletiya dawî: ${lastError}`],
    action: { label: 'Ekrana webhookan veke', url: link('/portal/webhooks') },
    footnote: 'Heta ku dîsa çalak neyê kirin, tu bûyer nagihîjin vê xalê.',
  }),
};

export const identityMailCatalog: MailCatalog<IdentityMails, MailLanguage> = {
  languages: MAIL_LANGUAGES,
  templates: { 'password-reset': passwordReset, 'password-changed': passwordChanged, invitation, 'security-notice': securityNotice, 'webhook-endpoint-disabled': webhookDisabled },
};
