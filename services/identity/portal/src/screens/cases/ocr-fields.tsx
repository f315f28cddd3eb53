import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ErrorNotice } from '@svc/web-ui/components';
import { formatDateTime, formatPercent } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { canCorrectOcr, changedFields, fieldDirection, ocrFieldRows, parseExtractedFields, type FieldChange } from '@svc/web-ui/cases/case-logic';
import type { CaseDetail, OcrResult } from '@svc/web-ui/cases/case-types';
import { ChangesTable } from '@svc/web-ui/cases/changes-table';
import { caseMessages } from '@svc/web-ui/cases/messages';

interface Props {
  verification: CaseDetail;
  canWrite: boolean;
  onCorrected: () => void;
}

/** Extracted fields, corrected inline while the case is open; the last correction's before/after stays shown. */
export function OcrFields({ verification, canWrite, onCorrected }: Props) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  const [editing, setEditing] = useState<Record<string, string> | null>(null);
  const [notes, setNotes] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [nothingChanged, setNothingChanged] = useState(false);
  const [lastChanges, setLastChanges] = useState<FieldChange[]>([]);
  const ocr = verification.ocrResult;

  if (!ocr) {
    return (
      <section class="card" aria-labelledby="ocr-title">
        <h2 id="ocr-title">{t('ocr')}</h2>
        <p class="muted">{t('noOcr')}</p>
      </section>
    );
  }
  const rows = ocrFieldRows(ocr);
  const fields: [string, string][] = rows.map((row) => [row.field, row.value]);
  const toConfirmCount = rows.filter((row) => row.toConfirm).length;
  const correctable = canWrite && canCorrectOcr(verification.status) && fields.length > 0;

  const startEditing = () => {
    setEditing(Object.fromEntries(fields));
    setNotes('');
    setError(null);
    setNothingChanged(false);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const changes = changedFields(fields, editing);
    if (changes.length === 0) {
      setNothingChanged(true);
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const updated = await api<OcrResult>('PATCH', `/verifications/${verification.id}/ocr-fields`, {
        body: { fields: Object.fromEntries(changes.map((change) => [change.field, change.after])), ...(notes.trim() ? { notes: notes.trim() } : {}) },
      });
      // The answer is the stored result: "after" is what the server kept, not what was typed.
      const stored = new Map(parseExtractedFields(updated.extractedFieldsJson));
      setLastChanges(changes.map((change) => ({ ...change, after: stored.get(change.field) ?? change.after })));
      setEditing(null);
      onCorrected();
    } catch (caught) {
      setError(caught);
    } finally {
      setSaving(false);
    }
  };

  return (
    <section class="card" aria-labelledby="ocr-title">
      <div class="card-heading">
        <h2 id="ocr-title">{t('ocr')}</h2>
        {correctable && !editing ? (
          <button type="button" class="button" onClick={startEditing} data-testid="ocr-correct">
            {t('correctFields')}
          </button>
        ) : null}
      </div>
      <dl class="facts compact">
        <div>
          <dt>{t('model')}</dt>
          <dd>
            <bdi>
              {ocr.modelName} {ocr.modelVersion}
            </bdi>
          </dd>
        </div>
        <div>
          <dt>{t('confidence')}</dt>
          <dd>{formatPercent(ocr.confidenceScore, language)}</dd>
        </div>
        <div>
          <dt>{t('mrzValid')}</dt>
          <dd>{ocr.mrzIsValid === null ? t('notApplicable') : ocr.mrzIsValid ? t('yes') : t('no')}</dd>
        </div>
        <div>
          <dt>{t('manipulation')}</dt>
          <dd class={ocr.hasManipulationIndicators ? 'bad' : undefined}>{ocr.hasManipulationIndicators ? t('manipulationFound') : t('manipulationNone')}</dd>
        </div>
        <div>
          <dt>{t('analysedAt')}</dt>
          <dd>{formatDateTime(ocr.inferenceTimestamp, language)}</dd>
        </div>
      </dl>
      {ocr.mrzRawText ? (
        <div class="mrz">
          <h3>{t('mrzRaw')}</h3>
          <pre dir="ltr">{ocr.mrzRawText}</pre>
        </div>
      ) : null}
      {canWrite && fields.length > 0 && !canCorrectOcr(verification.status) ? <p class="muted">{t('ocrClosed')}</p> : null}

      {toConfirmCount > 0 ? (
        <p class="notice notice-warning" data-testid="ocr-to-confirm">
          {t('toConfirmHint', { count: String(toConfirmCount) })}
        </p>
      ) : null}

      <form onSubmit={(event) => void save(event)} data-testid="ocr-form">
        <table class="data ocr-fields" data-testid="ocr-fields">
          <caption class="visually-hidden">{t('extractedFields')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('field')}</th>
              <th scope="col">{t('value')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ field, value, toConfirm }) => (
              <tr key={field} data-field={field} class={toConfirm ? 'to-confirm' : undefined}>
                <th scope="row">
                  <code>{field}</code>
                  {toConfirm ? <span class="badge badge-attention">{t('toConfirm')}</span> : null}
                </th>
                <td>
                  {editing ? (
                    <>
                      <label class="visually-hidden" for={`ocr-${field}`}>
                        {t('valueOf', { field })}
                      </label>
                      <input id={`ocr-${field}`} value={editing[field] ?? ''} maxLength={1000} dir={fieldDirection(field)} onInput={(event) => {
                          setEditing({ ...editing, [field]: event.currentTarget.value });
                          setNothingChanged(false);
                        }} />
                    </>
                  ) : (
                    <bdi dir={fieldDirection(field)}>{value || '—'}</bdi>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {editing ? (
          <div class="ocr-edit-footer">
            <div class="field">
              <label for="ocr-notes">{t('correctionNotes')}</label>
              <textarea id="ocr-notes" value={notes} maxLength={2000} rows={2} dir="auto" onInput={(event) => setNotes(event.currentTarget.value)} />
            </div>
            {nothingChanged ? (
              <p class="notice notice-warning" role="status">
                {t('nothingChanged')}
              </p>
            ) : null}
            {error ? <ErrorNotice error={error} /> : null}
            <div class="button-row">
              <button type="submit" class="button button-primary" disabled={saving}>
                {saving ? t('saving') : t('saveCorrections')}
              </button>
              <button type="button" class="button" onClick={() => setEditing(null)} disabled={saving}>
                {t('cancelEditing')}
              </button>
            </div>
          </div>
        ) : null}
      </form>
      {lastChanges.length > 0 ? (
        <div class="last-correction" role="status" data-testid="ocr-correction-result">
          <h3>{t('correctionSaved')}</h3>
          <ChangesTable changes={lastChanges} testId="ocr-before-after" />
        </div>
      ) : null}
    </section>
  );
}
