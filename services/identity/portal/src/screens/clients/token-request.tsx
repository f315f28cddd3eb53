import { CopyButton } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { curlTokenRequest } from './client-logic.js';
import { clientMessages } from './messages.js';

/** The client id and a copyable curl for its first token request, shown after registering and on demand. */
export function TokenRequest(props: { clientId: string; clientName: string; tokenEndpoint: string; registered: boolean; onClose: () => void }) {
  const t = useMessages(clientMessages);
  const curl = curlTokenRequest(props.tokenEndpoint, props.clientId);
  return (
    <section class={`card token-request${props.registered ? ' token-request-new' : ''}`} aria-labelledby="token-request-title" data-testid="token-request">
      <h2 id="token-request-title">{props.registered ? t('registeredTitle') : `${t('curlTitle')}: ${props.clientName}`}</h2>
      {props.registered && <p>{t('registeredBody')}</p>}
      <dl class="details-list">
        <dt>{t('clientId')}</dt>
        <dd>
          <code class="ltr" data-testid="new-client-id">
            {props.clientId}
          </code>{' '}
          <CopyButton text={props.clientId} label={t('copyClientId')} />
        </dd>
      </dl>
      <h3>{t('curlTitle')}</h3>
      <pre class="command ltr" data-testid="curl-example">
        <code>{curl}</code>
      </pre>
      <p class="field-hint">{t('curlHint')}</p>
      <div class="form-actions">
        <CopyButton text={curl} label={t('copyCurl')} class="button" />
        <button type="button" class="button" onClick={props.onClose}>
          {t('done')}
        </button>
      </div>
    </section>
  );
}
