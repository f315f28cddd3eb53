import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ConfirmDialog, ErrorNotice } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { caseMessages } from '@svc/web-ui/cases/messages';

/**
 * Cancel with a required reason (kept in the audit trail). The confirm button stays disabled
 * until a reason is typed, and the dialog stays open until the API agrees, showing its refusal.
 */
export function CancelCase({ caseId, onCancelled }: { caseId: string; onCancelled: () => void }) {
  const t = useMessages(caseMessages);
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const close = () => {
    setOpen(false);
    setReason('');
    setError(null);
  };
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await api<undefined>('POST', `/verifications/${caseId}/cancel`, { body: { reason: reason.trim() } });
      close();
      onCancelled();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" class="button button-danger" onClick={() => setOpen(true)} data-testid="cancel-case">
        {t('cancelCase')}
      </button>
      <ConfirmDialog
        open={open}
        title={t('cancelTitle')}
        body={t('cancelBody')}
        confirmLabel={busy ? t('cancelling') : t('confirmCancel')}
        confirmDisabled={busy || reason.trim() === ''}
        danger
        onConfirm={() => void confirm()}
        onCancel={close}
      >
        <div class="field">
          <label for="cancel-reason">{t('cancelReason')}</label>
          <textarea id="cancel-reason" value={reason} required dir="auto" maxLength={500} rows={3} onInput={(event) => setReason(event.currentTarget.value)} data-testid="cancel-reason" />
          <span class="field-hint">{t('reasonRequired')}</span>
        </div>
        {error ? <ErrorNotice error={error} /> : null}
      </ConfirmDialog>
    </>
  );
}
