import { useMessages } from '../i18n.js';
import type { FieldChange } from './case-logic.js';
import { caseMessages } from './messages.js';

/** Before and after of corrected OCR fields: after a correction and in the timeline. */
export function ChangesTable({ changes, testId }: { changes: FieldChange[]; testId?: string }) {
  const t = useMessages(caseMessages);
  return (
    <table class="data changes" data-testid={testId}>
      <caption class="visually-hidden">{t('correctedFields')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('field')}</th>
          <th scope="col">{t('before')}</th>
          <th scope="col">{t('after')}</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.field} data-field={change.field}>
            <th scope="row">
              <code>{change.field}</code>
            </th>
            <td class="before">
              <bdi>{change.before || '—'}</bdi>
            </td>
            <td class="after">
              <bdi>{change.after || '—'}</bdi>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
