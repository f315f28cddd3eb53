import { selectRows } from '@svc/db';
import { eq, sql } from 'drizzle-orm';
import { loginThrottle, type IdentityExecutor } from '../../db/schema.js';

/** Five failures within 15 minutes lock a login name for 15 minutes (portal users and staff alike). */
export const LOCKOUT = { failures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

/** Seconds the address stays locked, or 0. Checked before the password, for known and unknown addresses alike. */
export async function lockedForSeconds(executor: IdentityExecutor, email: string, now: Date): Promise<number> {
  const [row] = await executor.select({ lockedUntil: loginThrottle.lockedUntil }).from(loginThrottle).where(eq(loginThrottle.email, email));
  const until = row?.lockedUntil?.getTime() ?? 0;
  return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
}

/**
 * Counts one failure atomically (concurrent wrong guesses cannot slip past the limit) and
 * returns whether this failure locked the address. A window older than 15 minutes, or an
 * expired lock, starts counting afresh.
 */
export async function recordFailure(executor: IdentityExecutor, email: string, now: Date): Promise<boolean> {
  const windowStart = new Date(now.getTime() - LOCKOUT.windowSeconds * 1000).toISOString();
  const lockUntil = new Date(now.getTime() + LOCKOUT.lockSeconds * 1000).toISOString();
  const nowText = now.toISOString();
  const fresh = sql`(t.window_started_at <= ${windowStart}::timestamptz or t.locked_until is not null)`;
  const [row] = await selectRows<{ failures: number; locked: boolean }>(
    executor,
    sql`insert into identity.login_throttle as t (email, window_started_at, failures, locked_until)
        values (${email}, ${nowText}::timestamptz, 1, null)
        on conflict (email) do update set
          failures = case when ${fresh} then 1 else t.failures + 1 end,
          window_started_at = case when ${fresh} then ${nowText}::timestamptz else t.window_started_at end,
          locked_until = case when not ${fresh} and t.failures + 1 >= ${LOCKOUT.failures} then ${lockUntil}::timestamptz else null end
        returning failures, locked_until is not null as locked`,
  );
  return row?.locked === true;
}

