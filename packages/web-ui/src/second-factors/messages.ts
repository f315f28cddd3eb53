import type { Messages } from '../i18n.js';

type Key =
  | 'heading'
  | 'intro'
  | 'enrolmentRequired'
  | 'appHeading'
  | 'appOn'
  | 'appOff'
  | 'setUpApp'
  | 'scan'
  | 'qrLabel'
  | 'secretLabel'
  | 'confirmCode'
  | 'confirm'
  | 'cancel'
  | 'remove'
  | 'invalidCode'
  | 'recoveryHeading'
  | 'recoveryShownOnce'
  | 'recoveryLeft'
  | 'regenerate'
  | 'done'
  | 'requireHeading'
  | 'requireLabel'
  | 'requireHint'
  | 'passkeysHeading'
  | 'passkeysNone'
  | 'passkeyItem'
  | 'passkeyNameLabel'
  | 'addPasskey'
  | 'rename'
  | 'renameLabel'
  | 'save'
  | 'reauthHeading'
  | 'reauthBody'
  | 'reauthPassword'
  | 'reauthCode'
  | 'reauthUseCode'
  | 'reauthUsePassword'
  | 'reauthPasskey'
  | 'reauthConfirm';

export const secondFactorMessages: Messages<Key> = {
  en: {
    heading: 'Security',
    passkeysHeading: 'Passkeys',
    passkeysNone: 'No passkey yet. A passkey signs you in with your fingerprint, face or device PIN, without a password.',
    passkeyItem: '{name}: added {date}',
    passkeyNameLabel: 'Name for a new passkey (optional)',
    addPasskey: 'Add a passkey',
    rename: 'Rename',
    renameLabel: 'New name for {name}',
    save: 'Save',
    reauthHeading: 'Confirm it is you',
    reauthBody: 'This change needs your password, a code from your authenticator app or a passkey, given in the last 5 minutes.',
    reauthPassword: 'Password',
    reauthCode: 'Code from the app',
    reauthUseCode: 'Use a code from the authenticator app instead',
    reauthUsePassword: 'Use your password instead',
    reauthPasskey: 'Use a passkey',
    reauthConfirm: 'Confirm and continue',
    intro: 'A second factor keeps your account safe even if your password leaks.',
    enrolmentRequired: 'Your organisation requires a second factor. Set one up to continue.',
    appHeading: 'Authenticator app',
    appOn: 'Set up on {date}.',
    appOff: 'Not set up.',
    setUpApp: 'Set up an authenticator app',
    scan: 'Scan this code with your authenticator app, or type the key, then enter the 6-digit code it shows.',
    qrLabel: 'QR code for your authenticator app',
    secretLabel: 'Key',
    confirmCode: 'Code from the app',
    confirm: 'Confirm',
    cancel: 'Cancel',
    remove: 'Remove',
    invalidCode: 'The code does not match. Check the time on your phone and type the current code.',
    recoveryHeading: 'Recovery codes',
    recoveryShownOnce: 'Keep these codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.',
    recoveryLeft: '{count} unused recovery codes left.',
    regenerate: 'New recovery codes',
    done: 'I have saved them',
    requireHeading: 'Organisation',
    requireLabel: 'Require a second factor for everyone in this organisation',
    requireHint: 'Users without one are asked to set one up at their next sign-in.',
  },
  ar: {
    passkeysHeading: 'مفاتيح المرور',
    passkeysNone: 'لا يوجد مفتاح مرور بعد. يتيح لك مفتاح المرور تسجيل الدخول ببصمتك أو وجهك أو رمز جهازك، دون كلمة مرور.',
    passkeyItem: '{name}: أُضيف في {date}',
    passkeyNameLabel: 'اسم لمفتاح مرور جديد (اختياري)',
    addPasskey: 'أضف مفتاح مرور',
    rename: 'إعادة تسمية',
    renameLabel: 'اسم جديد لـ {name}',
    save: 'حفظ',
    reauthHeading: 'أكّد هويتك',
    reauthBody: 'يتطلب هذا التغيير كلمة مرورك أو رمزًا من تطبيق المصادقة أو مفتاح مرور، خلال آخر 5 دقائق.',
    reauthPassword: 'كلمة المرور',
    reauthCode: 'الرمز من التطبيق',
    reauthUseCode: 'استخدم رمزًا من تطبيق المصادقة بدلًا من ذلك',
    reauthUsePassword: 'استخدم كلمة المرور بدلًا من ذلك',
    reauthPasskey: 'استخدم مفتاح مرور',
    reauthConfirm: 'تأكيد ومتابعة',
    heading: 'الأمان',
    intro: 'يحمي العامل الثاني حسابك حتى إذا تسرّبت كلمة المرور.',
    enrolmentRequired: 'تشترط مؤسستك عاملًا ثانيًا للمصادقة. أعِدّ واحدًا للمتابعة.',
    appHeading: 'تطبيق المصادقة',
    appOn: 'أُعِدّ في {date}.',
    appOff: 'غير مُعَدّ.',
    setUpApp: 'إعداد تطبيق المصادقة',
    scan: 'امسح هذا الرمز بتطبيق المصادقة أو اكتب المفتاح، ثم أدخل الرمز المكوّن من 6 أرقام الذي يظهره.',
    qrLabel: 'رمز QR لتطبيق المصادقة',
    secretLabel: 'المفتاح',
    confirmCode: 'الرمز من التطبيق',
    confirm: 'تأكيد',
    cancel: 'إلغاء',
    remove: 'إزالة',
    invalidCode: 'الرمز غير مطابق. تحقّق من الوقت على هاتفك واكتب الرمز الحالي.',
    recoveryHeading: 'رموز الاسترداد',
    recoveryShownOnce: 'احفظ هذه الرموز في مكان آمن: كلٌّ منها يُدخلك مرة واحدة إذا فقدت هاتفك. لن تظهر مرة أخرى.',
    recoveryLeft: 'بقي {count} من رموز الاسترداد غير المستخدمة.',
    regenerate: 'رموز استرداد جديدة',
    done: 'حفظتها',
    requireHeading: 'المؤسسة',
    requireLabel: 'اشتراط عامل ثانٍ لكل من في هذه المؤسسة',
    requireHint: 'يُطلب ممن ليس لديه عامل ثانٍ إعداده عند تسجيل الدخول التالي.',
  },
};
