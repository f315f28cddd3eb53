import type { Messages } from '@svc/web-ui/i18n';

type Key =
  | 'title'
  | 'intro'
  | 'inviteHeading'
  | 'email'
  | 'role'
  | 'role_PartnerAdmin'
  | 'role_PartnerReadOnly'
  | 'invite'
  | 'inviting'
  | 'linkHeading'
  | 'linkIntro'
  | 'linkLabel'
  | 'copyLink'
  | 'dismiss'
  | 'pendingHeading'
  | 'noPending'
  | 'invitedAt'
  | 'expires'
  | 'revoke'
  | 'revoked'
  | 'usersHeading'
  | 'status'
  | 'status_active'
  | 'status_disabled'
  | 'lastSignIn'
  | 'never'
  | 'you'
  | 'actions'
  | 'makeAdmin'
  | 'makeReadOnly'
  | 'disable'
  | 'enable'
  | 'endSessions'
  | 'sessionsEnded'
  | 'changed'
  | 'lastAdmin'
  | 'userExists'
  | 'disableTitle'
  | 'disableBody'
  | 'cancel';

export const teamMessages: Messages<Key> = {
  en: {
    title: 'Team',
    intro: 'The people of your organisation who use this portal. Admins manage clients, webhooks, cases and the team; read-only users see everything and change nothing.',
    inviteHeading: 'Invite a colleague',
    email: 'Email address',
    role: 'Role',
    role_PartnerAdmin: 'Admin',
    role_PartnerReadOnly: 'Read-only',
    invite: 'Create invitation link',
    inviting: 'Creating…',
    linkHeading: 'Invitation link for {email}',
    linkIntro: 'Send this link to your colleague yourself: it is shown only once, works once, and expires in 72 hours. There they choose a password and are signed in.',
    linkLabel: 'Invitation link',
    copyLink: 'Copy link',
    dismiss: 'Done',
    pendingHeading: 'Pending invitations',
    noPending: 'No invitation is waiting to be accepted.',
    invitedAt: 'Invited',
    expires: 'Expires',
    revoke: 'Withdraw',
    revoked: 'The invitation was withdrawn: its link no longer works.',
    usersHeading: 'Users',
    status: 'Status',
    status_active: 'Active',
    status_disabled: 'Disabled',
    lastSignIn: 'Last sign-in',
    never: 'Never',
    you: '(you)',
    actions: 'Actions',
    makeAdmin: 'Make admin',
    makeReadOnly: 'Make read-only',
    disable: 'Disable',
    enable: 'Enable',
    endSessions: 'End all sessions',
    sessionsEnded: '{email} was signed out everywhere ({count} sessions ended).',
    changed: '{email} was updated.',
    lastAdmin: 'This is the last active admin of your organisation. Make another user an admin first: the team must always keep one.',
    userExists: 'This address already has a portal account. One address is one login, across all organisations.',
    disableTitle: 'Disable {email}?',
    disableBody: 'They are signed out at once and cannot sign in until an admin enables them again.',
    cancel: 'Cancel',
  },
  ar: {
    title: 'الفريق',
    intro: 'أشخاص مؤسستك الذين يستخدمون هذه البوابة. يدير المسؤولون العملاء والويب هوك والحالات والفريق؛ ويرى مستخدمو القراءة فقط كل شيء دون تغيير أي شيء.',
    inviteHeading: 'دعوة زميل',
    email: 'البريد الإلكتروني',
    role: 'الدور',
    role_PartnerAdmin: 'مسؤول',
    role_PartnerReadOnly: 'قراءة فقط',
    invite: 'إنشاء رابط الدعوة',
    inviting: 'جارٍ الإنشاء…',
    linkHeading: 'رابط الدعوة لـ {email}',
    linkIntro: 'أرسل هذا الرابط إلى زميلك بنفسك: يُعرض مرة واحدة فقط، ويعمل مرة واحدة، وتنتهي صلاحيته بعد 72 ساعة. هناك يختار كلمة مرور ويُسجَّل دخوله.',
    linkLabel: 'رابط الدعوة',
    copyLink: 'نسخ الرابط',
    dismiss: 'تم',
    pendingHeading: 'الدعوات المعلّقة',
    noPending: 'لا توجد دعوة بانتظار القبول.',
    invitedAt: 'تاريخ الدعوة',
    expires: 'تنتهي',
    revoke: 'سحب',
    revoked: 'سُحبت الدعوة: لم يعد رابطها يعمل.',
    usersHeading: 'المستخدمون',
    status: 'الحالة',
    status_active: 'نشط',
    status_disabled: 'معطّل',
    lastSignIn: 'آخر تسجيل دخول',
    never: 'أبدًا',
    you: '(أنت)',
    actions: 'الإجراءات',
    makeAdmin: 'اجعله مسؤولًا',
    makeReadOnly: 'اجعله للقراءة فقط',
    disable: 'تعطيل',
    enable: 'تفعيل',
    endSessions: 'إنهاء كل الجلسات',
    sessionsEnded: 'سُجّل خروج {email} من كل مكان (أُنهيت {count} جلسات).',
    changed: 'حُدّث {email}.',
    lastAdmin: 'هذا آخر مسؤول نشط في مؤسستك. اجعل مستخدمًا آخر مسؤولًا أولًا: يجب أن يبقى للفريق مسؤول واحد على الأقل.',
    userExists: 'لهذا العنوان حساب في البوابة بالفعل. العنوان الواحد تسجيل دخول واحد في كل المؤسسات.',
    disableTitle: 'تعطيل {email}؟',
    disableBody: 'يُسجَّل خروجه فورًا ولا يمكنه تسجيل الدخول حتى يفعّله مسؤول من جديد.',
    cancel: 'إلغاء',
  },
};
