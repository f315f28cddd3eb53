import type { Messages } from '@svc/web-ui/i18n';

type Key =
  | 'title'
  | 'intro'
  | 'activeCount'
  | 'limitReached'
  | 'register'
  | 'registerTitle'
  | 'clientName'
  | 'clientNameHint'
  | 'pem'
  | 'pemHint'
  | 'pemFile'
  | 'inspect'
  | 'inspecting'
  | 'detailsTitle'
  | 'detailsIntro'
  | 'thumbprint'
  | 'subject'
  | 'validFrom'
  | 'validTo'
  | 'save'
  | 'saving'
  | 'cancel'
  | 'privateKey'
  | 'notCertificate'
  | 'fileUnreadable'
  | 'registeredTitle'
  | 'registeredBody'
  | 'clientId'
  | 'curlTitle'
  | 'curlHint'
  | 'copyClientId'
  | 'copyCurl'
  | 'copyThumbprint'
  | 'done'
  | 'showCurl'
  | 'hideCurl'
  | 'name'
  | 'validity'
  | 'lastUsed'
  | 'status'
  | 'actions'
  | 'never'
  | 'revokedOn'
  | 'revoke'
  | 'revokeTitle'
  | 'revokeBody'
  | 'revokeConfirm'
  | 'revoked'
  | 'empty'
  | 'emptyBody'
  | 'notYetValid'
  | 'scopes'
  | 'copy';

export const clientMessages: Messages<Key> = {
  en: {
    title: 'OAuth clients',
    intro: 'Each client is a backend of yours that gets access tokens with its own certificate (mutual TLS). Tokens are bound to that certificate.',
    activeCount: '{count} of {max} active clients',
    limitReached: 'Your organisation has {max} active clients, the most it may have. Revoke one you no longer use to register another.',
    register: 'Register a client',
    registerTitle: 'Register a client',
    clientName: 'Name',
    clientNameHint: 'What this backend is, e.g. "Onboarding service (production)".',
    pem: 'Certificate (PEM)',
    pemHint: 'Paste the certificate, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----, or choose its file. Never the private key.',
    pemFile: 'Or choose the certificate file',
    inspect: 'Check the certificate',
    inspecting: 'Checking…',
    detailsTitle: 'Certificate details',
    detailsIntro: 'Compare these with your certificate before saving: tokens will be issued only to whoever holds its private key.',
    thumbprint: 'Thumbprint (SHA-256)',
    subject: 'Subject',
    validFrom: 'Valid from',
    validTo: 'Valid until',
    save: 'Register this client',
    saving: 'Registering…',
    cancel: 'Cancel',
    privateKey: 'This is a private key. It must never leave your servers: paste the certificate instead. Nothing was sent.',
    notCertificate: 'This is not a PEM certificate: it must contain -----BEGIN CERTIFICATE-----.',
    fileUnreadable: 'The file could not be read.',
    registeredTitle: 'Client registered',
    registeredBody: 'Give this client id to the backend that holds the certificate\'s private key. It asks for tokens like this:',
    clientId: 'Client id',
    curlTitle: 'Token request',
    curlHint: 'client.crt is the certificate you registered, client.key its private key.',
    copyClientId: 'Copy client id',
    copyCurl: 'Copy the command',
    copyThumbprint: 'Copy the thumbprint of {name}',
    done: 'Done',
    showCurl: 'Token request',
    hideCurl: 'Hide',
    name: 'Name',
    validity: 'Validity',
    lastUsed: 'Last used',
    status: 'Status',
    actions: 'Actions',
    never: 'Never',
    revokedOn: 'on {date}',
    revoke: 'Revoke',
    revokeTitle: 'Revoke {name}?',
    revokeBody: 'Revoking is irreversible. Every access token of this client stops working at once, and it can never get another. To use this certificate again, register it as a new client.',
    revokeConfirm: 'Revoke for good',
    revoked: '{name} was revoked.',
    empty: 'No OAuth clients yet',
    emptyBody: 'Register one to let your backend call the API.',
    notYetValid: 'Not yet valid',
    scopes: 'Scopes',
    copy: 'Copy',
  },
  ar: {
    title: 'عملاء OAuth',
    intro: 'كل عميل هو نظام خلفي لديكم يحصل على رموز الوصول بشهادته الخاصة (TLS متبادل). الرموز مرتبطة بتلك الشهادة.',
    activeCount: '{count} من {max} عملاء نشطين',
    limitReached: 'لدى مؤسستك {max} عملاء نشطين، وهو الحد الأقصى. ألغِ عميلًا لم تعد تستخدمه لتسجيل آخر.',
    register: 'تسجيل عميل',
    registerTitle: 'تسجيل عميل',
    clientName: 'الاسم',
    clientNameHint: 'ما هذا النظام الخلفي، مثل «خدمة التسجيل (الإنتاج)».',
    pem: 'الشهادة (PEM)',
    pemHint: 'الصق الشهادة من -----BEGIN CERTIFICATE----- إلى -----END CERTIFICATE-----، أو اختر ملفها. لا تلصق المفتاح الخاص أبدًا.',
    pemFile: 'أو اختر ملف الشهادة',
    inspect: 'افحص الشهادة',
    inspecting: 'جارٍ الفحص…',
    detailsTitle: 'تفاصيل الشهادة',
    detailsIntro: 'قارن هذه التفاصيل بشهادتك قبل الحفظ: لن تُصدر الرموز إلا لمن يملك مفتاحها الخاص.',
    thumbprint: 'البصمة (SHA-256)',
    subject: 'الموضوع',
    validFrom: 'صالحة من',
    validTo: 'صالحة حتى',
    save: 'سجّل هذا العميل',
    saving: 'جارٍ التسجيل…',
    cancel: 'إلغاء',
    privateKey: 'هذا مفتاح خاص ويجب ألا يغادر خوادمكم أبدًا: الصق الشهادة بدلًا منه. لم يُرسل أي شيء.',
    notCertificate: 'هذه ليست شهادة PEM: يجب أن تحتوي على -----BEGIN CERTIFICATE-----.',
    fileUnreadable: 'تعذّرت قراءة الملف.',
    registeredTitle: 'سُجّل العميل',
    registeredBody: 'أعطِ معرّف العميل هذا للنظام الخلفي الذي يملك المفتاح الخاص للشهادة. يطلب الرموز هكذا:',
    clientId: 'معرّف العميل',
    curlTitle: 'طلب الرمز',
    curlHint: 'client.crt هي الشهادة التي سجّلتها، وclient.key مفتاحها الخاص.',
    copyClientId: 'انسخ معرّف العميل',
    copyCurl: 'انسخ الأمر',
    copyThumbprint: 'انسخ بصمة {name}',
    done: 'تم',
    showCurl: 'طلب الرمز',
    hideCurl: 'إخفاء',
    name: 'الاسم',
    validity: 'الصلاحية',
    lastUsed: 'آخر استخدام',
    status: 'الحالة',
    actions: 'الإجراءات',
    never: 'لم يُستخدم',
    revokedOn: 'في {date}',
    revoke: 'إلغاء',
    revokeTitle: 'إلغاء {name}؟',
    revokeBody: 'الإلغاء نهائي لا رجعة فيه. تتوقف كل رموز الوصول لهذا العميل فورًا، ولن يحصل على رموز أخرى أبدًا. لاستخدام هذه الشهادة مجددًا سجّلها عميلًا جديدًا.',
    revokeConfirm: 'ألغِ نهائيًا',
    revoked: 'أُلغي {name}.',
    empty: 'لا يوجد عملاء OAuth بعد',
    emptyBody: 'سجّل عميلًا ليتمكن نظامك الخلفي من استدعاء الواجهة البرمجية.',
    notYetValid: 'لم تبدأ صلاحيتها',
    scopes: 'النطاقات',
    copy: 'نسخ',
  },
};
