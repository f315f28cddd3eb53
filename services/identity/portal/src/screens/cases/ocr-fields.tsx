import { useState } from 'preact/hooks';
import { api } from '../../../../web-shared/api.js';
import { ErrorNotice } from '../../../../web-shared/components/index.js';
import { formatDateTime, formatPercent } from '../../../../web-shared/format.js';
import { useLanguage, useMessages } from '../../../../web-shared/i18n.js';
import { canCorrectOcr, changedFields, parseExtractedFields, type FieldChange } from '../../../../web-shared/cases/case-logic.js';
import type { CaseDetail, OcrResult } from '../../../../web-shared/cases/case-types.js';
import { ChangesTable } from '../../../../web-shared/cases/changes-table.js';
import { caseMessages } from '../../../../web-shared/cases/messages.js';

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
  const fields = parseExtractedFields(ocr.extractedFieldsJson);
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
            {fields.map(([field, value]) => (
              <tr key={field} data-field={field}>
                <th scope="row">
                  <code>{field}</code>
                </th>
                <td>
                  {editing ? (
                    <>
                      <label class="visually-hidden" for={`ocr-${field}`}>
                        {t('valueOf', { field })}
                      </label>
                      <input id={`ocr-${field}`} value={editing[field] ?? ''} maxLength={1000} dir="auto" onInput={(event) => {
                          setEditing({ ...editing, [field]: event.currentTarget.value });
                          setNothingChanged(false);
                        }} />
                    </>
                  ) : (
                    <bdi>{value || '—'}</bdi>
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
