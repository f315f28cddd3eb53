import type { DeveloperScreen } from '@svc/fx-client/types';
import { useEffect, useState } from 'preact/hooks';
import { api, type Verified } from '../api.js';
import type { Messages } from '../i18n/messages.js';
import { problemText } from '../problems.js';

/**
 * The mailed link, `/developers/verify#<token>`: the token is in the fragment, which no request
 * carries, and is removed from the address bar before it is spent, so neither history nor a
 * shared screenshot keeps it.
 */
export function VerifyScreen({ t, onVerified, go }: { t: Messages; onVerified: (verified: Verified) => void; go: (screen: DeveloperScreen) => void }) {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const token = location.hash.slice(1);
    history.replaceState(null, '', location.pathname);
    if (!token) return setError(t.verifyFailed);
    api.verify(token).then(onVerified, (problem: unknown) => setError(problemText(problem, t, { 400: t.verifyFailed, 404: t.verifyFailed, 410: t.verifyFailed })));
    // Once: the token is spent by the first attempt.
  }, []);
  return (
    <section class="card narrow" aria-labelledby="verify-title" data-testid="verify">
      <h2 id="verify-title">{t.verifying}</h2>
      {error && (
        <>
          <p class="field-error" role="alert">
            {error}
          </p>
          <p>
            <button type="button" class="link-button" onClick={() => go('sign-in')}>
              {t.signIn}
            </button>{' '}
            ·{' '}
            <button type="button" class="link-button" onClick={() => go('sign-up')}>
              {t.signUp}
            </button>
          </p>
        </>
      )}
    </section>
  );
}
