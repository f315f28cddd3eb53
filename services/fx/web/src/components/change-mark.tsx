import type { Formatters } from '../i18n/format.js';
import type { Messages } from '../i18n/messages.js';

/** ▲/▼ with the signed percent; the arrow is decorative, the word (up/down) is read out. */
export function ChangeMark({ percent, t, format }: { percent: number | null; t: Messages; format: Formatters }) {
  if (percent === null || !Number.isFinite(percent)) return <span class="change none">—</span>;
  const direction = percent > 0 ? 'up' : percent < 0 ? 'down' : 'unchanged';
  const arrow = direction === 'up' ? '▲' : direction === 'down' ? '▼' : '●';
  return (
    <span class={`change ${direction}`} title={t.changeAgainstPreviousDay}>
      <span aria-hidden="true">{arrow}</span>
      <span class="visually-hidden">{t[direction]} </span>
      <bdi>{format.signedPercent(percent)}</bdi>
    </span>
  );
}
