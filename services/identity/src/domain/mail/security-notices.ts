import { eq } from 'drizzle-orm';
import { portalUsers, staffUsers, type IdentityExecutor } from '../../db/schema.js';
import type { FactorAccount } from '../accounts/second-factors/accounts.js';
import type { IdentityMailer } from './identity-mailer.js';
import type { SecurityChange } from './identity-mails.js';

/** Who tells the account about a change to its sign-in, and the request's language (used when the account has none stored). */
export interface SecurityNotices {
  mailer: IdentityMailer;
  language: string | null | undefined;
}

/** Queues the notice in the caller's transaction, so it goes out exactly when the change commits. */
export async function queueSecurityNotice(tx: IdentityExecutor, notices: SecurityNotices | undefined, account: FactorAccount, change: SecurityChange, now: Date): Promise<void> {
  if (!notices) return;
  const [kind, id] = account.account.split(':');
  // The page that made the change says its language; a bare API call falls back to the stored one.
  const language = notices.language || (id ? await preferredLanguage(tx, kind === 'staff' ? 'staff' : 'user', id) : null);
  await notices.mailer.enqueue(
    tx,
    { to: account.email, language, template: 'security-notice', data: { realm: kind === 'staff' ? 'console' : 'portal', email: account.email, change, changedAt: now.toISOString() }, subjectId: id ?? null },
    now,
  );
}

/** The language the account last signed in with, or null when it never said (or is unknown). */
export async function preferredLanguage(tx: IdentityExecutor, kind: 'user' | 'staff', id: string): Promise<string | null> {
  const table = kind === 'staff' ? staffUsers : portalUsers;
  const [row] = await tx.select({ language: table.preferredLanguage }).from(table).where(eq(table.id, id));
  return row?.language ?? null;
}
