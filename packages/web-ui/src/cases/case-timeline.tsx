import { StatusBadge, statusLabel } from '../components/index.js';
import { formatDateTime } from '../format.js';
import { useLanguage, useMessages } from '../i18n.js';
import { actorKind, entryFieldChanges, entryNote } from './case-logic.js';
import type { CaseHistoryEntry } from './case-types.js';
import { caseMessages, type CaseMessageKey } from './messages.js';

/** Audit actions with a sentence of their own; any other action is shown as recorded. */
const ACTION_LABELS: Record<string, CaseMessageKey> = {
  'verification.created': 'action.created',
  'verification.session_reissued': 'action.sessionReissued',
  'verification.ocr_fields_corrected': 'action.ocrCorrected',
  'evidence.uploaded': 'action.evidenceUploaded',
  'verification.consent_given': 'action.consentGiven',
  'verification.redaction_requested': 'action.redactionRequested',
  'verification.redacted': 'action.redacted',
};

/** The case's audit trail, oldest first: state changes with who moved the case and why. */
export function CaseTimeline({ entries }: { entries: CaseHistoryEntry[] }) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  if (entries.length === 0) return <p class="muted">{t('noHistory')}</p>;
  return (
    <ol class="timeline" data-testid="case-timeline">
      {entries.map((entry, index) => {
        const note = entryNote(entry.detail);
        const changes = entry.action === 'verification.ocr_fields_corrected' ? entryFieldChanges(entry.detail) : [];
        const label = ACTION_LABELS[entry.action];
        return (
          <li key={`${entry.at}-${index}`} class={entry.toStatus ? 'state-change' : 'event'} data-action={entry.action} data-to-status={entry.toStatus ?? undefined}>
            <time dateTime={entry.at}>{formatDateTime(entry.at, language)}</time>
            <div class="timeline-what">
              {label || !entry.toStatus ? <span class="timeline-action">{label ? t(label) : entry.action}</span> : null}
              {entry.toStatus ? <StatusBadge status={entry.toStatus} /> : null}
              {entry.fromStatus ? <span class="muted">{t('fromStatus', { status: statusLabel(entry.fromStatus, language) })}</span> : null}
            </div>
            <div class="timeline-actor muted">{t('byActor', { actor: t(`actor.${actorKind(entry.actor)}` as const) })}</div>
            {note ? (
              <div class="timeline-note">
                <span class="muted">{t(note.kind)}</span>
                <p dir="auto">{note.text}</p>
              </div>
            ) : null}
            {changes.length > 0 ? <CorrectedValues changes={changes} /> : null}
          </li>
        );
      })}
    </ol>
  );
}

/** Each corrected field with its new value, and its old one when the trail recorded it. */
function CorrectedValues({ changes }: { changes: ReturnType<typeof entryFieldChanges> }) {
  const t = useMessages(caseMessages);
  return (
    <ul class="corrected-values">
      {changes.map((change) => (
        <li key={change.field} data-field={change.field}>
          <code>{change.field}</code>:{' '}
          {change.before === null ? null : (
            <>
              <bdi class="before">{change.before || '—'}</bdi> {t('changedTo')}{' '}
            </>
          )}
          <bdi class="after">{change.after || '—'}</bdi>
        </li>
      ))}
    </ul>
  );
}
