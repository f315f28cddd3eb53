import { toStandardWebhooksSecret } from '@svc/webhook-signing/standard-secret';
import { useState } from 'preact/hooks';
import { useMessages } from '@svc/web-ui/i18n';
import { webhookMessages } from './messages.js';
import { SecretValue } from './secret-panel.js';

type Conversion = { kind: 'empty' } | { kind: 'invalid' } | { kind: 'converted'; standard: string; same: boolean };

function convert(pasted: string): Conversion {
  const secret = pasted.trim();
  if (!secret) return { kind: 'empty' };
  if (!secret.startsWith('whsec_')) return { kind: 'invalid' };
  try {
    const standard = toStandardWebhooksSecret(secret);
    return { kind: 'converted', standard, same: standard === secret };
  } catch {
    return { kind: 'invalid' };
  }
}

/**
 * Secrets are shown once and stored sealed, so the server has none to show again in the standard form: the
 * partner pastes the one they hold and the page converts it with the servers' own rule. It is never sent: no
 * form, no request, no storage; it is gone when the page is left.
 */
export function StandardSecretConverter() {
  const t = useMessages(webhookMessages);
  const [pasted, setPasted] = useState('');
  const result = convert(pasted);
  return (
    <section class="standard-secret" aria-labelledby="standard-secret-title" data-testid="standard-secret">
      <h2 id="standard-secret-title">{t('standardTitle')}</h2>
      <p class="muted">{t('standardHint')}</p>
      <div class="field">
        <label for="standard-secret-input">{t('standardInput')}</label>
        <input
          id="standard-secret-input"
          type="password"
          dir="ltr"
          autocomplete="off"
          spellcheck={false}
          value={pasted}
          onInput={(event) => setPasted(event.currentTarget.value)}
        />
      </div>
      {result.kind === 'invalid' && (
        <p class="field-error" role="alert">
          {t('standardInvalid')}
        </p>
      )}
      {result.kind === 'converted' && (
        <div>
          <p>{result.same ? t('standardSame') : t('standardResult')}</p>
          <SecretValue value={result.standard} testId="standard-secret-value" copyLabel={t('copyStandard')} />
        </div>
      )}
    </section>
  );
}
