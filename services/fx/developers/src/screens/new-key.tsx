import { useEffect, useRef, useState } from 'preact/hooks';
import type { NewClient, RotatedKey } from '../api.js';
import type { Formatters } from '../format.js';
import { fill, type DashboardMessages, type Messages } from '../i18n/messages.js';

export function CopyButton({ t, text, label, testId }: { t: Messages; text: string; label: string; testId: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () => navigator.clipboard.writeText(text).then(() => setState('copied'), () => setState('failed'));
  return (
    <>
      <button type="button" class="copy" onClick={() => void copy()} aria-label={`${t.copy}: ${label}`} data-testid={testId}>
        {state === 'copied' ? t.copied : t.copy}
      </button>
      <span class="visually-hidden" role="status">
        {state === 'copied' ? t.copied : ''}
      </span>
      {state === 'failed' && <span class="field-error">{t.copyFailed}</span>}
    </>
  );
}

/** The call a reader can paste at once: their own profile, with the keys in the headers the API reads. */
function curlExample(publicKey: string, privateKey: string): string {
  return `curl '${location.origin}/api/v1/client/me' \\\n  -H 'X-Api-Key: ${publicKey}' \\\n  -H 'X-Api-Secret: ${privateKey}'`;
}

/**
 * That call as a block that scrolls sideways on a narrow screen: focusable and named, so a keyboard
 * can scroll it too (axe: scrollable-region-focusable).
 */
export function CurlExample({ label, publicKey, privateKey }: { label: string; publicKey: string; privateKey: string }) {
  return (
    <pre class="curl" dir="ltr" data-testid="curl-example" tabIndex={0} role="region" aria-label={label}>
      <code>{curlExample(publicKey, privateKey)}</code>
    </pre>
  );
}

/** A key pair just made: the private key is in this component's props only, never stored, so it is shown once. */
export function NewKeyPanel({ t, created }: { t: Messages; created: NewClient }) {
  return (
    <section class="card new-key" aria-labelledby="new-key-title" data-testid="new-key">
      <h2 id="new-key-title">{fill(t.newKeyTitle, { name: created.name })}</h2>
      <p class="warning" role="note">
        {t.newKeyWarning}
      </p>
      <dl class="key-pair">
        <dt>{t.publicKey}</dt>
        <dd>
          <code data-testid="new-public-key">{created.publicKey}</code>
          <CopyButton t={t} text={created.publicKey} label={t.publicKey} testId="copy-public-key" />
        </dd>
        <dt>{t.privateKey}</dt>
        <dd>
          <code data-testid="new-private-key">{created.privateKey}</code>
          <CopyButton t={t} text={created.privateKey} label={t.privateKey} testId="copy-private-key" />
        </dd>
      </dl>
      <h3>{t.tryIt}</h3>
      <p class="note">{t.tryItNote}</p>
      <CurlExample label={t.tryIt} publicKey={created.publicKey} privateKey={created.privateKey} />
    </section>
  );
}

/** A private key a rotation just issued: shown once, with until when the replaced one still works. */
export function RotatedKeyPanel({ t, format, name, rotated }: { t: DashboardMessages; format: Formatters; name: string; rotated: RotatedKey }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The row's button that asked for it is gone: bring the reader to the key they must copy now.
  useEffect(() => heading.current?.focus(), [rotated.privateKey]);
  return (
    <section class="card new-key" aria-labelledby="rotated-key-title" data-testid="rotated-key">
      <h2 id="rotated-key-title" ref={heading} tabIndex={-1}>{fill(t.rotatedTitle, { name })}</h2>
      <p class="warning" role="note">
        {rotated.previousKeyExpiresUtc ? fill(t.rotatedWarning, { instant: format.instant(rotated.previousKeyExpiresUtc) }) : t.rotatedAtOnce}
      </p>
      <dl class="key-pair">
        <dt>{t.publicKey}</dt>
        <dd>
          <code>{rotated.publicKey}</code>
        </dd>
        <dt>{t.privateKey}</dt>
        <dd>
          <code data-testid="rotated-private-key">{rotated.privateKey}</code>
          <CopyButton t={t} text={rotated.privateKey} label={t.privateKey} testId="copy-rotated-private-key" />
        </dd>
      </dl>
      {rotated.previousKeyExpiresUtc && <time hidden dateTime={rotated.previousKeyExpiresUtc} data-testid="old-key-expires" />}
    </section>
  );
}
