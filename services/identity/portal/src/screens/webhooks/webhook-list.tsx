import { EmptyState, ErrorNotice, Loading, PageHeader, useAsync } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { Link } from '@svc/web-ui/router';
import { useSession } from '../../session.js';
import { webhookMessages } from './messages.js';
import { listEndpoints, WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from './webhook-api.js';

export function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  const t = useMessages(webhookMessages);
  return <span class={`badge ${endpoint.isActive ? 'badge-success' : 'badge-attention'}`} data-state={endpoint.isActive ? 'active' : 'paused'}>{endpoint.isActive ? t('active') : t('paused')}</span>;
}

/** "All events" when every type is subscribed, else the names: a long list of ten says nothing. */
function EventTypesCell({ eventTypes }: { eventTypes: string[] }) {
  const t = useMessages(webhookMessages);
  if (WEBHOOK_EVENT_TYPES.every((type) => eventTypes.includes(type))) return <span>{t('allEvents')}</span>;
  return (
    <ul class="webhook-event-names">
      {eventTypes.map((type) => (
        <li key={type}>
          <code dir="ltr">{type}</code>
        </li>
      ))}
    </ul>
  );
}

export function WebhookList() {
  const t = useMessages(webhookMessages);
  const { language } = useLanguage();
  const { canWrite } = useSession();
  const endpoints = useAsync(() => listEndpoints(), []);

  const actions = canWrite ? (
    <Link href="/portal/webhooks/new" class="button button-primary">
      {t('addEndpoint')}
    </Link>
  ) : null;

  return (
    <section data-testid="webhook-list">
      <PageHeader title={t('title')} actions={actions} />
      <p class="muted">{t('intro')}</p>
      {endpoints.error ? <ErrorNotice error={endpoints.error} /> : null}
      {endpoints.loading && !endpoints.data ? <Loading /> : null}
      {endpoints.data?.length === 0 && <EmptyState>{t('empty')}</EmptyState>}
      {endpoints.data && endpoints.data.length > 0 && (
        <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">{t('columnUrl')}</th>
              <th scope="col">{t('columnEventTypes')}</th>
              <th scope="col">{t('columnState')}</th>
              <th scope="col">{t('columnCreated')}</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.data.map((endpoint) => (
              <tr key={endpoint.id} data-endpoint-id={endpoint.id}>
                <td class="webhook-url-cell">
                  <Link href={`/portal/webhooks/${endpoint.id}`}>
                    <span dir="ltr">{endpoint.url}</span>
                  </Link>
                </td>
                <td>
                  <EventTypesCell eventTypes={endpoint.eventTypes} />
                </td>
                <td>
                  <EndpointState endpoint={endpoint} />
                </td>
                <td>{formatDateTime(endpoint.createdAt, language)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}
