import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem } from '../api.js';
import { fill, type Messages } from '../i18n/messages.js';
import { problemText } from '../problems.js';
import { AccountForm, BackToSignIn, EmailField, FormError, PasswordField, type Go } from './account-fields.js';

/** Minutes until the API takes another request, from its Retry-After. */
const minutesToWait = (problem: unknown) => Math.max(1, Math.ceil((problem instanceof ApiProblem ? (problem.retryAfter ?? 60) : 60) / 60));

/**
 * "Forgot password?": the address, then one neutral answer whatever the address (the API answers
 * known and unknown addresses alike, so the screen cannot tell them apart either).
 */
export function ForgotScreen({ t, go }: { t: Messages; go: Go }) {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const send = async () => {
    setError(null);
    try {
      await api.forgotPassword(email.trim());
      setSentTo(email.trim());
    } catch (problem) {
      setError(problemText(problem, t, { 429: fill(t.tooManyResetRequests, { minutes: minutesToWait(problem) }) }));
    }
  };
  return (
    <section class="card narrow" aria-labelledby="forgot-title" data-testid="forgot">
      <h2 id="forgot-title">{t.forgotTitle}</h2>
      {sentTo === null && (
        <>
          <p>{t.forgotLead}</p>
          <AccountForm testId="forgot-form" submitLabel={t.sendLink} onSubmit={send}>
            <EmailField t={t} value={email} onInput={setEmail} />
          </AccountForm>
        </>
      )}
      {/* Present from the start, so the answer is read out when it arrives. */}
      <div role="status" data-testid="forgot-sent">
        {sentTo !== null && <p class="notice">{fill(t.forgotSent, { email: sentTo })}</p>}
      </div>
      <FormError text={error} testId="forgot-error" />
      <BackToSignIn t={t} go={go} />
    </section>
  );
}

/** The shape of the link's token (32 random bytes, base64url), as the API checks it: a cut link is refused here, before a password is typed. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const tokenInAddress = () => location.hash.slice(1);

function useLinkToken(): string {
  const [token, setToken] = useState(tokenInAddress);
  useEffect(() => {
    // Kept in memory, out of the address bar (as the verify link's token): neither history nor a screenshot holds it.
    const take = () => {
      const found = tokenInAddress();
      if (found) setToken(found);
      history.replaceState(null, '', location.pathname);
    };
    take();
    // A link pasted into this tab changes only the fragment: no reload, so it is taken here.
    window.addEventListener('hashchange', take);
    return () => window.removeEventListener('hashchange', take);
  }, []);
  return token;
}

/**
 * The mailed link, `/developers/reset#<token>`: the new password, which ends every session of the
 * account and does not sign in (record 0621); on 204 the reader is sent to sign in. A link that
 * cannot be used says why (unknown, expired, used) and offers a new one.
 */
export function ResetScreen({ t, go, onPasswordChanged }: { t: Messages; go: Go; onPasswordChanged: () => void }) {
  const token = useLinkToken();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [unusable, setUnusable] = useState<string | null>(null);
  const unusableText: Record<string, string> = { RESET_LINK_NOT_FOUND: t.resetLinkNotFound, RESET_LINK_EXPIRED: t.resetLinkExpired, RESET_LINK_USED: t.resetLinkUsed };
  const code = !token ? 'missing' : !TOKEN.test(token) ? 'RESET_LINK_NOT_FOUND' : unusable;
  useEffect(() => {
    // Another link pasted into this tab starts afresh.
    setUnusable(null);
    setError(null);
  }, [token]);

  const save = async () => {
    setError(null);
    try {
      await api.resetPassword(token, password);
      onPasswordChanged();
    } catch (problem) {
      if (problem instanceof ApiProblem && (problem.status === 404 || problem.status === 410)) return setUnusable(problem.code ?? 'RESET_LINK_NOT_FOUND');
      setError(problemText(problem, t, { 400: fill(t.invalidNewPassword, { detail: problem instanceof ApiProblem ? problem.detail : '' }) }));
    }
  };

  return (
    <section class="card narrow" aria-labelledby="reset-title" data-testid="reset">
      <h2 id="reset-title">{t.resetTitle}</h2>
      {code ? (
        <>
          <p class="field-error" role="alert" data-testid="reset-unusable" data-code={code}>
            {code === 'missing' ? t.resetLinkMissing : (unusableText[code] ?? t.resetLinkNotFound)}
          </p>
          <p>
            <button type="button" class="primary" onClick={() => go('forgot')}>
              {t.requestAnother}
            </button>
          </p>
        </>
      ) : (
        <>
          <p>{t.resetLead}</p>
          <AccountForm testId="reset-form" submitLabel={t.setPassword} onSubmit={save}>
            <PasswordField t={t} label={t.newPassword} newPassword value={password} onInput={setPassword} />
          </AccountForm>
          <FormError text={error} testId="reset-error" />
        </>
      )}
      <BackToSignIn t={t} go={go} />
    </section>
  );
}
