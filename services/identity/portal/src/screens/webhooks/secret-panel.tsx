import type { ComponentChildren } from 'preact';
import { CopyButton } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { webhookMessages } from './messages.js';

/** A secret on one line, left to right in either language, with its copy button. */
export function SecretValue(props: { value: string; testId: string; copyLabel: string }) {
  return (
    <div class="webhook-secret-value">
      <code data-testid={props.testId} dir="ltr">
        {props.value}
      </code>
      <CopyButton text={props.value} label={props.copyLabel} />
    </div>
  );
}

/**
 * A signing secret the API returns only once (creation, rotation): shown with a copy button and
 * the warning, until the user says it is stored. Nothing keeps it after that: no storage, no URL.
 */
export function SecretPanel(props: { secret: string; onDone: () => void; children?: ComponentChildren }) {
  const t = useMessages(webhookMessages);
  return (
    <section class="webhook-secret notice notice-warning" role="region" aria-labelledby="webhook-secret-title" data-testid="webhook-secret">
      <h2 id="webhook-secret-title">{t('secretTitle')}</h2>
      <p class="notice-title" role="alert">
        {t('secretWarning')}
      </p>
      <p data-testid="webhook-secret-standard">{t('secretStandard')}</p>
      <SecretValue value={props.secret} testId="webhook-secret-value" copyLabel={t('copySecret')} />
      <div class="webhook-actions">
        <button type="button" class="button button-primary" onClick={props.onDone}>
          {t('secretStored')}
        </button>
        {props.children}
      </div>
    </section>
  );
}
