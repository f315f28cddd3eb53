import { LANGUAGE_NAMES, RATE_LANGUAGES, RIGHT_TO_LEFT_LANGUAGES, type DeveloperScreen, type Language } from '@svc/fx-client/types';
import { PageHeader } from '@svc/web-ui';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, type DashboardConfig, type Me, type NewClient } from './api.js';
import { formattersFor } from './format.js';
import { MESSAGES } from './i18n/messages.js';
import { signedInHint } from './problems.js';
import { needsNoSession, pathOf, routeOf, screenFor, SIGNED_IN_SCREENS, type Route } from './routes.js';
import { AlertsScreen } from './screens/alerts.js';
import { KeysScreen } from './screens/keys.js';
import { ForgotScreen, ResetScreen } from './screens/password-reset.js';
import { PlanScreen } from './screens/plan.js';
import { SignInScreen, SignUpScreen } from './screens/sign-in.js';
import { UsageScreen } from './screens/usage.js';
import { VerifyScreen } from './screens/verify.js';

function applyLanguage(language: Language) {
  document.documentElement.lang = language;
  document.documentElement.dir = RIGHT_TO_LEFT_LANGUAGES.has(language) ? 'rtl' : 'ltr';
  document.title = `fx · ${MESSAGES[language].title}`;
}

export function App() {
  const [route, setRoute] = useState<Route>(() => routeOf(location.pathname));
  // undefined while not known yet; null signed out.
  const [session, setSession] = useState<Me | null | undefined>(needsNoSession(route) ? null : undefined);
  const [config, setConfig] = useState<DashboardConfig | null>(null);
  // The key pair just made: its private key lives only here, so a reload never shows it again.
  const [fresh, setFresh] = useState<NewClient | null>(null);
  // Set by a reset link's new password, for the sign-in screen that follows; any other move clears it.
  const [passwordChanged, setPasswordChanged] = useState(false);
  const { language } = route;
  const t = MESSAGES[language];
  const format = formattersFor(language);

  const go = useCallback((screen: DeveloperScreen | null, next: Language = language, replace = false) => {
    const path = pathOf(next, screen);
    if (path !== location.pathname) {
      if (replace) history.replaceState(null, '', path);
      else history.pushState(null, '', path);
    }
    setRoute({ language: next, screen });
    if (screen !== 'sign-in') setPasswordChanged(false);
    document.getElementById('main')?.focus();
  }, [language]);

  useEffect(() => {
    applyLanguage(language);
    const onPopState = () => setRoute(routeOf(location.pathname));
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, [language]);

  useEffect(() => {
    void api.config().then(setConfig, () => setConfig(null));
    if (session !== undefined) return;
    if (!signedInHint.read()) return setSession(null);
    api.me().then(setSession, (error: unknown) => {
      if (error instanceof ApiProblem && error.status === 401) signedInHint.set(false);
      setSession(null);
    });
    // Once, on arrival: later changes of session come from the screens.
  }, []);

  const signedIn = (me: Me, created?: NewClient) => {
    signedInHint.set(true);
    setSession(me);
    setFresh(created ?? null);
    go('keys');
  };
  const signOut = async () => {
    await api.signOut().catch(() => undefined);
    signedInHint.set(false);
    setSession(null);
    setFresh(null);
    go('sign-in');
  };
  /** A reset ends every session of the account, perhaps this browser's: sign in again, with the new password. */
  const passwordReset = () => {
    signedInHint.set(false);
    setSession(null);
    setFresh(null);
    setPasswordChanged(true);
    go('sign-in', language, true);
  };
  /** A 401 on a signed-in screen: the session ended elsewhere (expired, signed out in another tab). */
  const sessionEnded = () => {
    signedInHint.set(false);
    setSession(null);
    go('sign-in', language, true);
  };

  const screen = needsNoSession(route) ? route.screen : session === undefined ? null : screenFor(route.screen, session !== null);
  useEffect(() => {
    // A screen shown in place of the one asked for (sign-in instead of keys): the address says which.
    if (screen !== null && route.screen !== null && screen !== route.screen) go(screen, language, true);
  }, [screen, route.screen, language, go]);

  return (
    <>
      <PageHeader
        skipTo="main"
        skipLabel={t.skipToContent}
        title={t.title}
        lead={t.lead}
        language={{ label: t.language, value: language, languages: RATE_LANGUAGES, names: LANGUAGE_NAMES, onChange: (next) => go(route.screen, next), testId: 'language' }}
      />
      {session && (
        <nav class="dashboard-nav" aria-label={t.screens}>
          <ul>
            {SIGNED_IN_SCREENS.map((item) => (
              <li key={item}>
                <a
                  href={pathOf(language, item)}
                  aria-current={screen === item ? 'page' : undefined}
                  onClick={(event) => {
                    event.preventDefault();
                    go(item);
                  }}
                >
                  {t[item]}
                </a>
              </li>
            ))}
          </ul>
          <p class="account">
            <span data-testid="signed-in-as">
              {/* The address isolated, so a right-to-left sentence does not reorder its parts. */}
              {t.signedInAs.split('{email}')[0]}
              <bdi>{session.email}</bdi>
              {t.signedInAs.split('{email}')[1]}
            </span>
            <button type="button" class="link-button" onClick={() => void signOut()} data-testid="sign-out">
              {t.signOut}
            </button>
          </p>
        </nav>
      )}
      <main id="main" tabIndex={-1} class="dashboard" data-screen={screen ?? 'loading'}>
        {screen === null && <p class="loading">…</p>}
        {screen === 'verify' && <VerifyScreen t={t} onVerified={(verified) => signedIn(verified, verified.client)} go={go} />}
        {screen === 'sign-up' && <SignUpScreen t={t} language={language} config={config} go={go} />}
        {screen === 'sign-in' && <SignInScreen t={t} onSignedIn={(me) => signedIn(me)} go={go} notice={passwordChanged ? t.passwordChanged : undefined} />}
        {screen === 'forgot' && <ForgotScreen t={t} go={go} />}
        {screen === 'reset' && <ResetScreen t={t} go={go} onPasswordChanged={passwordReset} />}
        {screen === 'keys' && session && <KeysScreen t={t} format={format} me={session} config={config} fresh={fresh} onCreated={setFresh} onSessionEnded={sessionEnded} />}
        {screen === 'alerts' && session && <AlertsScreen t={t} format={format} onSessionEnded={sessionEnded} />}
        {screen === 'usage' && session && <UsageScreen t={t} format={format} onSessionEnded={sessionEnded} />}
        {screen === 'plan' && session && <PlanScreen t={t} format={format} me={session} />}
      </main>
      <footer class="page-footer">
        <p>
          <a href={language === 'ar' ? '/' : `/${language}`}>{t.ratesPage}</a> · <a href="/docs">{t.apiDocs}</a>
        </p>
      </footer>
    </>
  );
}
