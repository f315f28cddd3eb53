import { ErrorNotice, Loading } from '@svc/web-ui/components';
import { Layout, type PortalArea } from './components/layout.js';
import { type Messages, useMessages } from '@svc/web-ui/i18n';
import { Link, navigate, useLocation } from '@svc/web-ui/router';
import { AccountScreen } from './screens/account/index.js';
import { CasesArea } from './screens/cases/index.js';
import { ClientsScreen } from './screens/clients/index.js';
import { ReportsArea } from './screens/reports/index.js';
import { InvitationScreen } from './screens/invitation/index.js';
import { PasswordResetScreen } from '@svc/web-ui/password-reset/password-reset-screen';
import { SignInScreen } from './screens/sign-in/index.js';
import { TeamScreen } from './screens/team/index.js';
import { SecuritySection } from '@svc/web-ui/second-factors/security-section';
import { ReauthenticationDialog } from '@svc/web-ui/second-factors/reauthentication-dialog';
import { WebhooksArea } from './screens/webhooks/index.js';
import { loadSession, SessionProvider, sessionApi, signOut, useSession } from './session.js';
import { useSessionBootstrap } from '@svc/web-ui/use-session-bootstrap';

const messages: Messages<'notFound' | 'notFoundBody' | 'toCases'> = {
  en: { notFound: 'Page not found', notFoundBody: 'There is no portal page at this address.', toCases: 'Go to the cases' },
  ar: { notFound: 'الصفحة غير موجودة', notFoundBody: 'لا توجد صفحة في البوابة بهذا العنوان.', toCases: 'اذهب إلى الحالات' },
};

/** Where sign-in returns to: only a path inside the portal (never another site). */
export function safeReturnPath(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-in') ? next : '/cases';
}

function currentPortalPath(): string {
  const { pathname, search } = window.location;
  return `${pathname.replace(/^\/portal/, '') || '/cases'}${search}`;
}

function signInHref(): string {
  return `/sign-in?next=${encodeURIComponent(currentPortalPath())}`;
}

/** '/cases/abc' → the cases area with subpath '/abc'. */
function areaOf(path: string): { area: PortalArea; subpath: string } | undefined {
  const match = /^\/(cases|clients|webhooks|reports|team|account)(\/.*)?$/.exec(path);
  return match ? { area: match[1] as PortalArea, subpath: match[2] ?? '' } : undefined;
}

function NotFound() {
  const t = useMessages(messages);
  return (
    <section>
      <h1>{t('notFound')}</h1>
      <p>{t('notFoundBody')}</p>
      <Link href="/cases">{t('toCases')}</Link>
    </section>
  );
}

function AreaScreen(props: { area: PortalArea; subpath: string }) {
  const { canWrite } = useSession();
  switch (props.area) {
    case 'cases':
      return <CasesArea subpath={props.subpath} />;
    case 'clients':
      return props.subpath ? <NotFound /> : <ClientsScreen />;
    case 'webhooks':
      return <WebhooksArea subpath={props.subpath} />;
    case 'reports':
      return <ReportsArea subpath={props.subpath} />;
    case 'team':
      // Team management is PartnerAdmin's alone: a read-only user has no entry for it and no page.
      return props.subpath || !canWrite ? <NotFound /> : <TeamScreen />;
    case 'account':
      return props.subpath ? <NotFound /> : <AccountScreen />;
  }
}

export function App() {
  const location = useLocation();
  // The invitation and password reset pages are public too: whoever opens them is not signed in.
  const onSignInPage = location.path === '/sign-in' || location.path === '/invitations' || location.path === '/password-reset';
  const { session, setSession, error, setError, signedInTo } = useSessionBootstrap({ sessionApi, onPublicPage: onSignInPage, signInHref, signInPathname: '/portal/sign-in', homePath: '/cases' });

  if (location.path === '/password-reset') {
    return <PasswordResetScreen apiPath="/portal/password-reset" loadSession={loadSession} onSignedIn={signedInTo('/cases')} />;
  }
  if (location.path === '/invitations') {
    return <InvitationScreen onSignedIn={signedInTo('/cases')} />;
  }
  if (onSignInPage) {
    return (
      <SignInScreen
        onSignedIn={signedInTo(safeReturnPath(location.query.get('next')))}
      />
    );
  }
  if (error) return <main class="content content-alone"><ErrorNotice error={error} onRetry={() => window.location.reload()} /></main>;
  if (!session) return <main class="content content-alone"><Loading /></main>;

  const found = areaOf(location.path);
  const onSignOut = () => {
    // Even when the server cannot be reached, the screen leaves the session behind.
    void signOut()
      .catch(() => undefined)
      .then(() => {
        setSession(null);
        navigate('/sign-in', { replace: true });
      });
  };
  if (session.enrolmentOnly) {
    // Until a second factor is set up, the session opens nothing else: the page offers only that.
    return (
      <SessionProvider session={session}>
        <Layout area="account" onSignOut={onSignOut}>
          <SecuritySection accountPath="/portal/account" pageHeading enrolmentOnly onEnrolled={() => void loadSession().then(setSession, setError)} />
        </Layout>
      </SessionProvider>
    );
  }
  return (
    <SessionProvider session={session}>
      <Layout area={found?.area} onSignOut={onSignOut}>
        {found ? <AreaScreen key={found.area} area={found.area} subpath={found.subpath} /> : location.path === '' ? <Loading /> : <NotFound />}
        <ReauthenticationDialog accountPath="/portal/account" />
      </Layout>
    </SessionProvider>
  );
}
