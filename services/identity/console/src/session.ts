import { api, ApiError } from '../../web-shared/api.js';
import { outcomeOf, type SecondStepProof, type SignInOutcome } from '../../web-shared/sign-in/sign-in-form.js';
import type { StaffSession } from '@svc/identity-client/staff-types';

export type { StaffSession } from '@svc/identity-client/staff-types';

export async function loadSession(): Promise<StaffSession | null> {
  try {
    return await api<StaffSession>('GET', '/session', { quietUnauthenticated: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<SignInOutcome> {
  return outcomeOf(await api<{ secondFactorRequired?: boolean }>('POST', '/login', { body: { email, password }, quietUnauthenticated: true }));
}

export async function completeSecondStep(proof: SecondStepProof): Promise<void> {
  await api('POST', '/login/second-factor', { body: proof, quietUnauthenticated: true });
}

export async function signOut(): Promise<void> {
  try {
    await api('POST', '/logout', { quietUnauthenticated: true });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
}
