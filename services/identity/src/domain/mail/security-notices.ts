import type { IdentityExecutor } from '../../db/schema.js';
import type { FactorAccount } from '../accounts/second-factors/accounts.js';
import type { IdentityMailer } from './identity-mailer.js';
import type { SecurityChange } from './identity-mails.js';

/** Who tells the account about a change to its sign-in, and in which language (the request's). */
export interface SecurityNotices {
  mailer: IdentityMailer;
  language: string | null | undefined;
}

/** Queues the notice in the caller's transaction, so it goes out exactly when the change commits. */
export async function queueSecurityNotice(tx: IdentityExecutor, notices: SecurityNotices | undefined, account: FactorAccount, change: SecurityChange, now: Date): Promise<void> {
  if (!notices) return;
  const [kind, id] = account.account.split(':');
  await notices.mailer.enqueue(
    tx,
    { to: account.email, language: notices.language, template: 'security-notice', data: { realm: kind === 'staff' ? 'console' : 'portal', email: account.email, change, changedAt: now.toISOString() }, subjectId: id ?? null },
    now,
  );
}
