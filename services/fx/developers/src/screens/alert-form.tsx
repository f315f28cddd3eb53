import { useState } from 'preact/hooks';
import type { Webhook, WebhookFields } from '../api.js';
import type { DashboardMessages } from '../i18n/messages.js';

const SOURCES = ['MARKET', 'CBS'] as const;
const ALERT_TYPES = [0, 1, 2, 3] as const;

interface Props {
  t: DashboardMessages;
  /** The webhook being edited; undefined for a new one. */
  editing?: Webhook | undefined;
  onSubmit: (fields: WebhookFields) => Promise<boolean>;
  onCancel?: () => void;
}

/**
 * Create or edit a rate alert. The browser checks only what it can say in the reader's language
 * (required, a URL, a number); the API's rules (https, a public host, bounds) answer in the alert region.
 */
export function AlertForm({ t, editing, onSubmit, onCancel }: Props) {
  const [webhookUrl, setWebhookUrl] = useState(editing?.webhookUrl ?? '');
  const [currency, setCurrency] = useState(editing?.currency ?? 'USD');
  const [source, setSource] = useState<WebhookFields['source']>(editing?.source ?? 'MARKET');
  const [alertType, setAlertType] = useState(editing?.alertType ?? 0);
  const [threshold, setThreshold] = useState(editing ? String(editing.thresholdValue) : '');
  const [label, setLabel] = useState(editing?.label ?? '');
  const [busy, setBusy] = useState(false);
  const id = editing ? `edit-${editing.id}` : 'new-alert';

  const submit = async () => {
    setBusy(true);
    const trimmedLabel = label.trim();
    const done = await onSubmit({ webhookUrl: webhookUrl.trim(), currency: currency.trim(), source, alertType, thresholdValue: Number(threshold), label: trimmedLabel === '' ? null : trimmedLabel });
    setBusy(false);
    if (done && !editing) {
      setWebhookUrl('');
      setThreshold('');
      setLabel('');
    }
  };

  return (
    <form
      class="alert-form"
      data-testid={editing ? 'edit-alert' : 'create-alert'}
      aria-labelledby={`${id}-title`}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h3 id={`${id}-title`}>{editing ? t.editAlert : t.createAlert}</h3>
      <label class="field url">
        <span>{t.webhookUrl}</span>
        <input type="url" name="webhookUrl" dir="ltr" required maxLength={500} placeholder="https://" value={webhookUrl} onInput={(event) => setWebhookUrl(event.currentTarget.value)} />
      </label>
      <label class="field">
        <span>{t.currency}</span>
        <input type="text" name="currency" dir="ltr" required maxLength={10} autocapitalize="characters" value={currency} onInput={(event) => setCurrency(event.currentTarget.value)} />
      </label>
      <label class="field">
        <span>{t.source}</span>
        <select name="source" value={source} onChange={(event) => setSource(event.currentTarget.value as WebhookFields['source'])}>
          {SOURCES.map((option) => (
            <option key={option} value={option}>
              {t.sources[option]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{t.alertType}</span>
        <select name="alertType" value={String(alertType)} onChange={(event) => setAlertType(Number(event.currentTarget.value))}>
          {ALERT_TYPES.map((option) => (
            <option key={option} value={String(option)}>
              {t.alertTypes[option]}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{t.threshold}</span>
        <input type="number" name="thresholdValue" dir="ltr" required min="0" step="any" inputMode="decimal" aria-describedby={`${id}-threshold-note`} value={threshold} onInput={(event) => setThreshold(event.currentTarget.value)} />
      </label>
      <label class="field">
        <span>{t.label}</span>
        <input type="text" name="label" maxLength={100} value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
      </label>
      <p class="note" id={`${id}-threshold-note`}>
        {t.thresholdNote}
      </p>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {editing ? t.save : t.createAlert}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            {t.cancel}
          </button>
        )}
      </div>
    </form>
  );
}
