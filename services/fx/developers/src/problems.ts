import { ApiProblem } from './api.js';
import { fill, type Messages } from './i18n/messages.js';

/** What a refused call tells the reader: the screen's own message for its status, else the server's detail. */
export function problemText(error: unknown, t: Messages, own: Partial<Record<number, string>> = {}): string {
  if (!(error instanceof ApiProblem)) return fill(t.failed, { status: '?', detail: String(error) });
  if (error.status === 0) return t.offline;
  return own[error.status] ?? fill(t.failed, { status: error.status, detail: error.detail });
}

/** Signed in, as far as this browser knows: set on sign-in, cleared on sign-out or a 401, so a first visit asks nothing it knows will be refused. */
const SIGNED_IN_HINT = 'fx-developer-signed-in';
export const signedInHint = {
  read: () => localStorage.getItem(SIGNED_IN_HINT) === '1',
  set: (on: boolean) => (on ? localStorage.setItem(SIGNED_IN_HINT, '1') : localStorage.removeItem(SIGNED_IN_HINT)),
};
