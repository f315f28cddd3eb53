import { useState } from 'preact/hooks';
import { ErrorNotice } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { eventDescriptions, webhookMessages } from './messages.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-api.js';

export interface WebhookFormValues {
  url: string;
  eventTypes: string[];
}

interface Props {
  initial: WebhookFormValues;
  submitLabel: string;
  /** Throws the ApiError to show (the API's message, e.g. the SSRF guard's reason for a URL). */
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel: () => void;
}

/** URL and event-type checkboxes, for both registering and editing an endpoint. */
export function WebhookForm({ initial, submitLabel, onSubmit, onCancel }: Props) {
  const t = useMessages(webhookMessages);
  const describe = useMessages(eventDescriptions);
  const [url, setUrl] = useState(initial.url);
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set(initial.eventTypes));
  const [error, setError] = useState<unknown>(null);
  const [missingEvents, setMissingEvents] = useState(false);
  const [busy, setBusy] = useState(false);

  const toggle = (eventType: string, checked: boolean) => {
    const next = new Set(selected);
    if (checked) next.add(eventType);
    else next.delete(eventType);
    setSelected(next);
    if (next.size > 0) setMissingEvents(false);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (selected.size === 0) {
      setMissingEvents(true);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // Sent in the spec's order, whatever order they were ticked in.
      await onSubmit({ url: url.trim(), eventTypes: WEBHOOK_EVENT_TYPES.filter((type) => selected.has(type)) });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="webhook-form" onSubmit={(event) => void submit(event)} data-testid="webhook-form">
      <div class="field">
        <label for="webhook-url">{t('urlLabel')}</label>
        <input id="webhook-url" name="url" type="url" required maxLength={500} dir="ltr" value={url} aria-describedby="webhook-url-hint" onInput={(event) => setUrl(event.currentTarget.value)} />
        <p id="webhook-url-hint" class="field-hint">
          {t('urlHint')}
        </p>
      </div>
      <fieldset class="webhook-event-types" aria-describedby={missingEvents ? 'webhook-events-missing' : undefined}>
        <legend>{t('eventsLegend')}</legend>
        <div class="webhook-event-tools">
          <button type="button" class="button button-small button-quiet" onClick={() => setSelected(new Set(WEBHOOK_EVENT_TYPES))}>
            {t('selectAll')}
          </button>
          <button type="button" class="button button-small button-quiet" onClick={() => setSelected(new Set())}>
            {t('selectNone')}
          </button>
        </div>
        <ul class="webhook-event-list">
          {WEBHOOK_EVENT_TYPES.map((eventType) => (
            <li key={eventType}>
              <input id={`event-${eventType}`} type="checkbox" name="eventTypes" value={eventType} checked={selected.has(eventType)} onChange={(event) => toggle(eventType, event.currentTarget.checked)} />
              <label for={`event-${eventType}`}>
                {describe(eventType)} <code dir="ltr">{eventType}</code>
              </label>
            </li>
          ))}
        </ul>
        {missingEvents && (
          <p id="webhook-events-missing" class="field-error" role="alert">
            {t('eventsRequired')}
          </p>
        )}
      </fieldset>
      {error !== null && <ErrorNotice error={error} />}
      <div class="webhook-actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" class="button" onClick={onCancel}>
          {t('cancel')}
        </button>
      </div>
    </form>
  );
}
