import { useEffect, useState } from 'preact/hooks';
import { useMessages } from '../i18n.js';
import { componentMessages } from './messages.js';

/** Copies `text` to the clipboard and says so for two seconds (announced by screen readers). */
export function CopyButton(props: { text: string; label?: string; /** When several copy buttons share a label, says which value this one copies. */ ariaLabel?: string; class?: string }) {
  const t = useMessages(componentMessages);
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };

  return (
    <span class="copy">
      <button type="button" class={props.class ?? 'button button-small'} aria-label={props.ariaLabel} onClick={() => void copy()}>
        {props.label ?? t('copy')}
      </button>
      <span class="copy-status" role="status" aria-live="polite">
        {state === 'copied' ? t('copied') : state === 'failed' ? t('copyFailed') : ''}
      </span>
    </span>
  );
}
