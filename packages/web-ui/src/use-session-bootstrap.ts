import { useEffect, useRef, useState } from 'preact/hooks';
import { setUnauthenticatedListener } from './api.js';
import { useLanguage } from './i18n.js';
import { navigate, useLocation } from './router.js';
import type { SessionApi } from './session-api.js';

export interface SessionBootstrapOptions<Session> {
  /** The app's session API: how the session is loaded, and how the account is told the page's language (for its mails). */
  sessionApi: Pick<SessionApi<Session>, 'loadSession' | 'rememberLanguage'>;
  /** A public page (sign-in, password reset, invitation): nobody is asked for a session there. */
  onPublicPage: boolean;
  /** Where a visitor with no session, or whose session ended, is sent (an app path); by default the sign-in page, saying so when it ended. */
  signInHref?: (ended: boolean) => string;
  /** The browser path of the sign-in page, which an ended session does not leave. */
  signInPathname: string;
  /** Where the app's root path leads. */
  homePath: string;
}

const defaultSignInHref = (ended: boolean) => (ended ? '/sign-in?ended=1' : '/sign-in');

/**
 * The signed-in state of a web app: undefined while unknown, null when nobody is signed in.
 * Any call answering 401 (the session ended or was revoked) leads back to sign in; the app's
 * root leads home; a public page never asks, which would only log a 401 for a visitor.
 */
export function useSessionBootstrap<Session>(options: SessionBootstrapOptions<Session>) {
  const location = useLocation();
  const { language } = useLanguage();
  const { loadSession, rememberLanguage } = options.sessionApi;
  const signInHref = options.signInHref ?? defaultSignInHref;
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  // The language the account is known to have: a session found on page load is taken as knowing
  // it (no write per page view); a sign-in on this page or a switch while signed in is told.
  const languageKnown = useRef<string | undefined>(undefined);

  useEffect(() => {
    if (!session || languageKnown.current === language) return;
    languageKnown.current = language;
    void rememberLanguage(language);
  }, [session, language]);

  useEffect(() => {
    setUnauthenticatedListener(() => {
      setSession(null);
      if (!window.location.pathname.startsWith(options.signInPathname)) navigate(signInHref(true), { replace: true });
    });
  }, []);

  useEffect(() => {
    if (location.path === '') navigate(options.homePath, { replace: true });
  }, [location.path]);

  useEffect(() => {
    if (options.onPublicPage || session) return;
    let current = true;
    loadSession().then(
      (loaded) => {
        if (!current) return;
        if (loaded) languageKnown.current = language;
        setSession(loaded);
        if (!loaded) navigate(signInHref(false), { replace: true });
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => void (current = false);
  }, [options.onPublicPage, session]);

  /** What a sign-in, reset or invitation screen calls with the session it opened: keep it, then go to `path`. */
  const signedInTo = (path: string) => (signedIn: Session) => {
    languageKnown.current = undefined;
    setSession(signedIn);
    navigate(path, { replace: true });
  };
  return { session, setSession, error, setError, signedInTo };
}
