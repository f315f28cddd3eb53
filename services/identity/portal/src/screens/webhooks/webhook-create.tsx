import { useState } from 'preact/hooks';
import { PageHeader } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { Link, navigate } from '@svc/web-ui/router';
import { webhookMessages } from './messages.js';
import { SecretPanel } from './secret-panel.js';
import { createEndpoint, WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from './webhook-api.js';
import { WebhookForm } from './webhook-form.js';

/**
 * Registers an endpoint, then shows its signing secret here, once: the secret lives in this
 * component's state only, so leaving the screen is what makes it unrecoverable.
 */
export function WebhookCreate() {
  const t = useMessages(webhookMessages);
  const [created, setCreated] = useState<{ endpoint: WebhookEndpoint; signingSecret: string } | null>(null);

  return (
    <section data-testid="webhook-create">
      <PageHeader title={t('newTitle')} actions={<Link href="/portal/webhooks">{t('allEndpoints')}</Link>} />
      {created ? (
        <>
          <p role="status">{t('created')}</p>
          <SecretPanel secret={created.signingSecret} onDone={() => navigate(`/portal/webhooks/${created.endpoint.id}`)}>
            <Link href={`/portal/webhooks/${created.endpoint.id}`}>{t('openEndpoint')}</Link>
          </SecretPanel>
        </>
      ) : (
        <WebhookForm
          initial={{ url: 'https://', eventTypes: [...WEBHOOK_EVENT_TYPES] }}
          submitLabel={t('create')}
          onSubmit={async (values) => setCreated(await createEndpoint(values))}
          onCancel={() => navigate('/portal/webhooks')}
        />
      )}
    </section>
  );
}
