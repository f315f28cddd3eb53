import { api, ApiError } from './api.js';
import { outcomeOf, type SecondStepProof, type SignInOutcome } from './sign-in/sign-in-form.js';

export interface SessionApi<Session> {
  /** The current session, or null when nobody is signed in (401). */
  loadSession: () => Promise<Session | null>;
  signIn: (email: string, password: string) => Promise<SignInOutcome>;
  completeSecondStep: (proof: SecondStepProof) => Promise<void>;
  /** Ends the session server-side (the cookie is cleared by the answer); an already-ended session is fine. */
  signOut: () => Promise<void>;
  /** Keeps the page's language as the one the account's mails are written in; best effort, a failure only leaves the old one. */
  rememberLanguage: (language: string) => Promise<void>;
}

/**
 * The cookie session of one app, by the prefix of its routes under the app's API base
 * (`/portal` for the portal, `''` for the console, whose API base is the staff API itself).
 * None of these calls reports a 401 to the app's unauthenticated listener: a sign-in page
 * asking "who am I?" is not a session that ended.
 */
export function createSessionApi<Session>(prefix: string): SessionApi<Session> {
  return {
    loadSession: async () => {
      try {
        return await api<Session>('GET', `${prefix}/session`, { quietUnauthenticated: true });
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    signIn: async (email, password) => {
      return outcomeOf(await api<{ secondFactorRequired?: boolean }>('POST', `${prefix}/login`, { body: { email, password }, quietUnauthenticated: true }));
    },
    completeSecondStep: async (proof) => {
      await api('POST', `${prefix}/login/second-factor`, { body: proof, quietUnauthenticated: true });
    },
    signOut: async () => {
      try {
        await api('POST', `${prefix}/logout`, { quietUnauthenticated: true });
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 401)) throw error;
      }
    },
    rememberLanguage: async (language) => {
      try {
        await api('PUT', `${prefix}/account/language`, { body: { language }, quietUnauthenticated: true });
      } catch {
        // The next switch or password sign-in stores it; the page itself is already in the new language.
      }
    },
  };
}
