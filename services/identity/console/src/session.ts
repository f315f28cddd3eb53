import { api, ApiError } from '../../web-shared/api.js';

export type StaffRole = 'Reviewer' | 'ReviewLead';

/** GET /api/internal/v1/session */
export interface StaffSession {
  staff: { id: string; email: string; role: StaffRole };
  expiresAt: string;
  idleTimeoutSeconds: number;
}

export async function loadSession(): Promise<StaffSession | null> {
  try {
    return await api<StaffSession>('GET', '/session', { quietUnauthenticated: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(email: string, password: string): Promise<void> {
  await api('POST', '/login', { body: { email, password }, quietUnauthenticated: true });
}

export async function signOut(): Promise<void> {
  try {
    await api('POST', '/logout', { quietUnauthenticated: true });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
}
