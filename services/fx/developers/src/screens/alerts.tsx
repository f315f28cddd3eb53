import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, type DeliveryAttempt, type DeveloperClient, type NewWebhook, type Webhook, type WebhookFields } from '../api.js';
import type { Formatters } from '../format.js';
import { fill, type DashboardMessages } from '../i18n/messages.js';
import { problemText } from '../problems.js';
import { AlertForm } from './alert-form.js';
import { DeliveryLog, HealthSummary } from './delivery-log.js';
import { CopyButton } from './new-key.js';
import { ConfirmInRow, ItemTable } from './table-parts.js';

interface Props {
  t: DashboardMessages;
  format: Formatters;
  onSessionEnded: () => void;
}

/** A message for the reader: an outcome (status) or a refusal (alert), announced either way. */
type Notice = { kind: 'status' | 'alert'; text: string } | null;

/** The rate-alert webhooks of one of the account's keys: list, create, edit, delete, test, re-enable, and the delivery log. */
export function AlertsScreen({ t, format, onSessionEnded }: Props) {
  const [clients, setClients] = useState<DeveloperClient[] | null>(null);
  const [clientId, setClientId] = useState<string | null>(null);
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [attempts, setAttempts] = useState<DeliveryAttempt[] | null>(null);

  const refused = (problem: unknown) => {
    if (problem instanceof ApiProblem && problem.status === 401) return onSessionEnded();
    setNotice({ kind: 'alert', text: problemText(problem, t) });
  };
  const loadWebhooks = (id: string) => api.webhooks(id).then(({ webhooks }) => setWebhooks(webhooks), refused);
  const loadLog = (id: string, webhookId: string) => api.deliveries(id, webhookId).then(({ attempts }) => setAttempts(attempts), refused);

  useEffect(() => {
    api.clients().then(({ clients }) => {
      setClients(clients);
      setClientId((clients.find((client) => client.isActive) ?? clients[0])?.id ?? null);
    }, refused);
  }, []);
  useEffect(() => {
    setWebhooks(null);
    setLogOf(null);
    setCreated(null);
    if (clientId) void loadWebhooks(clientId);
  }, [clientId]);

  /** Runs a change, then shows the list (and the open log) as the server now has them. */
  const act = async (change: (id: string) => Promise<string | null>): Promise<boolean> => {
    if (!clientId) return false;
    setNotice(null);
    try {
      const outcome = await change(clientId);
      if (outcome) setNotice({ kind: 'status', text: outcome });
      await loadWebhooks(clientId);
      if (logOf) await loadLog(clientId, logOf);
      return true;
    } catch (problem) {
      refused(problem);
      return false;
    }
  };
  const create = (fields: WebhookFields) =>
    act(async (id) => {
      setCreated(await api.createWebhook(id, fields));
      return null;
    });
  const sendTest = (webhook: Webhook) =>
    act(async (id) => {
      const result = await api.testWebhook(id, webhook.id);
      return result.succeeded ? fill(t.testSucceeded, { status: result.statusCode, ms: format.whole(result.latencyMs) }) : fill(t.testFailed, { status: result.statusCode, error: result.error ?? '—' });
    });
  const openLog = (webhook: Webhook) => {
    setLogOf(webhook.id);
    setAttempts(null);
    if (clientId) void loadLog(clientId, webhook.id);
  };

  const logged = webhooks?.find((webhook) => webhook.id === logOf);
  return (
    <>
      <section class="card wide" aria-labelledby="alerts-title">
        <h2 id="alerts-title">{t.alerts}</h2>
        <p class="note">{t.alertsLead}</p>
        <p class={notice?.kind === 'alert' ? 'field-error' : 'outcome'} role={notice?.kind === 'alert' ? 'alert' : 'status'} data-testid="alerts-notice">
          {notice?.text ?? ''}
        </p>
        {clients !== null && clients.length === 0 && <p>{t.noKeys}</p>}
        {clients !== null && clients.length > 0 && (
          <div class="inline-form">
            <label class="field">
              <span>{t.alertsKey}</span>
              <select data-testid="alert-key" value={clientId ?? ''} onChange={(event) => setClientId(event.currentTarget.value)}>
                {clients.map((client) => (
                  <option key={client.id} value={client.id}>
                    {client.name}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => void act(async () => null)} disabled={!clientId}>
              {t.refresh}
            </button>
          </div>
        )}
        {clientId && webhooks === null && <p class="loading">…</p>}
        {webhooks !== null && webhooks.length === 0 && <p data-testid="no-alerts">{t.noAlerts}</p>}
        {webhooks !== null && webhooks.length > 0 && (
          <ItemTable className="clients alerts" testId="alerts" columns={[t.alert, t.webhookColumn, t.health, t.actions]}>
            {webhooks.map((webhook) => (
              <AlertRow key={webhook.id} t={t} format={format} webhook={webhook} act={act} onTest={() => void sendTest(webhook)} onLog={() => openLog(webhook)} />
            ))}
          </ItemTable>
        )}
        {created && (
          <div class="new-key secret" data-testid="new-alert-secret">
            <h3>{t.newAlertTitle}</h3>
            <p class="warning" role="note">
              {t.signingSecretWarning}
            </p>
            <p class="secret-value">
              <code data-testid="signing-secret">{created.signingSecret}</code>
              <CopyButton t={t} text={created.signingSecret} label={t.signingSecret} testId="copy-signing-secret" />
            </p>
          </div>
        )}
        {clientId && <AlertForm t={t} onSubmit={create} />}
      </section>
      {logged && <DeliveryLog t={t} format={format} webhook={logged} attempts={attempts} onClose={() => setLogOf(null)} />}
    </>
  );
}

const conditionOf = (t: DashboardMessages, format: Formatters, webhook: Webhook) =>
  `${webhook.currency} · ${t.sources[webhook.source]} · ${t.alertTypes[webhook.alertType as 0 | 1 | 2 | 3]} ${format.decimal(webhook.thresholdValue)}${webhook.alertType >= 2 ? ' %' : ''}`;

interface RowProps {
  t: DashboardMessages;
  format: Formatters;
  webhook: Webhook;
  act: (change: (clientId: string) => Promise<string | null>) => Promise<boolean>;
  onTest: () => void;
  onLog: () => void;
}

function AlertRow({ t, format, webhook, act, onTest, onLog }: RowProps) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const update = (fields: WebhookFields) => act((id) => api.updateWebhook(id, webhook.id, fields).then(() => null)).then((done) => (done && setMode('view'), done));
  return (
    <tr data-webhook={webhook.id} class={webhook.isActive ? undefined : 'inactive'}>
      <th scope="row">
        {webhook.label && <span class="alert-label">{webhook.label}</span>}
        <span class="condition">{conditionOf(t, format, webhook)}</span>
      </th>
      <td data-label={t.webhookColumn}>
        <code dir="ltr">{webhook.webhookUrl}</code>
      </td>
      <td data-label={t.health}>
        <HealthSummary t={t} webhook={webhook} />
      </td>
      <td class="actions">
        {mode === 'view' && (
          <>
            <button type="button" onClick={onTest}>
              {t.sendTest}
            </button>
            <button type="button" onClick={onLog}>
              {t.deliveryLog}
            </button>
            {!webhook.isActive && (
              <button type="button" class="primary" onClick={() => void act((id) => api.enableWebhook(id, webhook.id).then(() => t.reEnabled))}>
                {t.reEnable}
              </button>
            )}
            <button type="button" onClick={() => setMode('edit')}>
              {t.edit}
            </button>
            <button type="button" class="danger" onClick={() => setMode('delete')}>
              {t.delete}
            </button>
          </>
        )}
        {mode === 'edit' && <AlertForm t={t} editing={webhook} onSubmit={update} onCancel={() => setMode('view')} />}
        {mode === 'delete' && <ConfirmInRow action={t.delete} question={t.deleteConfirm} cancel={t.cancel} danger onConfirm={() => void act((id) => api.deleteWebhook(id, webhook.id).then(() => null))} onCancel={() => setMode('view')} />}
      </td>
    </tr>
  );
}
