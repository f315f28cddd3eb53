import { and, eq, isNull, ne, or } from 'drizzle-orm';
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

/** The language the account last chose (at sign-in or with the language switch), or null when it never said. */
export async function preferredLanguage(tx: IdentityExecutor, kind: 'user' | 'staff', id: string): Promise<string | null> {
  const table = kind === 'staff' ? staffUsers : portalUsers;
  const [row] = await tx.select({ language: table.preferredLanguage }).from(table).where(eq(table.id, id));
  return row?.language ?? null;
}

/**
 * Keeps the language the person chose for their later mails. The row is written only when it
 * changes, so switching back and forth or a repeated call costs no write; tenant-scoped for portal users.
 */
export async function rememberPreferredLanguage(db: IdentityExecutor, account: FactorAccount, language: string): Promise<void> {
  const [kind, id] = account.account.split(':');
  if (!id) return;
  if (kind === 'staff') {
    await db
      .update(staffUsers)
      .set({ preferredLanguage: language })
      .where(and(eq(staffUsers.id, id), or(isNull(staffUsers.preferredLanguage), ne(staffUsers.preferredLanguage, language))));
    return;
  }
  if (!account.tenantId) return;
  await db
    .update(portalUsers)
    .set({ preferredLanguage: language })
    .where(and(eq(portalUsers.id, id), eq(portalUsers.tenantId, account.tenantId), or(isNull(portalUsers.preferredLanguage), ne(portalUsers.preferredLanguage, language))));
}
