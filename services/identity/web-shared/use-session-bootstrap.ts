import { useEffect, useState } from 'preact/hooks';
import { setUnauthenticatedListener } from './api.js';
import { navigate, useLocation } from './router.js';

export interface SessionBootstrapOptions<Session> {
  loadSession: () => Promise<Session | null>;
  /** A public page (sign-in, password reset, invitation): nobody is asked for a session there. */
  onPublicPage: boolean;
  /** Where a visitor with no session, or whose session ended, is sent (an app path). */
  signInHref: (ended: boolean) => string;
  /** The browser path of the sign-in page, which an ended session does not leave. */
  signInPathname: string;
  /** Where the app's root path leads. */
  homePath: string;
}

/**
 * The signed-in state of a web app: undefined while unknown, null when nobody is signed in.
 * Any call answering 401 (the session ended or was revoked) leads back to sign in; the app's
 * root leads home; a public page never asks, which would only log a 401 for a visitor.
 */
export function useSessionBootstrap<Session>(options: SessionBootstrapOptions<Session>) {
  const location = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    setUnauthenticatedListener(() => {
      setSession(null);
      if (!window.location.pathname.startsWith(options.signInPathname)) navigate(options.signInHref(true), { replace: true });
    });
  }, []);

  useEffect(() => {
    if (location.path === '') navigate(options.homePath, { replace: true });
  }, [location.path]);

  useEffect(() => {
    if (options.onPublicPage || session) return;
    let current = true;
    options.loadSession().then(
      (loaded) => {
        if (!current) return;
        setSession(loaded);
        if (!loaded) navigate(options.signInHref(false), { replace: true });
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => void (current = false);
  }, [options.onPublicPage, session]);

  /** What a sign-in, reset or invitation screen calls with the session it opened: keep it, then go to `path`. */
  const signedInTo = (path: string) => (signedIn: Session) => {
    setSession(signedIn);
    navigate(path, { replace: true });
  };
  return { session, setSession, error, setError, signedInTo };
}
