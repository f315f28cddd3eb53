import type { Messages } from '@svc/web-ui/i18n';

type Key =
  | 'title'
  | 'mailsGoTo'
  | 'passwordHeading'
  | 'currentPassword'
  | 'newPassword'
  | 'passwordHint'
  | 'changePassword'
  | 'changing'
  | 'passwordChanged'
  | 'wrongPassword'
  | 'sessionsHeading'
  | 'sessionsIntro'
  | 'device'
  | 'address'
  | 'started'
  | 'lastSeen'
  | 'thisSession'
  | 'endSession'
  | 'sessionEnded'
  | 'unknownDevice';

export const accountMessages: Messages<Key> = {
  en: {
    title: 'Your account',
    mailsGoTo: 'Mails about your account (password resets, security notices) go to {email}.',
    passwordHeading: 'Password',
    currentPassword: 'Current password',
    newPassword: 'New password',
    passwordHint: 'At least 12 characters, and not a common password. Your other sessions end when it changes.',
    changePassword: 'Change password',
    changing: 'Changing…',
    passwordChanged: 'Password changed. {count} other sessions were ended.',
    wrongPassword: 'The current password is incorrect.',
    sessionsHeading: 'Active sessions',
    sessionsIntro: 'Everywhere you are signed in. End a session you do not recognise, then change your password.',
    device: 'Browser',
    address: 'Address',
    started: 'Signed in',
    lastSeen: 'Last active',
    thisSession: 'This session',
    endSession: 'End session',
    sessionEnded: 'The session was ended.',
    unknownDevice: 'Unknown browser',
  },
  ar: {
    title: 'حسابك',
    mailsGoTo: 'تُرسل رسائل حسابك (إعادة تعيين كلمة المرور والتنبيهات الأمنية) إلى {email}.',
    passwordHeading: 'كلمة المرور',
    currentPassword: 'كلمة المرور الحالية',
    newPassword: 'كلمة المرور الجديدة',
    passwordHint: '12 محرفًا على الأقل، وليست من كلمات المرور الشائعة. تنتهي جلساتك الأخرى عند تغييرها.',
    changePassword: 'تغيير كلمة المرور',
    changing: 'جارٍ التغيير…',
    passwordChanged: 'تم تغيير كلمة المرور. أُنهيت {count} من الجلسات الأخرى.',
    wrongPassword: 'كلمة المرور الحالية غير صحيحة.',
    sessionsHeading: 'الجلسات النشطة',
    sessionsIntro: 'كل مكان سجّلت فيه الدخول. أنهِ أي جلسة لا تعرفها، ثم غيّر كلمة المرور.',
    device: 'المتصفح',
    address: 'العنوان',
    started: 'تسجيل الدخول',
    lastSeen: 'آخر نشاط',
    thisSession: 'هذه الجلسة',
    endSession: 'إنهاء الجلسة',
    sessionEnded: 'أُنهيت الجلسة.',
    unknownDevice: 'متصفح غير معروف',
  },
};
