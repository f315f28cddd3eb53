import { CountBatcher } from '@svc/service-kit';
import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import type { FxExecutor } from '../../db/executor.js';
import { apiClients, clientDailyUsage } from '../../db/schema.js';

const DAY_MS = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Daily keyed requests per client (every route a key calls, /client/* included), counted in memory and upserted in one statement per interval (and on
 * close), so a request never waits for, or causes, a write of its own. Keys are `clientId/day`;
 * figures are [requests, limited].
 */
export function createDailyUsage(db: FxExecutor, options: { flushIntervalMs: number; onError: (error: unknown) => void }) {
  const batcher = new CountBatcher({
    width: 2,
    flushIntervalMs: options.flushIntervalMs,
    onError: options.onError,
    write: async (entries) => {
      const rows = [...entries].map(([key, [requests = 0, limited = 0]]) => {
        const [clientId = '', day = ''] = key.split('/');
        return { clientId, day, requests, limited };
      });
      await db
        .insert(clientDailyUsage)
        .values(rows)
        .onConflictDoUpdate({
          target: [clientDailyUsage.clientId, clientDailyUsage.day],
          set: { requests: sql`${clientDailyUsage.requests} + excluded.requests`, limited: sql`${clientDailyUsage.limited} + excluded.limited` },
        });
    },
  });
  return {
    batcher,
    /** One keyed request of a client at `atMs`, refused (429) or not. */
    record: (clientId: string, atMs: number, allowed: boolean): void => batcher.add(`${clientId}/${utcDate(atMs)}`, allowed ? [1, 0] : [1, 1]),
  };
}
export type DailyUsage = ReturnType<typeof createDailyUsage>;

/** What the limiter holds for one client's monthly window: null for a plan without a quota. */
export type MonthWindow = { count: number; quota: number; resetUtc: Date } | null;

/**
 * The account's usage over all its clients. Month to date is read from the limiter's own counters
 * (what X-Quota-Remaining answers, so a request beyond the quota counts as the quota, as the headers
 * do); a plan without a quota falls back to the daily figures of this month.
 */
export async function accountUsage(
  db: FxExecutor,
  accountId: string,
  input: { days: number; now: Date; planQuota: number | null; monthWindow: (client: { id: string; plan: string }) => Promise<MonthWindow> },
) {
  const clients = await db.select({ id: apiClients.id, plan: apiClients.plan }).from(apiClients).where(eq(apiClients.accountId, accountId));
  const todayMs = Date.UTC(input.now.getUTCFullYear(), input.now.getUTCMonth(), input.now.getUTCDate());
  const monthStart = utcDate(Date.UTC(input.now.getUTCFullYear(), input.now.getUTCMonth(), 1));
  const firstDay = utcDate(todayMs - (input.days - 1) * DAY_MS);
  const since = firstDay < monthStart ? firstDay : monthStart;
  const ids = clients.map((client) => client.id);
  const rows = ids.length
    ? await db
        .select({ day: clientDailyUsage.day, requests: sql<number>`sum(${clientDailyUsage.requests})::int`, limited: sql<number>`sum(${clientDailyUsage.limited})::int` })
        .from(clientDailyUsage)
        .where(and(inArray(clientDailyUsage.clientId, ids), gte(clientDailyUsage.day, since)))
        .groupBy(clientDailyUsage.day)
    : [];
  const byDay = new Map(rows.map((row) => [row.day, row]));
  let monthToDate = 0;
  let monthlyQuota: number | null = 0;
  // The windows are independent reads (one Redis round trip each): ask for them together.
  const windows = await Promise.all(clients.map((client) => input.monthWindow(client)));
  for (const window of windows) {
    if (window) {
      monthToDate += Math.min(window.count, window.quota);
      if (monthlyQuota !== null) monthlyQuota += window.quota;
    } else {
      monthlyQuota = null;
    }
  }
  if (monthlyQuota === null) monthToDate = rows.filter((row) => row.day >= monthStart).reduce((sum, row) => sum + row.requests, 0);
  const days = Array.from({ length: input.days }, (_, i) => {
    const date = utcDate(todayMs - (input.days - 1 - i) * DAY_MS);
    const row = byDay.get(date);
    return { date, requests: row?.requests ?? 0, limited: row?.limited ?? 0 };
  });
  const resetUtc = new Date(Date.UTC(input.now.getUTCFullYear(), input.now.getUTCMonth() + 1, 1)).toISOString();
  return { monthToDate, monthlyQuota: clients.length ? monthlyQuota : input.planQuota, resetUtc, days };
}
