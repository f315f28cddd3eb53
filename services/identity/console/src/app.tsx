import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setUnauthenticatedListener } from '../../web-shared/api.js';
import { ErrorNotice, LanguageToggle, Loading } from '../../web-shared/components/index.js';
import { useLanguage, useMessages } from '../../web-shared/i18n.js';
import { Link, navigate, useLocation } from '../../web-shared/router.js';
import { SignInForm } from '../../web-shared/sign-in/sign-in-form.js';
import { consoleMessages } from './messages.js';
import { SecuritySection } from '../../web-shared/second-factors/security-section.js';
import { ReauthenticationDialog } from '../../web-shared/second-factors/reauthentication-dialog.js';
import { CaseReview } from './screens/case-review.js';
import { HistoryScreen } from './screens/history.js';
import { QueueScreen } from './screens/queue.js';
import { completeSecondStep, loadSession, type StaffSession, signIn, signOut } from './session.js';
import { useIdleSignOut } from './use-idle.js';
import { PasswordResetScreen } from '../../web-shared/password-reset/password-reset-screen.js';

const CASE_PATH = /^\/cases\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function Layout(props: { session: StaffSession; area: 'queue' | 'history' | 'security' | undefined; onSignOut: () => void; children: ComponentChildren }) {
  const t = useMessages(consoleMessages);
  const { language } = useLanguage();
  const { staff } = props.session;
  useEffect(() => {
    document.title = props.area ? `${t(props.area)} · ${t('console')}` : t('console');
  }, [props.area, language]);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        {t('skip')}
      </a>
      <header class="top-bar">
        <div class="brand">
          <span class="brand-name">{t('console')}</span>
        </div>
        <div class="account">
          <span class="visually-hidden">{t('account')}</span>
          <span class="user-email" data-testid="staff-email">
            {staff.email}
          </span>
          <span class={`role role-${staff.role}`}>{t(`role_${staff.role}`)}</span>
          <LanguageToggle />
          <button type="button" class="button button-quiet" onClick={props.onSignOut}>
            {t('signOut')}
          </button>
        </div>
      </header>
      <nav class="sections" aria-label={t('navigation')}>
        <ul>
          {(['queue', 'history', 'security'] as const).map((area) => (
            <li key={area}>
              <Link href={`/${area}`} class="section-link" aria-current={props.area === area ? 'page' : undefined}>
                {t(area)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}

function Screen({ path, session }: { path: string; session: StaffSession }) {
  const t = useMessages(consoleMessages);
  if (path === '/queue') return <QueueScreen />;
  if (path === '/history') return <HistoryScreen session={session} />;
  if (path === '/security') return <SecuritySection accountPath="/account" />;
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
  const [session, setSession] = useState<StaffSession | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const onSignInPage = location.path === '/sign-in' || location.path === '/password-reset';

  useEffect(() => {
    setUnauthenticatedListener(() => {
      setSession(null);
      if (!window.location.pathname.startsWith('/console/sign-in')) navigate('/sign-in?ended=1', { replace: true });
    });
  }, []);
  useEffect(() => {
    if (location.path === '') navigate('/queue', { replace: true });
  }, [location.path]);
  useEffect(() => {
    if (onSignInPage || session) return;
    let current = true;
    loadSession().then(
      (loaded) => {
        if (!current) return;
        setSession(loaded);
        if (!loaded) navigate('/sign-in', { replace: true });
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => void (current = false);
  }, [onSignInPage, session]);

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
    return (
      <PasswordResetScreen
        apiPath="/password-reset"
        loadSession={loadSession}
        onSignedIn={(signedIn) => {
          setSession(signedIn);
          navigate('/queue', { replace: true });
        }}
      />
    );
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
          onSignedIn={(signedIn) => {
            setSession(signedIn);
            navigate('/queue', { replace: true });
          }}
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
        <SecuritySection accountPath="/account" enrolmentOnly onEnrolled={() => void loadSession().then(setSession, setError)} />
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
