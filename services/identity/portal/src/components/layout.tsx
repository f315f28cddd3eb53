import type { ComponentChildren } from 'preact';
import { AppShell } from '@svc/web-ui/components';
import { type Messages, useMessages } from '@svc/web-ui/i18n';
import { useSession } from '../session.js';

type Key = 'team' | 'account_area' | 'portal' | 'skip' | 'cases' | 'clients' | 'webhooks' | 'reports' | 'navigation' | 'signOut' | 'sandbox' | 'role_PartnerAdmin' | 'role_PartnerReadOnly' | 'account' | 'readOnlyNote';

const messages: Messages<Key> = {
  en: {
    team: 'Team',
    account_area: 'Your account',
    portal: 'Partner portal',
    skip: 'Skip to content',
    cases: 'Cases',
    clients: 'OAuth clients',
    webhooks: 'Webhooks',
    reports: 'Reports',
    navigation: 'Portal sections',
    signOut: 'Sign out',
    sandbox: 'Sandbox tenant: cases here are decided by the simulator, not by real checks. Nothing here is a real verification.',
    role_PartnerAdmin: 'Admin',
    role_PartnerReadOnly: 'Read-only',
    account: 'Signed in as',
    readOnlyNote: 'Read-only access: you can see everything but change nothing.',
  },
  ar: {
    team: 'الفريق',
    account_area: 'حسابك',
    portal: 'بوابة الشركاء',
    skip: 'انتقل إلى المحتوى',
    cases: 'الحالات',
    clients: 'عملاء OAuth',
    webhooks: 'الويب هوك',
    reports: 'التقارير',
    navigation: 'أقسام البوابة',
    signOut: 'تسجيل الخروج',
    sandbox: 'مستأجر تجريبي (Sandbox): تُقرَّر الحالات هنا بواسطة المحاكي لا بفحوص حقيقية. لا شيء هنا تحقّق حقيقي.',
    role_PartnerAdmin: 'مسؤول',
    role_PartnerReadOnly: 'قراءة فقط',
    account: 'مسجّل الدخول باسم',
    readOnlyNote: 'صلاحية قراءة فقط: يمكنك رؤية كل شيء دون تغيير أي شيء.',
  },
};

export type PortalArea = 'cases' | 'clients' | 'webhooks' | 'reports' | 'team' | 'account';
const AREAS: PortalArea[] = ['cases', 'clients', 'webhooks', 'reports', 'team', 'account'];
/** Team management is for PartnerAdmins only (the API refuses the others): no entry for a read-only user. */
const ADMIN_AREAS: ReadonlySet<PortalArea> = new Set(['team']);
const areaLabel = (area: PortalArea) => (area === 'account' ? 'account_area' : area);

/** Header (tenant, user, language, sign out), the sandbox banner, the sections, and the screen. */
export function Layout(props: { area: PortalArea | undefined; onSignOut: () => void; children: ComponentChildren }) {
  const t = useMessages(messages);
  const { user, tenant, canWrite } = useSession();
  return (
    <AppShell
      appName={t('portal')}
      brandDetail={
        <span class="tenant-name" data-testid="tenant-name">
          {tenant.name}
        </span>
      }
      banner={
        tenant.sandbox && (
          <p class="sandbox-banner" data-testid="sandbox-banner">
            <strong>Sandbox</strong> {t('sandbox')}
          </p>
        )
      }
      labels={{ skip: t('skip'), account: t('account'), signOut: t('signOut'), navigation: t('navigation') }}
      email={user.email}
      emailTestId="user-email"
      role={user.role}
      roleLabel={t(`role_${user.role}`)}
      sections={AREAS.filter((area) => canWrite || !ADMIN_AREAS.has(area)).map((area) => ({ key: area, label: t(areaLabel(area)) }))}
      current={props.area}
      titleParts={[tenant.name]}
      onSignOut={props.onSignOut}
      note={!canWrite && <p class="read-only-note">{t('readOnlyNote')}</p>}
    >
      {props.children}
    </AppShell>
  );
}
