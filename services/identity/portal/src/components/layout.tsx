import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { LanguageToggle } from '../../../web-shared/components/index.js';
import { type Messages, useLanguage, useMessages } from '../../../web-shared/i18n.js';
import { Link } from '../../../web-shared/router.js';
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
  const { language } = useLanguage();

  useEffect(() => {
    document.title = props.area ? `${t(areaLabel(props.area))} · ${tenant.name} · ${t('portal')}` : `${tenant.name} · ${t('portal')}`;
  }, [props.area, tenant.name, language]);

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        {t('skip')}
      </a>
      {tenant.sandbox && (
        <p class="sandbox-banner" data-testid="sandbox-banner">
          <strong>Sandbox</strong> {t('sandbox')}
        </p>
      )}
      <header class="top-bar">
        <div class="brand">
          <span class="brand-name">{t('portal')}</span>
          <span class="tenant-name" data-testid="tenant-name">
            {tenant.name}
          </span>
        </div>
        <div class="account">
          <span class="visually-hidden">{t('account')}</span>
          <span class="user-email" data-testid="user-email">
            {user.email}
          </span>
          <span class={`role role-${user.role}`} title={user.role}>
            {t(`role_${user.role}`)}
          </span>
          <LanguageToggle />
          <button type="button" class="button button-quiet" onClick={props.onSignOut}>
            {t('signOut')}
          </button>
        </div>
      </header>
      <nav class="sections" aria-label={t('navigation')}>
        <ul>
          {AREAS.filter((area) => canWrite || !ADMIN_AREAS.has(area)).map((area) => (
            <li key={area}>
              <Link href={`/${area}`} class="section-link" aria-current={props.area === area ? 'page' : undefined}>
                {t(areaLabel(area))}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {!canWrite && <p class="read-only-note">{t('readOnlyNote')}</p>}
      <main id="main" class="content" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}
