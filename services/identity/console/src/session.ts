import type { StaffSession } from '@svc/identity-client/staff-types';
import { createSessionApi } from '@svc/web-ui/session-api';

export type { StaffSession } from '@svc/identity-client/staff-types';

export const sessionApi = createSessionApi<StaffSession>('');
export const { loadSession, signIn, completeSecondStep, signOut } = sessionApi;
