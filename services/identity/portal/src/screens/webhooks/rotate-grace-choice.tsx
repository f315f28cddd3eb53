import { useMessages } from '@svc/web-ui/i18n';
import { webhookMessages } from './messages.js';
import { PREVIOUS_SECRET_GRACE_SECONDS, type PreviousSecretGrace } from './webhook-api.js';

const DEFAULT_GRACE: PreviousSecretGrace = 86_400;

/** Rotation's one option: the old secret stops at once (default) or keeps signing for a grace window. */
export function RotateGraceChoice(props: { value: PreviousSecretGrace | undefined; onChange: (value: PreviousSecretGrace | undefined) => void }) {
  const t = useMessages(webhookMessages);
  return (
    <fieldset class="rotate-grace" data-testid="rotate-grace">
      <legend>{t('previousLegend')}</legend>
      <label>
        <input type="radio" name="rotate-grace" checked={props.value === undefined} onChange={() => props.onChange(undefined)} /> {t('previousNow')}
      </label>
      <label>
        <input type="radio" name="rotate-grace" checked={props.value !== undefined} onChange={() => props.onChange(DEFAULT_GRACE)} /> {t('previousKeep')}
      </label>
      <select
        aria-label={t('previousKeepFor')}
        disabled={props.value === undefined}
        value={String(props.value ?? DEFAULT_GRACE)}
        onChange={(event) => props.onChange(Number(event.currentTarget.value) as PreviousSecretGrace)}
      >
        {PREVIOUS_SECRET_GRACE_SECONDS.map((seconds) => (
          <option key={seconds} value={String(seconds)}>
            {t(`grace_${seconds}`)}
          </option>
        ))}
      </select>
    </fieldset>
  );
}
