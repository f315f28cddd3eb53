import type { Ref } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { DataTable, ErrorNotice } from '@svc/web-ui/components';
import type { CaseDetail } from '@svc/web-ui/cases/case-types';
import { fieldDirection } from '@svc/web-ui/cases/case-logic';
import { caseMessages } from '@svc/web-ui/cases/messages';
import { useMessages } from '@svc/web-ui/i18n';
import { REVIEW_REASON_CODES, REVIEW_VERDICTS, type MrzFieldComparison, type ReviewOutcome, type ReviewReasonCode, type ReviewVerdict } from '@svc/identity-client/staff-types';
import { consoleMessages } from '../messages.js';
import { useSubmit } from '@svc/web-ui/use-submit';

/** Each OCR field beside its MRZ field, a mismatch marked, with an input to correct the OCR value. */
export function MrzComparison(props: { verification: CaseDetail; rows: MrzFieldComparison[]; corrections: Record<string, string>; onCorrect: (field: string, value: string) => void; disabled: boolean }) {
  const t = useMessages(consoleMessages);
  const caseText = useMessages(caseMessages);
  const ocr = props.verification.ocrResult;
  const toConfirm = new Set(ocr?.fieldsToConfirm ?? []);
  return (
    <section class="card" aria-labelledby="mrz-title">
      <h2 id="mrz-title">{t('ocrVsMrz')}</h2>
      {!ocr ? (
        <p class="muted">{t('noOcr')}</p>
      ) : (
        <>
          <p class="muted">{t('mrzValid', { verdict: ocr.mrzIsValid === null ? t('unknown') : ocr.mrzIsValid ? t('valid') : t('invalid') })}</p>
          {props.rows.every((row) => row.mrz === null) ? <p class="muted">{t('noMrz')}</p> : null}
          {toConfirm.size > 0 ? (
            <p class="notice notice-warning" data-testid="mrz-to-confirm">
              {caseText('toConfirmHint', { count: String(toConfirm.size) })}
            </p>
          ) : null}
          <DataTable class="mrz-table" testId="mrz-table" columns={[t('field'), t('ocrValue'), t('mrzValue'), t('correction')]}>
            {props.rows.map((row) => (
              <tr key={row.field} class={row.matches === false ? 'mismatch' : toConfirm.has(row.field) ? 'to-confirm' : undefined} data-field={row.field}>
                <th scope="row">
                  <code>{row.field}</code>
                  {row.matches === false ? <span class="badge badge-danger">{t('mismatch')}</span> : row.matches ? <span class="visually-hidden">{t('match')}</span> : null}
                  {toConfirm.has(row.field) ? <span class="badge badge-attention">{caseText('toConfirm')}</span> : null}
                </th>
                <td dir={fieldDirection(row.field)}>{row.ocr ?? '—'}</td>
                <td dir="auto">{row.mrz ?? '—'}</td>
                <td>
                  {row.ocr !== null || toConfirm.has(row.field) ? (
                    <input
                      type="text"
                      dir={fieldDirection(row.field)}
                      aria-label={`${t('correction')}: ${row.field}`}
                      value={props.corrections[row.field] ?? row.ocr ?? ''}
                      disabled={props.disabled}
                      onInput={(event) => props.onCorrect(row.field, event.currentTarget.value)}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </section>
  );
}

export interface DecisionPanelProps {
  caseId: string;
  decision: ReviewVerdict | null;
  onDecision: (decision: ReviewVerdict) => void;
  /** Only fields whose value differs from what the OCR read. */
  corrections: Record<string, string>;
  reasonRef: Ref<HTMLSelectElement>;
  onDecided: (status: string) => void;
}

/** Approve or reject, a reason from the list and words of one's own; Ctrl+Enter records it. */
export function DecisionPanel(props: DecisionPanelProps) {
  const t = useMessages(consoleMessages);
  const [reasonCode, setReasonCode] = useState<ReviewReasonCode | ''>('');
  const [notes, setNotes] = useState('');
  const corrected = Object.keys(props.corrections).length;
  const { busy: submitting, error, submit } = useSubmit(
    async () => {
      const body = { decision: props.decision!, reasonCode: reasonCode as ReviewReasonCode, reason: notes.trim(), ...(corrected > 0 ? { corrections: { fields: props.corrections } } : {}) };
      const result = await api<ReviewOutcome>('POST', `/cases/${props.caseId}/review`, { body });
      props.onDecided(result.status);
    },
    { ready: () => props.decision !== null && reasonCode !== '' },
  );

  return (
    <form
      class="card decision-panel"
      aria-labelledby="decision-title"
      onSubmit={(event) => void submit(event)}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void submit(event);
      }}
    >
      <h2 id="decision-title">{t('decision')}</h2>
      {error !== undefined ? <ErrorNotice error={error} /> : null}
      <fieldset class="decision-choice">
        <legend class="visually-hidden">{t('decision')}</legend>
        {REVIEW_VERDICTS.map((value) => (
          <label key={value} class={`choice choice-${value}`}>
            <input type="radio" name="decision" value={value} checked={props.decision === value} onChange={() => props.onDecision(value)} />
            {value === 'Approved' ? t('approve') : t('reject')} <kbd>{value === 'Approved' ? 'A' : 'R'}</kbd>
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="decision-reason">{t('reason')}</label>
        <select id="decision-reason" ref={props.reasonRef} required value={reasonCode} onChange={(event) => setReasonCode(event.currentTarget.value as ReviewReasonCode)}>
          <option value="">{t('chooseReason')}</option>
          {REVIEW_REASON_CODES.map((code) => (
            <option key={code} value={code}>
              {t(`reason.${code}`)}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="decision-notes">{t('notes')}</label>
        <textarea id="decision-notes" dir="auto" rows={3} maxLength={1000} required={reasonCode === 'other'} value={notes} onInput={(event) => setNotes(event.currentTarget.value)} />
      </div>
      {corrected > 0 ? (
        <p class="notice notice-warning" data-testid="corrections-pending">
          {t('correctionsPending', { count: corrected })}
        </p>
      ) : null}
      <button type="submit" class="button button-primary button-wide" disabled={!props.decision || !reasonCode || submitting || (reasonCode === 'other' && !notes.trim())}>
        {submitting ? t('submitting') : t('submitDecision')}
      </button>
    </form>
  );
}
