import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ConfirmDialog, ErrorNotice } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { caseMessages } from '@svc/web-ui/cases/messages';

/**
 * Redact a closed case (PartnerAdmin): POST /verifications/{id}/redact after a confirmation
 * naming what is destroyed and what stays. The work runs as a job; once asked, the button
 * gives way to a note, and the detail shows "Redacted" when the job is done.
 */
export function RedactCase({ caseId, onRequested }: { caseId: string; onRequested: () => void }) {
  const t = useMessages(caseMessages);
  const [open, setOpen] = useState(false);
  const [requested, setRequested] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const request = async () => {
    setBusy(true);
    setError(null);
    try {
      await api<{ caseId: string; redactionRequestedAt: string }>('POST', `/verifications/${caseId}/redact`);
      setOpen(false);
      setRequested(true);
      onRequested();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  if (requested) return <p class="muted" data-testid="redaction-requested">{t('redactionRequested')}</p>;
  return (
    <>
      <button type="button" class="button button-danger" onClick={() => setOpen(true)} data-testid="redact-case">
        {t('redactCase')}
      </button>
      <ConfirmDialog
        open={open}
        title={t('redactTitle')}
        body={t('redactBody')}
        confirmLabel={busy ? t('redacting') : t('redactCase')}
        confirmDisabled={busy}
        danger
        onConfirm={() => void request()}
        onCancel={() => setOpen(false)}
      >
        {error ? <ErrorNotice error={error} /> : null}
      </ConfirmDialog>
    </>
  );
}
