import type { Messages } from '../i18n.js';

type Key =
  | 'title'
  | 'intro'
  | 'email'
  | 'password'
  | 'submit'
  | 'submitting'
  | 'wrongCredentials'
  | 'lockedMinutes'
  | 'lockedNow'
  | 'disabled'
  | 'failed'
  | 'secondStepIntro'
  | 'code'
  | 'recoveryCode'
  | 'verify'
  | 'useRecoveryCode'
  | 'useCode'
  | 'invalidCode'
  | 'startAgain'
  | 'withPasskey'
  | 'or'
  | 'usePasskey'
  | 'passkeyCancelled'
  | 'forgotPassword';

export const signInMessages: Messages<Key> = {
  en: {
    title: 'Sign in to the partner portal',
    intro: "Your organisation's verification cases, OAuth clients, webhooks and reports.",
    email: 'Email',
    password: 'Password',
    submit: 'Sign in',
    submitting: 'Signing in…',
    // English shows the API's own words for these (see errorMessage); these are the fallbacks.
    wrongCredentials: 'The email or password is incorrect.',
    lockedMinutes: 'Too many failed sign-ins: this account is locked. Try again in {minutes} minutes.',
    lockedNow: 'The email or password is incorrect. Too many failed attempts: the account is now locked for 15 minutes.',
    disabled: 'This account has been disabled by an administrator.',
    failed: 'Signing in failed: {detail}',
    secondStepIntro: 'Enter the 6-digit code from your authenticator app.',
    code: 'Authentication code',
    recoveryCode: 'Recovery code',
    verify: 'Verify',
    useRecoveryCode: 'Use a recovery code instead',
    useCode: 'Use the authenticator app instead',
    invalidCode: 'The code is incorrect or has already been used.',
    startAgain: 'Start again',
    withPasskey: 'Sign in with a passkey',
    or: 'or',
    usePasskey: 'Use a passkey',
    passkeyCancelled: 'The passkey was not used: try again, or sign in with your password.',
    forgotPassword: 'Forgot password?',
  },
  ar: {
    title: 'تسجيل الدخول إلى بوابة الشركاء',
    intro: 'حالات التحقق في مؤسستك، وعملاء OAuth، والويب هوك، والتقارير.',
    email: 'البريد الإلكتروني',
    password: 'كلمة المرور',
    submit: 'تسجيل الدخول',
    submitting: 'جارٍ تسجيل الدخول…',
    wrongCredentials: 'البريد الإلكتروني أو كلمة المرور غير صحيحة.',
    lockedMinutes: 'محاولات فاشلة كثيرة: هذا الحساب مقفل. حاول مجددًا بعد {minutes} دقيقة.',
    lockedNow: 'البريد الإلكتروني أو كلمة المرور غير صحيحة. محاولات فاشلة كثيرة: أُقفل الحساب الآن لمدة 15 دقيقة.',
    disabled: 'عطّل أحد المسؤولين هذا الحساب.',
    failed: 'تعذّر تسجيل الدخول: {detail}',
    secondStepIntro: 'أدخل الرمز المكوّن من 6 أرقام من تطبيق المصادقة.',
    code: 'رمز المصادقة',
    recoveryCode: 'رمز الاسترداد',
    verify: 'تحقّق',
    useRecoveryCode: 'استخدم رمز استرداد بدلًا من ذلك',
    useCode: 'استخدم تطبيق المصادقة بدلًا من ذلك',
    invalidCode: 'الرمز غير صحيح أو سبق استخدامه.',
    startAgain: 'ابدأ من جديد',
    withPasskey: 'تسجيل الدخول بمفتاح مرور',
    or: 'أو',
    usePasskey: 'استخدم مفتاح مرور',
    passkeyCancelled: 'لم يُستخدم مفتاح المرور: حاول مجددًا، أو سجّل الدخول بكلمة المرور.',
    forgotPassword: 'نسيت كلمة المرور؟',
  },
};
