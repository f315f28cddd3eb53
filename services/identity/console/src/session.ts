import type { StaffSession } from '@svc/identity-client/staff-types';
import { createSessionApi } from '../../web-shared/session-api.js';

export type { StaffSession } from '@svc/identity-client/staff-types';

export const { loadSession, signIn, completeSecondStep, signOut } = createSessionApi<StaffSession>('');
