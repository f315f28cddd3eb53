import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ErrorNotice } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { type CertificateDetails, type OAuthClient, pemProblem } from './client-logic.js';
import { clientMessages } from './messages.js';
import { SubjectName, ValidityMark } from './certificate-parts.js';

function readFileAsText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsText(file);
  });
}

/**
 * Two steps: the certificate is inspected by the server (nothing stored) and its details shown,
 * then registered. Editing the PEM after inspecting asks for a new inspection, so what
 * is saved is always what was shown.
 */
export function RegisterClient(props: { onRegistered: (client: OAuthClient) => void; onCancel: () => void }) {
  const t = useMessages(clientMessages);
  const { language } = useLanguage();
  const [name, setName] = useState('');
  const [pem, setPem] = useState('');
  const [localProblem, setLocalProblem] = useState<string>();
  const [details, setDetails] = useState<CertificateDetails>();
  const [busy, setBusy] = useState<'inspecting' | 'saving'>();
  const [error, setError] = useState<unknown>();

  const changePem = (text: string) => {
    setPem(text);
    setDetails(undefined);
    setLocalProblem(undefined);
    setError(undefined);
  };

  const chooseFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    try {
      changePem(await readFileAsText(file));
    } catch {
      setLocalProblem(t('fileUnreadable'));
    }
  };

  const inspect = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const problem = pemProblem(pem);
    if (problem) {
      setLocalProblem(t(problem));
      return;
    }
    setBusy('inspecting');
    try {
      setDetails(await api<CertificateDetails>('POST', '/portal/certificates/inspect', { body: { certificatePem: pem } }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(undefined);
    }
  };

  const register = async () => {
    setBusy('saving');
    setError(undefined);
    try {
      const created = await api<{ client: OAuthClient; clientId: string }>('POST', '/oauth/clients', { body: { clientName: name.trim(), certificatePem: pem } });
      props.onRegistered(created.client);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section class="card register-client" aria-labelledby="register-client-title">
      <h2 id="register-client-title">{t('registerTitle')}</h2>
      <form onSubmit={(event) => void inspect(event)}>
        <div class="field">
          <label for="client-name">{t('clientName')}</label>
          <input id="client-name" name="clientName" required maxLength={200} value={name} aria-describedby="client-name-hint" onInput={(event) => setName(event.currentTarget.value)} />
          <span id="client-name-hint" class="field-hint">
            {t('clientNameHint')}
          </span>
        </div>
        <div class="field">
          <label for="client-pem">{t('pem')}</label>
          <textarea id="client-pem" name="certificatePem" required rows={8} dir="ltr" spellcheck={false} aria-describedby="client-pem-hint" value={pem} onInput={(event) => changePem(event.currentTarget.value)} />
          <span id="client-pem-hint" class="field-hint">
            {t('pemHint')}
          </span>
        </div>
        <div class="field">
          <label for="client-pem-file">{t('pemFile')}</label>
          <input id="client-pem-file" type="file" accept=".pem,.crt,.cer,application/x-pem-file,application/x-x509-ca-cert" onChange={(event) => void chooseFile(event.currentTarget)} />
        </div>
        {localProblem && (
          <div class="notice notice-error" role="alert">
            <p>{localProblem}</p>
          </div>
        )}
        <ErrorNotice error={error} />
        {!details && (
          <div class="form-actions">
            <button type="submit" class="button button-primary" disabled={busy !== undefined || !name.trim() || !pem.trim()}>
              {busy === 'inspecting' ? t('inspecting') : t('inspect')}
            </button>
            <button type="button" class="button" onClick={props.onCancel}>
              {t('cancel')}
            </button>
          </div>
        )}
      </form>
      {details && (
        <div class="certificate-details" data-testid="certificate-details">
          <h3>{t('detailsTitle')}</h3>
          <p class="muted">{t('detailsIntro')}</p>
          <dl class="details-list">
            <dt>{t('thumbprint')}</dt>
            <dd class="mono ltr break" data-testid="inspected-thumbprint">
              {details.certificateThumbprint}
            </dd>
            <dt>{t('subject')}</dt>
            <dd class="mono ltr" data-testid="inspected-subject">
              <SubjectName dn={details.certificateSubjectDN} />
            </dd>
            <dt>{t('validFrom')}</dt>
            <dd>{formatDateTime(details.certificateNotBefore, language)}</dd>
            <dt>{t('validTo')}</dt>
            <dd>
              {formatDateTime(details.certificateNotAfter, language)} <ValidityMark notBefore={details.certificateNotBefore} notAfter={details.certificateNotAfter} />
            </dd>
          </dl>
          <div class="form-actions">
            <button type="button" class="button button-primary" disabled={busy !== undefined || !name.trim()} onClick={() => void register()}>
              {busy === 'saving' ? t('saving') : t('save')}
            </button>
            <button type="button" class="button" onClick={props.onCancel}>
              {t('cancel')}
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
