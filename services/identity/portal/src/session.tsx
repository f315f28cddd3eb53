import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { createSessionApi } from '@svc/web-ui/session-api';
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

export const sessionApi = createSessionApi<PortalSession>('/portal');
export const { loadSession, signIn, completeSecondStep, signOut } = sessionApi;
