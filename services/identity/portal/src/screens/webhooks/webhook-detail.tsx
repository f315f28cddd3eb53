import { useState } from 'preact/hooks';
import { ConfirmDialog, ErrorNotice, Loading, PageHeader, useAsync } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { Link, navigate } from '@svc/web-ui/router';
import { useSession } from '../../session.js';
import { DeliveryLog } from './delivery-log.js';
import { eventDescriptions, webhookMessages, type WebhookMessageKey } from './messages.js';
import { RecoverForm } from './recover-form.js';
import { RotateGraceChoice } from './rotate-grace-choice.js';
import { SecretPanel } from './secret-panel.js';
import { StandardSecretConverter } from './standard-secret-converter.js';
import { deleteEndpoint, getEndpoint, rotateSecret, sendTestPing, setEndpointActive, updateEndpoint, WEBHOOK_EVENT_TYPES, type PreviousSecretGrace, type WebhookEndpoint } from './webhook-api.js';
import { WebhookForm } from './webhook-form.js';
import { EndpointState } from './webhook-list.js';

type Dialog = 'rotate' | 'delete' | null;

function EndpointFacts({ endpoint }: { endpoint: WebhookEndpoint }) {
  const t = useMessages(webhookMessages);
  const describe = useMessages(eventDescriptions);
  const { language } = useLanguage();
  return (
    <dl class="webhook-facts card" data-testid="webhook-facts">
      <dt>{t('columnUrl')}</dt>
      <dd>
        <code dir="ltr" data-testid="webhook-url">
          {endpoint.url}
        </code>
      </dd>
      <dt>{t('columnState')}</dt>
      <dd>
        <EndpointState endpoint={endpoint} />
      </dd>
      <dt>{t('columnEventTypes')}</dt>
      <dd>
        <ul class="webhook-event-names" data-testid="webhook-event-types">
          {WEBHOOK_EVENT_TYPES.filter((type) => endpoint.eventTypes.includes(type)).map((type) => (
            <li key={type}>
              {describe(type)} <code dir="ltr">{type}</code>
            </li>
          ))}
        </ul>
      </dd>
      <dt>{t('columnCreated')}</dt>
      <dd>{formatDateTime(endpoint.createdAt, language)}</dd>
    </dl>
  );
}

export function WebhookDetail({ endpointId }: { endpointId: string }) {
  const t = useMessages(webhookMessages);
  const { language } = useLanguage();
  const { canWrite } = useSession();
  const loaded = useAsync(() => getEndpoint(endpointId), [endpointId]);
  // The endpoint as the last write returned it, over what was loaded.
  const [changed, setChanged] = useState<WebhookEndpoint | null>(null);
  const endpoint = changed?.id === endpointId ? changed : loaded.data;
  const [editing, setEditing] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [secret, setSecret] = useState<string | null>(null);
  // Undefined: the old secret stops signing at once (the default, as the spec says).
  const [grace, setGrace] = useState<PreviousSecretGrace | undefined>(undefined);
  const [previousExpiresAt, setPreviousExpiresAt] = useState<string | null>(null);
  // A message key, not its text: a language switch re-translates what is on screen.
  const [notice, setNotice] = useState<WebhookMessageKey | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);

  if (loaded.error && !endpoint) {
    return (
      <section>
        <PageHeader title={t('title')} actions={<Link href="/portal/webhooks">{t('allEndpoints')}</Link>} />
        <ErrorNotice error={loaded.error} />
      </section>
    );
  }
  if (!endpoint) return <Loading />;

  /** One action at a time; its outcome is announced in the status line or as an error. */
  const run = async (action: () => Promise<WebhookMessageKey>) => {
    setBusy(true);
    setActionError(null);
    setNotice(null);
    try {
      setNotice(await action());
    } catch (failure) {
      setActionError(failure);
    } finally {
      setBusy(false);
    }
  };

  const toggleActive = () =>
    run(async () => {
      await setEndpointActive(endpoint.id, !endpoint.isActive);
      setChanged({ ...endpoint, isActive: !endpoint.isActive });
      // Activating sends what waited: the log should show it going out.
      setDeliveriesVersion((version) => version + 1);
      return endpoint.isActive ? 'deactivated' : 'activated';
    });

  const rotate = () => {
    setDialog(null);
    return run(async () => {
      const rotated = await rotateSecret(endpoint.id, grace);
      setSecret(rotated.newSigningSecret);
      setPreviousExpiresAt(rotated.previousSecretExpiresAt ?? null);
      return 'rotated';
    });
  };

  const remove = async () => {
    setDialog(null);
    setBusy(true);
    setActionError(null);
    try {
      await deleteEndpoint(endpoint.id);
      navigate('/portal/webhooks');
    } catch (failure) {
      setActionError(failure);
      setBusy(false);
    }
  };

  const test = () =>
    run(async () => {
      await sendTestPing(endpoint.id);
      setDeliveriesVersion((version) => version + 1);
      return 'testQueued';
    });

  const actions = canWrite && !editing && (
    <div class="webhook-actions" role="group" aria-label={t('actions')}>
      <button type="button" class="button button-primary" disabled={busy || !endpoint.isActive} onClick={() => void test()}>
        {t('sendTest')}
      </button>
      <button type="button" class="button" disabled={busy} onClick={() => setEditing(true)}>
        {t('edit')}
      </button>
      <button type="button" class="button" disabled={busy} onClick={() => void toggleActive()}>
        {endpoint.isActive ? t('deactivate') : t('activate')}
      </button>
      <button type="button" class="button" disabled={busy} onClick={() => (setGrace(undefined), setDialog('rotate'))}>
        {t('rotateSecret')}
      </button>
      <button type="button" class="button button-danger" disabled={busy} onClick={() => setDialog('delete')}>
        {t('delete')}
      </button>
    </div>
  );

  return (
    <section data-testid="webhook-detail" data-endpoint-id={endpoint.id}>
      <PageHeader title={t('title')} actions={<Link href="/portal/webhooks">{t('allEndpoints')}</Link>} />
      {editing ? (
        <>
          <h2>{t('editTitle')}</h2>
          <WebhookForm
            initial={endpoint}
            submitLabel={t('save')}
            onSubmit={async (values) => {
              setChanged(await updateEndpoint(endpoint.id, values));
              setEditing(false);
              setNotice('saved');
            }}
            onCancel={() => setEditing(false)}
          />
        </>
      ) : (
        <EndpointFacts endpoint={endpoint} />
      )}
      {actions}
      <p role="status" class="status-line notice notice-success" data-testid="webhook-notice">
        {notice && t(notice)}
      </p>
      {actionError !== null && <ErrorNotice error={actionError} />}
      {secret !== null && <SecretPanel secret={secret} onDone={() => setSecret(null)} />}
      {previousExpiresAt !== null && (
        <p class="notice" data-testid="previous-secret-expires">
          {t('previousExpires', { time: formatDateTime(previousExpiresAt, language) })}
        </p>
      )}
      {!endpoint.isActive && <p class="notice notice-warning">{t('pausedNotice')}</p>}
      <DeliveryLog endpointId={endpoint.id} canRetry={canWrite && endpoint.isActive} poll={endpoint.isActive} refreshKey={deliveriesVersion} />
      {canWrite && endpoint.isActive && <RecoverForm endpointId={endpoint.id} onRecovered={() => setDeliveriesVersion((version) => version + 1)} />}
      <StandardSecretConverter />
      <ConfirmDialog
        open={dialog === 'rotate'}
        title={t('rotateTitle')}
        body={grace ? t('rotateBodyGrace') : t('rotateBody')}
        confirmLabel={t('rotateConfirm')}
        danger
        onConfirm={() => void rotate()}
        onCancel={() => setDialog(null)}
      >
        <RotateGraceChoice value={grace} onChange={setGrace} />
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'delete'}
        title={t('deleteTitle')}
        body={t('deleteBody', { url: endpoint.url })}
        confirmLabel={t('deleteConfirm')}
        danger
        onConfirm={() => void remove()}
        onCancel={() => setDialog(null)}
      />
    </section>
  );
}
