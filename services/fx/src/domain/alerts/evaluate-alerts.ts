import { selectRows } from '@svc/db';
import { currentTraceparent, notifyWorkers } from '@svc/outbox';
import { sql, type SQL } from 'drizzle-orm';
import { SUPPORTED_CURRENCIES } from '../rates/currencies.js';
import type { FxExecutor } from '../../db/executor.js';
import type { RateChange, RateChangeListener } from '../rates/rate-types.js';

export const ALERT_TYPE_NAMES = ['ABOVE', 'BELOW', 'CHANGE_INCREASE', 'CHANGE_DECREASE'] as const;
export const RATE_ALERT_TOPIC = 'rate_alert';
/** NOTIFY channel on which committed firings wake every delivery worker, in any process. */
export const ALERT_DELIVERY_CHANNEL = 'fx_alert_deliveries';
/** Attempts per firing when the caller does not say (ALERT_RETRY_SCHEDULE_MS has three entries by default). */
export const DEFAULT_ALERT_ATTEMPTS = 3;

/** The listener every rate writer is given: evaluates the alerts on the changed rate in the writer's transaction. */
export function rateAlertListener(maxAttempts: number = DEFAULT_ALERT_ATTEMPTS): RateChangeListener {
  return (tx, change, now) => evaluateAlerts(tx, change, { now, maxAttempts });
}

/**
 * Fires the alerts an update crosses and enqueues their deliveries, inside the caller's
 * transaction (the rate change, the alert state and the deliveries commit together).
 * Each branch is one range scan of rate_alerts_evaluation_idx (currency, source, type,
 * trigger level) or of the small primed index, never a scan of every alert:
 * - ABOVE: trigger level in (previous, current]; BELOW: in [current, previous);
 * - CHANGE_INCREASE: trigger level ≤ current; CHANGE_DECREASE: trigger level ≥ current
 *   (the level is reference × (1 ± percent/100); firing resets the reference to current);
 * - primed (new or re-enabled) ABOVE/BELOW: the condition holds now.
 * Returns the number of deliveries enqueued.
 */
export async function evaluateAlerts(tx: FxExecutor, change: RateChange, options: { now: Date; maxAttempts?: number }): Promise<number> {
  const { currency, source, previous } = change;
  const current = sql`${change.current}::numeric`;
  const scope = sql`is_active and currency = ${currency} and source = ${source}`;
  const branches: SQL[] = [
    sql`select id from fx.rate_alerts where ${scope} and alert_type = 2 and trigger_level <= ${current}`,
    sql`select id from fx.rate_alerts where ${scope} and alert_type = 3 and trigger_level >= ${current}`,
    sql`select id from fx.rate_alerts where ${scope} and primed and ((alert_type = 0 and trigger_level <= ${current}) or (alert_type = 1 and trigger_level >= ${current}))`,
  ];
  if (previous !== null) {
    const before = sql`${previous}::numeric`;
    branches.push(
      sql`select id from fx.rate_alerts where ${scope} and not primed and alert_type = 0 and trigger_level > ${before} and trigger_level <= ${current}`,
      sql`select id from fx.rate_alerts where ${scope} and not primed and alert_type = 1 and trigger_level < ${before} and trigger_level >= ${current}`,
    );
  }
  const nowIso = options.now.toISOString();
  // Rates in the payload are rounded as GET /rates/latest serves them; comparisons above use the exact values.
  const decimals = SUPPORTED_CURRENCIES[currency] ?? 4;
  const [result] = await selectRows<{ enqueued: number }>(
    tx,
    sql`with candidates as (${sql.join(branches, sql` union `)}),
        fired as (
          update fx.rate_alerts a set
            last_triggered_utc = ${nowIso}::timestamptz,
            primed = false,
            reference_rate = case when a.alert_type in (2, 3) then ${current} else a.reference_rate end,
            trigger_level = case
              when a.alert_type = 2 then ${current} * (1 + a.threshold_value / 100)
              when a.alert_type = 3 then ${current} * (1 - a.threshold_value / 100)
              else a.trigger_level end
          from candidates c where a.id = c.id
          returning a.id, a.currency, a.source, a.alert_type, a.threshold_value, a.label
        ),
        enqueued as (
          insert into fx.alert_deliveries (topic, subscription_id, payload, status, attempt_count, max_attempts, next_attempt_at, created_at, traceparent)
          select ${RATE_ALERT_TOPIC}, f.id,
            json_build_object(
              'event', ${RATE_ALERT_TOPIC}::text,
              'currency', f.currency,
              'source', f.source,
              'alertType', (array['ABOVE', 'BELOW', 'CHANGE_INCREASE', 'CHANGE_DECREASE'])[f.alert_type + 1],
              'threshold', trim_scale(f.threshold_value),
              'currentRate', trim_scale(round(${current}, ${decimals}::int)),
              'previousRate', trim_scale(round(${previous}::numeric, ${decimals}::int)),
              'label', coalesce(f.label, ''),
              'webhookId', f.id,
              'timestampUtc', ${nowIso}::text
            )::text,
            'pending', 0, ${options.maxAttempts ?? DEFAULT_ALERT_ATTEMPTS}, ${nowIso}::timestamptz, ${nowIso}::timestamptz, ${currentTraceparent()}::text
          from fired f
          returning 1
        )
        select count(*)::int as enqueued from enqueued`,
  );
  if (Number(result?.enqueued ?? 0) > 0) await notifyWorkers(tx, ALERT_DELIVERY_CHANNEL);
  // Whatever fired or not, this update was "the next update" for alerts created since the last one.
  await tx.execute(sql`update fx.rate_alerts set primed = false where ${scope} and primed`);
  // Percent alerts created before any rate existed take this rate as their reference.
  await tx.execute(
    sql`update fx.rate_alerts set reference_rate = ${current},
          trigger_level = case when alert_type = 2 then ${current} * (1 + threshold_value / 100) else ${current} * (1 - threshold_value / 100) end
        where ${scope} and alert_type in (2, 3) and trigger_level is null`,
  );
  return Number(result?.enqueued ?? 0);
}
