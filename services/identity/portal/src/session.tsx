import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { api, ApiError } from '../../web-shared/api.js';
import { outcomeOf, type SecondStepProof, type SignInOutcome } from '../../web-shared/sign-in/sign-in-form.js';
import type { PortalSessionInfo } from '@svc/identity-client/types';

export type { PortalRole } from '@svc/identity-client/types';

/** GET /portal/session */
export type PortalSession = PortalSessionInfo;

export interface SessionValue {
  user: PortalSession['user'];
  tenant: PortalSession['tenant'];
  /** PartnerAdmin: may register, revoke, edit and cancel. PartnerReadOnly sees the same screens without those buttons (the server refuses them anyway). */
  canWrite: boolean;
}

const SessionContext = createContext<SessionValue | null>(null);

export function SessionProvider(props: { session: PortalSession; children: ComponentChildren }) {
  const { user, tenant } = props.session;
  return <SessionContext.Provider value={{ user, tenant, canWrite: user.role === 'PartnerAdmin' }}>{props.children}</SessionContext.Provider>;
}

/** The signed-in user and tenant; every screen except sign-in is rendered inside a session. */
export function useSession(): SessionValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession() outside a signed-in portal screen');
  return session;
}

/** The current session, or null when nobody is signed in (401). */
export async function loadSession(): Promise<PortalSession | null> {
  try {
    return await api<PortalSession>('GET', '/portal/session', { quietUnauthenticated: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<SignInOutcome> {
  return outcomeOf(await api<{ secondFactorRequired?: boolean }>('POST', '/portal/login', { body: { email, password }, quietUnauthenticated: true }));
}

export async function completeSecondStep(proof: SecondStepProof): Promise<void> {
  await api('POST', '/portal/login/second-factor', { body: proof, quietUnauthenticated: true });
}

/** Ends the session server-side (the cookie is cleared by the answer); an already-ended session is fine. */
export async function signOut(): Promise<void> {
  try {
    await api('POST', '/portal/logout', { quietUnauthenticated: true });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
}
