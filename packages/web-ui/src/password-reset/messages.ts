import type { Messages } from '../i18n.js';

type Key =
  | 'requestTitle'
  | 'requestIntro'
  | 'email'
  | 'send'
  | 'sending'
  | 'sent'
  | 'chooseTitle'
  | 'chooseIntro'
  | 'password'
  | 'passwordHint'
  | 'save'
  | 'saving'
  | 'secondFactorOwed'
  | 'unusableTitle'
  | 'RESET_LINK_NOT_FOUND'
  | 'RESET_LINK_EXPIRED'
  | 'RESET_LINK_USED'
  | 'requestAnother'
  | 'toSignIn';

export const passwordResetMessages: Messages<Key> = {
  en: {
    requestTitle: 'Forgot your password?',
    requestIntro: 'Enter the address you sign in with. If it has an account, we mail it a link to choose a new password.',
    email: 'Email address',
    send: 'Mail me a link',
    sending: 'Sending…',
    sent: 'If the address has an account, a link to choose a new password is on its way. It works once, within 60 minutes.',
    chooseTitle: 'Choose a new password',
    chooseIntro: 'Every other session of your account ends, and you are signed in with the new password.',
    password: 'New password',
    passwordHint: 'At least 12 characters, and not a common password.',
    save: 'Set password and sign in',
    saving: 'Saving…',
    secondFactorOwed: 'Your password is set. Sign in with it and your second factor.',
    unusableTitle: 'This link cannot be used',
    RESET_LINK_NOT_FOUND: 'This link is not valid: check that the whole link was copied, or ask for a new one.',
    RESET_LINK_EXPIRED: 'This link has expired (links are valid for 60 minutes): ask for a new one.',
    RESET_LINK_USED: 'This link was already used: sign in with the new password, or ask for a new link.',
    requestAnother: 'Mail me a new link',
    toSignIn: 'Back to sign in',
  },
  ar: {
    requestTitle: 'هل نسيت كلمة المرور؟',
    requestIntro: 'أدخل العنوان الذي تسجّل الدخول به. إن كان له حساب، نرسل إليه رابطاً لاختيار كلمة مرور جديدة.',
    email: 'البريد الإلكتروني',
    send: 'أرسل لي رابطاً',
    sending: 'جارٍ الإرسال…',
    sent: 'إن كان للعنوان حساب، فالرابط لاختيار كلمة مرور جديدة في الطريق. يصلح مرة واحدة خلال 60 دقيقة.',
    chooseTitle: 'اختر كلمة مرور جديدة',
    chooseIntro: 'تنتهي جميع الجلسات الأخرى لحسابك، وتسجّل الدخول بكلمة المرور الجديدة.',
    password: 'كلمة المرور الجديدة',
    passwordHint: '12 حرفاً على الأقل، وليست من كلمات المرور الشائعة.',
    save: 'احفظ كلمة المرور وسجّل الدخول',
    saving: 'جارٍ الحفظ…',
    secondFactorOwed: 'تم تعيين كلمة المرور. سجّل الدخول بها وبالعامل الثاني.',
    unusableTitle: 'لا يمكن استخدام هذا الرابط',
    RESET_LINK_NOT_FOUND: 'هذا الرابط غير صالح: تأكد من نسخ الرابط كاملاً، أو اطلب رابطاً جديداً.',
    RESET_LINK_EXPIRED: 'انتهت صلاحية هذا الرابط (تصلح الروابط 60 دقيقة): اطلب رابطاً جديداً.',
    RESET_LINK_USED: 'استُخدم هذا الرابط من قبل: سجّل الدخول بكلمة المرور الجديدة، أو اطلب رابطاً جديداً.',
    requestAnother: 'أرسل لي رابطاً جديداً',
    toSignIn: 'العودة إلى تسجيل الدخول',
  },
};
