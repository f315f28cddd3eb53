import { useState } from 'preact/hooks';
import { ErrorNotice } from '@svc/web-ui/components';
import { formatNumber } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { webhookMessages } from './messages.js';
import { fromLocalInputValue, recoverDeliveries, toLocalInputValue } from './webhook-api.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const defaultSince = (now: Date) => toLocalInputValue(new Date(now.getTime() - DAY_MS));

/** From/to in the browser's local time (default: the last 24 hours) → POST /webhooks/{id}/recover. */
export function RecoverForm({ endpointId, onRecovered }: { endpointId: string; onRecovered: () => void }) {
  const t = useMessages(webhookMessages);
  const { language } = useLanguage();
  const [since, setSince] = useState(() => defaultSince(new Date()));
  // This minute, which the window includes to its end (see fromLocalInputValue).
  const [until, setUntil] = useState(() => toLocalInputValue(new Date()));
  // Untouched, the window ends now when submitted, not when the page opened: a delivery that
  // failed while the page stood open is in it.
  const [edited, setEdited] = useState(false);
  // The count, not a sentence: a language switch re-translates what is on screen.
  const [requeued, setRequeued] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [invalid, setInvalid] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const now = new Date();
    const [sinceValue, untilValue] = edited ? [since, until] : [defaultSince(now), toLocalInputValue(now)];
    setSince(sinceValue);
    setUntil(untilValue);
    const window = { since: fromLocalInputValue(sinceValue), until: fromLocalInputValue(untilValue, 'end') };
    if (!window.since || !window.until || window.since > window.until) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    setBusy(true);
    setError(null);
    setRequeued(null);
    try {
      const recovered = await recoverDeliveries(endpointId, { since: window.since, until: window.until });
      setRequeued(recovered.requeued);
      onRecovered();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="recover" aria-labelledby="recover-title" data-testid="recover">
      <h2 id="recover-title">{t('recoverTitle')}</h2>
      <p class="muted">{t('recoverHint')}</p>
      <form class="webhook-filters" onSubmit={(event) => void submit(event)}>
        <div class="field">
          <label for="recover-from">{t('recoverFrom')}</label>
          <input id="recover-from" type="datetime-local" required value={since} onInput={(event) => (setEdited(true), setSince(event.currentTarget.value))} />
        </div>
        <div class="field">
          <label for="recover-to">{t('recoverTo')}</label>
          <input id="recover-to" type="datetime-local" required value={until} onInput={(event) => (setEdited(true), setUntil(event.currentTarget.value))} />
        </div>
        <button type="submit" class="button button-primary" disabled={busy}>
          {t('recoverSubmit')}
        </button>
      </form>
      {invalid && (
        <p class="field-error" role="alert">
          {t('recoverInvalid')}
        </p>
      )}
      {error !== null && <ErrorNotice error={error} />}
      <p role="status" data-testid="recover-result">
        {requeued !== null && t('recovered', { count: formatNumber(requeued, language) })}
      </p>
    </section>
  );
}
