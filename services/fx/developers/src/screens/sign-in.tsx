import type { Language } from '@svc/fx-client/types';
import { useState } from 'preact/hooks';
import { api, ApiProblem, type DashboardConfig, type Me } from '../api.js';
import { fill, type Messages } from '../i18n/messages.js';
import { problemText } from '../problems.js';
import { AccountForm, EmailField, FormError, PasswordField, ScreenLink, type Go } from './account-fields.js';

interface CredentialsFormProps {
  t: Messages;
  submitLabel: string;
  /** New passwords get the rules beside the field and the browser's new-password autofill. */
  newPassword: boolean;
  onSubmit: (email: string, password: string) => Promise<void>;
  testId: string;
}

function CredentialsForm({ t, submitLabel, newPassword, onSubmit, testId }: CredentialsFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  return (
    <AccountForm testId={testId} submitLabel={submitLabel} onSubmit={() => onSubmit(email.trim(), password)}>
      <EmailField t={t} value={email} onInput={setEmail} />
      <PasswordField t={t} label={t.password} newPassword={newPassword} value={password} onInput={setPassword} />
    </AccountForm>
  );
}

export function SignUpScreen({ t, language, config, go }: { t: Messages; language: Language; config: DashboardConfig | null; go: Go }) {
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [closed, setClosed] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (config?.signup === 'closed' || closed) {
    return (
      <section class="card narrow" aria-labelledby="closed-title" data-testid="signup-closed">
        <h2 id="closed-title">{t.closedTitle}</h2>
        <p>{t.closedText}</p>
        <ScreenLink screen="sign-in" go={go}>
          {t.signIn}
        </ScreenLink>
      </section>
    );
  }
  if (sentTo !== null) {
    return (
      <section class="card narrow" aria-labelledby="mail-title" data-testid="check-mail">
        <h2 id="mail-title">{t.checkMailTitle}</h2>
        <p>{fill(t.checkMailText, { email: sentTo })}</p>
      </section>
    );
  }
  const signUp = async (email: string, password: string) => {
    setError(null);
    try {
      await api.signUp({ email, password, language });
      setSentTo(email);
    } catch (problem) {
      // Closed since the page loaded: the answer says so, and the closed page replaces the form.
      if (problem instanceof ApiProblem && problem.status === 403) return setClosed(true);
      setError(problemText(problem, t, { 400: fill(t.invalidSignUp, { detail: problem instanceof ApiProblem ? problem.detail : '' }) }));
    }
  };
  return (
    <section class="card narrow" aria-labelledby="signup-title">
      <h2 id="signup-title">{t.signUp}</h2>
      <p>{t.signUpLead}</p>
      <CredentialsForm t={t} submitLabel={t.createAccount} newPassword onSubmit={signUp} testId="signup-form" />
      <FormError text={error} />
      <p class="note">
        {t.haveAccount}{' '}
        <ScreenLink screen="sign-in" go={go}>
          {t.signIn}
        </ScreenLink>
      </p>
    </section>
  );
}

/** The lock's remaining minutes, from the API's Retry-After (the whole lock when the answer has none). */
const lockedMinutes = (problem: unknown) => Math.max(1, Math.ceil((problem instanceof ApiProblem && problem.retryAfter !== undefined ? problem.retryAfter : 15 * 60) / 60));

/** `notice`: what brought the reader here, e.g. a password just changed with a reset link. */
export function SignInScreen({ t, onSignedIn, go, notice }: { t: Messages; onSignedIn: (me: Me) => void; go: Go; notice?: string | undefined }) {
  const [error, setError] = useState<string | null>(null);
  const signIn = async (email: string, password: string) => {
    setError(null);
    try {
      onSignedIn(await api.signIn({ email, password }));
    } catch (problem) {
      setError(problemText(problem, t, { 401: t.wrongCredentials, 403: t.notVerified, 429: fill(t.locked, { minutes: lockedMinutes(problem) }) }));
    }
  };
  return (
    <section class="card narrow" aria-labelledby="signin-title">
      <h2 id="signin-title">{t.signIn}</h2>
      {notice && (
        <p class="notice" role="status" data-testid="signin-notice">
          {notice}
        </p>
      )}
      <p>{t.signInLead}</p>
      <CredentialsForm t={t} submitLabel={t.signIn} newPassword={false} onSubmit={signIn} testId="signin-form" />
      <FormError text={error} testId="signin-error" />
      <p class="note">
        <ScreenLink screen="forgot" go={go}>
          {t.forgotLink}
        </ScreenLink>
      </p>
      <p class="note">
        {t.noAccount}{' '}
        <ScreenLink screen="sign-up" go={go}>
          {t.signUp}
        </ScreenLink>
      </p>
    </section>
  );
}
