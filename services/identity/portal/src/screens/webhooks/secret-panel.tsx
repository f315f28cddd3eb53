import type { ComponentChildren } from 'preact';
import { CopyButton } from '../../../../web-shared/components/index.js';
import { useMessages } from '../../../../web-shared/i18n.js';
import { webhookMessages } from './messages.js';

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
      <div class="webhook-secret-value">
        <code data-testid="webhook-secret-value" dir="ltr">
          {props.secret}
        </code>
        <CopyButton text={props.secret} label={t('copySecret')} />
      </div>
      <div class="webhook-actions">
        <button type="button" class="button button-primary" onClick={props.onDone}>
          {t('secretStored')}
        </button>
        {props.children}
      </div>
    </section>
  );
}
