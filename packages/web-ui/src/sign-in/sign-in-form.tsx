import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { LanguageToggle } from '../components/index.js';
import { Link } from '../router.js';
import { type Language, type Translate, useLanguage, useMessages } from '../i18n.js';
import { signInMessages } from './messages.js';
import { SecondStepForm } from './second-step-form.js';
import { signInWithPasskey } from './passkey-client.js';

type SignInTranslate = Translate<keyof (typeof signInMessages)['en']>;

/**
 * The API's answer in the reader's language: English shows the API's own detail (it is written
 * for people); Arabic its translation, with the lockout's remaining minutes from Retry-After.
 */
export function signInErrorMessage(error: unknown, t: SignInTranslate, language: Language): string {
  if (!(error instanceof ApiError)) return t('failed', { detail: error instanceof Error ? error.message : String(error) });
  const english = language === 'en';
  if (error.code === 'ACCOUNT_LOCKED') {
    const minutes = Math.max(1, Math.ceil((error.retryAfterSeconds ?? 15 * 60) / 60));
    return t('lockedMinutes', { minutes });
  }
  if (error.code === 'ACCOUNT_DISABLED') return english ? error.detail : t('disabled');
  if (error.code === 'PASSKEY_CANCELLED') return t('passkeyCancelled');
  if (error.status === 401) {
    if (english) return error.detail;
    return /locked/i.test(error.detail) ? t('lockedNow') : t('wrongCredentials');
  }
  return t('failed', { detail: error.detail });
}

export type SignInOutcome = 'session' | 'second-factor';
export type SecondStepProof = { code: string } | { recoveryCode: string } | { passkey: unknown };

/** A 202 from a login route: the password was right and a second step is owed. */
export const outcomeOf = (answer: { secondFactorRequired?: boolean } | undefined): SignInOutcome => (answer?.secondFactorRequired ? 'second-factor' : 'session');

export interface SignInFormProps<Session> {
  /** The heading and the line under it, already in the reader's language. */
  title: string;
  intro: string;
  /** The password step: 'second-factor' when the account must also give a code (the session is not issued yet). */
  signIn: (email: string, password: string) => Promise<SignInOutcome>;
  /** The second step, with the pending sign-in kept in its HttpOnly cookie. */
  completeSecondStep: (proof: SecondStepProof) => Promise<void>;
  /** Read after signing in: null means the cookie was not kept. */
  loadSession: () => Promise<Session | null>;
  onSignedIn: (session: Session) => void;
  /** Where the API's login routes are (/portal/login or /login): the passkey routes live under it. */
  loginPath: string;
  /** The app's page that mails a reset link ("Forgot password?"). */
  forgotPasswordHref?: string;
}

/** The sign-in page of the portal and the console: the same form, lockout messages and language switch. */
export function SignInForm<Session>(props: SignInFormProps<Session>) {
  const t = useMessages(signInMessages);
  const { language } = useLanguage();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>();
  const [secondStep, setSecondStep] = useState(false);

  const finish = async () => {
    const session = await props.loadSession();
    if (!session) throw new ApiError(401, { detail: 'The session was not kept: allow cookies for this site.' });
    props.onSignedIn(session);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setSubmitting(true);
    setError(undefined);
    try {
      if ((await props.signIn(email.trim(), password)) === 'second-factor') setSecondStep(true);
      else await finish();
    } catch (failure) {
      setError(failure);
      setPassword('');
    } finally {
      setSubmitting(false);
    }
  };

  const withPasskey = async () => {
    setSubmitting(true);
    setError(undefined);
    try {
      await signInWithPasskey(props.loginPath);
      await finish();
    } catch (failure) {
      setError(failure);
    } finally {
      setSubmitting(false);
    }
  };

  if (secondStep) {
    return (
      <SecondStepForm
        title={props.title}
        loginPath={props.loginPath}
        onSubmit={async (proof) => {
          await props.completeSecondStep(proof);
          await finish();
        }}
        onExpired={() => {
          setSecondStep(false);
          setPassword('');
        }}
      />
    );
  }

  return (
    <main class="sign-in" id="main">
      <div class="sign-in-language">
        <LanguageToggle />
      </div>
      <form class="card sign-in-card" onSubmit={(event) => void submit(event)} aria-describedby="sign-in-intro">
        <h1>{props.title}</h1>
        <p id="sign-in-intro" class="muted">
          {props.intro}
        </p>
        {error !== undefined && (
          <div class="notice notice-error" role="alert" data-code={error instanceof ApiError ? error.code : undefined}>
            <p>{signInErrorMessage(error, t, language)}</p>
          </div>
        )}
        <div class="field">
          <label for="sign-in-email">{t('email')}</label>
          <input id="sign-in-email" type="email" name="email" autocomplete="username" required dir="ltr" value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="sign-in-password">{t('password')}</label>
          <input id="sign-in-password" type="password" name="password" autocomplete="current-password" required dir="ltr" value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
          {props.forgotPasswordHref && (
            <Link href={props.forgotPasswordHref} class="sign-in-forgot">
              {t('forgotPassword')}
            </Link>
          )}
        </div>
        <button type="submit" class="button button-primary button-wide" disabled={submitting}>
          {submitting ? t('submitting') : t('submit')}
        </button>
        <p class="muted sign-in-or">{t('or')}</p>
        <button type="button" class="button button-wide" disabled={submitting} onClick={() => void withPasskey()} data-testid="passkey-sign-in">
          {t('withPasskey')}
        </button>
      </form>
    </main>
  );
}
