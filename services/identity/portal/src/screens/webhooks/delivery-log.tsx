import { useEffect, useState } from 'preact/hooks';
import { EmptyState, ErrorNotice, Pagination } from '@svc/web-ui/components';
import { formatDateTime, formatNumber } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { Link, setQuery, useLocation } from '@svc/web-ui/router';
import { webhookMessages } from './messages.js';
import { DELIVERY_PAGE_SIZE, isUnfinished, listDeliveries, retryDelivery, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, type DeliveryFilter, type DeliveryPage, type DeliveryStatus, type WebhookDelivery } from './webhook-api.js';

/** How often the log asks again while a delivery on screen is still scheduled or being sent. */
const POLL_MS = 1000;

const STATUS_BADGE: Record<DeliveryStatus, string> = { pending: 'badge-progress', in_flight: 'badge-progress', succeeded: 'badge-success', failed: 'badge-danger' };

/** The filter lives in the URL (`?outcome=&event=&page=`), so a filtered log can be reloaded or shared. */
function filterFromQuery(query: URLSearchParams): DeliveryFilter {
  const outcome = query.get('outcome');
  const eventType = query.get('event');
  const page = Number(query.get('page') ?? '1');
  return {
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    succeeded: outcome === 'true' || outcome === 'false' ? outcome : undefined,
    eventType: eventType && ([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE] as string[]).includes(eventType) ? eventType : undefined,
  };
}

interface Props {
  endpointId: string;
  /** Retries need an active endpoint and the PartnerAdmin role. */
  canRetry: boolean;
  /** Paused endpoints keep their queue waiting: polling for it would never end. */
  poll: boolean;
  /** Bumped by the parent after a test ping or a recovery, so the log shows what they queued. */
  refreshKey: number;
}

export function DeliveryLog({ endpointId, canRetry, poll, refreshKey }: Props) {
  const t = useMessages(webhookMessages);
  const { language } = useLanguage();
  const { query } = useLocation();
  const filter = filterFromQuery(query);
  const [page, setPage] = useState<DeliveryPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [retryError, setRetryError] = useState<unknown>(null);
  const [retried, setRetried] = useState(false);
  const [reloads, setReloads] = useState(0);
  const filterKey = `${filter.page}|${filter.succeeded ?? ''}|${filter.eventType ?? ''}`;

  // Each answer replaces the table only if no newer request started meanwhile; the old rows stay on screen while loading.
  useEffect(() => {
    let current = true;
    listDeliveries(endpointId, filter).then(
      (answer) => {
        if (!current) return;
        setPage(answer);
        setError(null);
      },
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
    // filterKey stands for the filter's three fields: the object itself is new at every render.
  }, [endpointId, filterKey, refreshKey, reloads]);

  const unfinished = page?.deliveries.some(isUnfinished) ?? false;
  useEffect(() => {
    if (!poll || !unfinished) return;
    const timer = setTimeout(() => setReloads((count) => count + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [poll, unfinished, page]);

  const retry = async (delivery: WebhookDelivery) => {
    setRetryError(null);
    setRetried(false);
    try {
      await retryDelivery(endpointId, delivery.id);
      setRetried(true);
      setReloads((count) => count + 1);
    } catch (failure) {
      setRetryError(failure);
    }
  };

  const eventName = (eventType: string) => (eventType === TEST_EVENT_TYPE ? t('testPing') : eventType);

  return (
    <section class="delivery-log" aria-labelledby="delivery-log-title" data-testid="delivery-log">
      <h2 id="delivery-log-title">{t('deliveriesTitle')}</h2>
      <div class="webhook-filters">
        <div class="field">
          <label for="delivery-outcome">{t('filterOutcome')}</label>
          <select id="delivery-outcome" value={filter.succeeded ?? ''} onChange={(event) => setQuery({ outcome: event.currentTarget.value || undefined, page: undefined })}>
            <option value="">{t('outcomeAll')}</option>
            <option value="true">{t('outcomeSucceeded')}</option>
            <option value="false">{t('outcomeNotSucceeded')}</option>
          </select>
        </div>
        <div class="field">
          <label for="delivery-event">{t('filterEventType')}</label>
          <select id="delivery-event" value={filter.eventType ?? ''} dir="ltr" onChange={(event) => setQuery({ event: event.currentTarget.value || undefined, page: undefined })}>
            <option value="">{t('eventTypeAll')}</option>
            {[...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE].map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <button type="button" class="button" onClick={() => setReloads((count) => count + 1)}>
          {t('refresh')}
        </button>
      </div>
      <p role="status" class="status-line notice notice-success">
        {retried && t('retried')}
      </p>
      {error !== null && <ErrorNotice error={error} />}
      {retryError !== null && <ErrorNotice error={retryError} />}
      {page && page.deliveries.length === 0 && <EmptyState title={t('noDeliveries')} />}
      {page && page.deliveries.length > 0 && (
        <div class="table-wrap">
          <table class="data delivery-table">
            <thead>
              <tr>
                <th scope="col">{t('columnStatus')}</th>
                <th scope="col">{t('columnEvent')}</th>
                <th scope="col">{t('columnCase')}</th>
                <th scope="col" class="number">
                  {t('columnAttempts')}
                </th>
                <th scope="col" class="number">
                  {t('columnHttpStatus')}
                </th>
                <th scope="col">{t('columnLastAttempt')}</th>
                <th scope="col">{t('columnLastError')}</th>
                <th scope="col">{t('columnSucceeded')}</th>
                {canRetry && <th scope="col">{t('columnActions')}</th>}
              </tr>
            </thead>
            <tbody>
              {page.deliveries.map((delivery) => (
                <tr key={delivery.id} data-delivery-id={delivery.id} data-status={delivery.status} data-event-type={delivery.eventType}>
                  <td>
                    <span class={`badge ${STATUS_BADGE[delivery.status]}`}>{t(`status_${delivery.status}`)}</span>
                    {delivery.nextAttemptAt && <span class="delivery-next muted">{t('nextAttempt', { time: formatDateTime(delivery.nextAttemptAt, language) })}</span>}
                  </td>
                  <td>{delivery.eventType === TEST_EVENT_TYPE ? t('testPing') : <code dir="ltr">{delivery.eventType}</code>}</td>
                  <td>
                    {delivery.caseId ? (
                      <Link href={`/portal/cases/${delivery.caseId}`}>
                        <code dir="ltr">{delivery.caseId.slice(0, 8)}</code>
                      </Link>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td class="number" data-column="attempts">
                    {formatNumber(delivery.attemptCount, language)}
                  </td>
                  <td class="number" data-column="http-status">
                    {delivery.httpStatus === null ? '—' : delivery.httpStatus === 0 ? t('noAnswer') : delivery.httpStatus}
                  </td>
                  <td>{formatDateTime(delivery.lastAttemptAt, language)}</td>
                  <td class="delivery-error" data-column="last-error">
                    {delivery.lastError ? <span dir="ltr">{delivery.lastError}</span> : '—'}
                  </td>
                  <td data-column="succeeded">{delivery.succeeded ? t('yes') : t('no')}</td>
                  {canRetry && (
                    <td>
                      {delivery.status === 'failed' && (
                        <button type="button" class="button button-small" onClick={() => void retry(delivery)} aria-label={t('retryLabel', { event: eventName(delivery.eventType), time: formatDateTime(delivery.createdAt, language) })}>
                          {t('retry')}
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && page.totalCount > DELIVERY_PAGE_SIZE && (
        <Pagination page={page.page} pageSize={page.pageSize} total={page.totalCount} onPage={(next: number) => setQuery({ page: next === 1 ? undefined : String(next) })} />
      )}
    </section>
  );
}
