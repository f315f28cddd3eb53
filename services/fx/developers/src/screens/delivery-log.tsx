import { useEffect, useRef } from 'preact/hooks';
import type { DeliveryAttempt, Webhook } from '../api.js';
import type { Formatters } from '../format.js';
import { fill, type DashboardMessages } from '../i18n/messages.js';
import { ItemTable } from './table-parts.js';

/** What a webhook's last delivery says about it, in words: enabled or not, the last answer, failures in a row. */
export function HealthSummary({ t, webhook }: { t: DashboardMessages; webhook: Webhook }) {
  const last = webhook.lastDeliveryStatusCode;
  return (
    <span class="health" data-testid="health" data-active={String(webhook.isActive)} data-failures={webhook.consecutiveFailures} data-last-status={last ?? ''}>
      <span class={webhook.isActive ? 'state on' : 'state off'}>{webhook.isActive ? t.enabled : t.disabled}</span>
      <span>{last === null ? t.noDeliveryYet : last === 0 ? t.noAnswer : fill(t.lastStatus, { status: last })}</span>
      {webhook.consecutiveFailures > 0 && <span>{fill(t.failuresInRow, { count: webhook.consecutiveFailures })}</span>}
    </span>
  );
}

/** The webhook's last attempts, newest first, as the API keeps them. */
export function DeliveryLog({ t, format, webhook, attempts, onClose }: { t: DashboardMessages; format: Formatters; webhook: Webhook; attempts: DeliveryAttempt[] | null; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Opened from a row far above it (on a phone, a screen or two): take the reader, and the focus, there.
  useEffect(() => heading.current?.focus(), [webhook.id]);
  return (
    <section class="card wide" aria-labelledby="log-title" data-testid="delivery-log" data-webhook={webhook.id}>
      <h2 id="log-title" ref={heading} tabIndex={-1}>
        {t.deliveriesTitle}: <bdi dir="ltr">{webhook.label ?? webhook.webhookUrl}</bdi>
      </h2>
      {attempts === null ? (
        <p class="loading">…</p>
      ) : attempts.length === 0 ? (
        <p>{t.noDeliveries}</p>
      ) : (
        <ItemTable className="attempts" testId="attempts" columns={[t.time, t.kind, t.status, t.latency, t.error]}>
          {attempts.map((attempt, index) => (
            <tr key={`${attempt.attemptedUtc}-${index}`} data-kind={attempt.kind} data-status={attempt.statusCode}>
              <td data-label={t.time}>
                <time dateTime={attempt.attemptedUtc}>{format.moment(attempt.attemptedUtc)}</time>
              </td>
              <td data-label={t.kind}>{t.kinds[attempt.kind]}</td>
              <td data-label={t.status}>{attempt.statusCode === 0 ? '—' : attempt.statusCode}</td>
              <td data-label={t.latency}>{attempt.latencyMs === null ? '—' : fill(t.milliseconds, { ms: format.whole(attempt.latencyMs) })}</td>
              <td data-label={t.error}>{attempt.error ? <bdi dir="ltr">{attempt.error}</bdi> : '—'}</td>
            </tr>
          ))}
        </ItemTable>
      )}
      <button type="button" onClick={onClose}>
        {t.close}
      </button>
    </section>
  );
}
