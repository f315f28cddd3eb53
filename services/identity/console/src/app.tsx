import type { ComponentChildren } from 'preact';
import { AppShell, ErrorNotice, Loading } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { Link, navigate, useLocation } from '@svc/web-ui/router';
import { useSessionBootstrap } from '@svc/web-ui/use-session-bootstrap';
import { SignInForm } from '@svc/web-ui/sign-in/sign-in-form';
import { consoleMessages } from './messages.js';
import { SecuritySection } from '@svc/web-ui/second-factors/security-section';
import { ReauthenticationDialog } from '@svc/web-ui/second-factors/reauthentication-dialog';
import { CaseReview } from './screens/case-review.js';
import { HistoryScreen } from './screens/history.js';
import { QueueScreen } from './screens/queue.js';
import { completeSecondStep, loadSession, sessionApi, type StaffSession, signIn, signOut } from './session.js';
import { useIdleSignOut } from './use-idle.js';
import { PasswordResetScreen } from '@svc/web-ui/password-reset/password-reset-screen';

const CASE_PATH = /^\/cases\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function Layout(props: { session: StaffSession; area: 'queue' | 'history' | 'security' | undefined; onSignOut: () => void; children: ComponentChildren }) {
  const t = useMessages(consoleMessages);
  const { staff } = props.session;
  return (
    <AppShell
      appName={t('console')}
      labels={{ skip: t('skip'), account: t('account'), signOut: t('signOut'), navigation: t('navigation') }}
      email={staff.email}
      emailTestId="staff-email"
      role={staff.role}
      roleLabel={t(`role_${staff.role}`)}
      sections={(['queue', 'history', 'security'] as const).map((area) => ({ key: area, label: t(area) }))}
      current={props.area}
      onSignOut={props.onSignOut}
    >
      {props.children}
    </AppShell>
  );
}

function Screen({ path, session }: { path: string; session: StaffSession }) {
  const t = useMessages(consoleMessages);
  if (path === '/queue') return <QueueScreen />;
  if (path === '/history') return <HistoryScreen session={session} />;
  if (path === '/security') return <SecuritySection accountPath="/account" pageHeading />;
  const caseId = CASE_PATH.exec(path)?.[1];
  if (caseId) return <CaseReview key={caseId} caseId={caseId.toLowerCase()} session={session} />;
  return (
    <section>
      <h1>{t('notFound')}</h1>
      <Link href="/queue">{t('toQueue')}</Link>
    </section>
  );
}

export function App() {
  const t = useMessages(consoleMessages);
  const location = useLocation();
  const onSignInPage = location.path === '/sign-in' || location.path === '/password-reset';
  const { session, setSession, error, setError, signedInTo } = useSessionBootstrap({ sessionApi, onPublicPage: onSignInPage, signInPathname: '/console/sign-in', homePath: '/queue' });

  const endSession = (ended: boolean) => {
    void signOut()
      .catch(() => undefined)
      .then(() => {
        setSession(null);
        navigate(ended ? '/sign-in?ended=1' : '/sign-in', { replace: true });
      });
  };
  // The server ends an idle session on its next request; the screen should not sit there showing evidence meanwhile.
  useIdleSignOut(session && !onSignInPage ? session.idleTimeoutSeconds : null, () => endSession(true));

  if (location.path === '/password-reset') {
    return <PasswordResetScreen apiPath="/password-reset" loadSession={loadSession} onSignedIn={signedInTo('/queue')} />;
  }
  if (onSignInPage) {
    return (
      <>
        {location.query.get('ended') ? (
          <p class="notice notice-warning session-ended" role="status">
            {t('sessionEnded')}
          </p>
        ) : null}
        <SignInForm
          title={t('signInTitle')}
          intro={t('signInIntro')}
          loginPath="/login"
          forgotPasswordHref="/password-reset"
          signIn={signIn}
          completeSecondStep={completeSecondStep}
          loadSession={loadSession}
          onSignedIn={signedInTo('/queue')}
        />
      </>
    );
  }
  if (error) return <main class="content content-alone"><ErrorNotice error={error} onRetry={() => window.location.reload()} /></main>;
  if (!session) return <main class="content content-alone"><Loading /></main>;
  const area = location.path === '/queue' || location.path.startsWith('/cases/') ? 'queue' : location.path === '/history' ? 'history' : location.path === '/security' ? 'security' : undefined;
  if (session.enrolmentOnly) {
    // Until a second factor is set up, the session opens nothing else: the page offers only that.
    return (
      <Layout session={session} area="security" onSignOut={() => endSession(false)}>
        <SecuritySection accountPath="/account" pageHeading enrolmentOnly onEnrolled={() => void loadSession().then(setSession, setError)} />
      </Layout>
    );
  }
  return (
    <Layout session={session} area={area} onSignOut={() => endSession(false)}>
      {location.path === '' ? <Loading /> : <Screen path={location.path} session={session} />}
      <ReauthenticationDialog accountPath="/account" />
    </Layout>
  );
}
