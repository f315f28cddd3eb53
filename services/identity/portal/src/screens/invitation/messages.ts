import type { Messages } from '@svc/web-ui/i18n';

type Key =
  | 'title'
  | 'intro'
  | 'role_PartnerAdmin'
  | 'role_PartnerReadOnly'
  | 'email'
  | 'password'
  | 'passwordHint'
  | 'accept'
  | 'accepting'
  | 'unusableTitle'
  | 'INVITATION_NOT_FOUND'
  | 'INVITATION_EXPIRED'
  | 'INVITATION_USED'
  | 'INVITATION_REVOKED'
  | 'toSignIn';

export const invitationMessages: Messages<Key> = {
  en: {
    title: 'Join {tenant}',
    intro: 'You have been invited to the partner portal of {tenant} as {role}. Choose a password to create your account; you are signed in right after.',
    role_PartnerAdmin: 'an admin',
    role_PartnerReadOnly: 'a read-only user',
    email: 'Email address',
    password: 'Choose a password',
    passwordHint: 'At least 12 characters, and not a common password.',
    accept: 'Create account and sign in',
    accepting: 'Creating your account…',
    unusableTitle: 'This invitation cannot be used',
    INVITATION_NOT_FOUND: 'The link is not valid. Check that the whole link was copied, or ask an admin of your organisation for a new invitation.',
    INVITATION_EXPIRED: 'The invitation has expired: invitations are valid for 72 hours. Ask an admin of your organisation for a new one.',
    INVITATION_USED: 'The invitation has already been accepted. Sign in with the password you chose then.',
    INVITATION_REVOKED: 'The invitation was withdrawn by an admin of your organisation. Ask them for a new one if you still need access.',
    toSignIn: 'Go to sign in',
  },
  ar: {
    title: 'انضم إلى {tenant}',
    intro: 'دُعيت إلى بوابة الشركاء الخاصة بـ {tenant} بصفة {role}. اختر كلمة مرور لإنشاء حسابك؛ وسيُسجَّل دخولك بعدها مباشرة.',
    role_PartnerAdmin: 'مسؤول',
    role_PartnerReadOnly: 'مستخدم للقراءة فقط',
    email: 'البريد الإلكتروني',
    password: 'اختر كلمة مرور',
    passwordHint: '12 حرفًا على الأقل، وليست من كلمات المرور الشائعة.',
    accept: 'إنشاء الحساب وتسجيل الدخول',
    accepting: 'جارٍ إنشاء حسابك…',
    unusableTitle: 'لا يمكن استخدام هذه الدعوة',
    INVITATION_NOT_FOUND: 'الرابط غير صالح. تحقّق من نسخ الرابط كاملًا، أو اطلب دعوة جديدة من مسؤول في مؤسستك.',
    INVITATION_EXPIRED: 'انتهت صلاحية الدعوة: الدعوات صالحة لمدة 72 ساعة. اطلب دعوة جديدة من مسؤول في مؤسستك.',
    INVITATION_USED: 'قُبلت هذه الدعوة من قبل. سجّل الدخول بكلمة المرور التي اخترتها حينها.',
    INVITATION_REVOKED: 'سحب مسؤول في مؤسستك هذه الدعوة. اطلب منه دعوة جديدة إن كنت لا تزال بحاجة إلى الوصول.',
    toSignIn: 'اذهب إلى تسجيل الدخول',
  },
};
