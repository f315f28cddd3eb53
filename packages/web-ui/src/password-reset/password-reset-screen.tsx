import type { operations } from '@svc/identity-client/types';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';
import { ErrorNotice, LanguageToggle, NewPasswordField } from '../components/index.js';
import { useLanguage, useMessages } from '../i18n.js';
import { Link } from '../router.js';
import { passwordResetMessages } from './messages.js';
import { useSubmit } from '../use-submit.js';

const UNUSABLE = ['RESET_LINK_NOT_FOUND', 'RESET_LINK_EXPIRED', 'RESET_LINK_USED'] as const;
type UnusableCode = (typeof UNUSABLE)[number];
const unusableCode = (error: unknown): UnusableCode | undefined => (error instanceof ApiError ? UNUSABLE.find((code) => code === error.code) : undefined);

/** What confirm answers: a session (200) or a second factor still owed (202); the console's route answers the same shapes. */
type ConfirmAnswer = { [Status in 200 | 202]: operations['confirmPortalPasswordReset']['responses'][Status]['content']['application/json'] }[200 | 202];

/** The token travels in the link's fragment, which browsers never send to a server. */
const tokenFromLocation = () => decodeURIComponent(window.location.hash.replace(/^#/, ''));

function RequestForm(props: { apiPath: string }) {
  const t = useMessages(passwordResetMessages);
  const { language } = useLanguage();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await api('POST', props.apiPath, { body: { email: email.trim() }, quietUnauthenticated: true, language });
    setSent(true);
  });

  return (
    <form class="card sign-in-card" onSubmit={(event) => void submit(event)} aria-describedby="reset-intro" data-testid="password-reset-request">
      <h1>{t('requestTitle')}</h1>
      <p id="reset-intro" class="muted">
        {t('requestIntro')}
      </p>
      {error !== undefined && <ErrorNotice error={error} />}
      {sent ? (
        <div class="notice" role="status" data-testid="password-reset-sent">
          <p>{t('sent')}</p>
        </div>
      ) : (
        <>
          <div class="field">
            <label for="reset-email">{t('email')}</label>
            <input id="reset-email" type="email" autocomplete="username" required dir="ltr" value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
          </div>
          <button type="submit" class="button button-primary button-wide" disabled={busy}>
            {busy ? t('sending') : t('send')}
          </button>
        </>
      )}
      <Link href="/sign-in">{t('toSignIn')}</Link>
    </form>
  );
}

function ChooseForm<Session>(props: { apiPath: string; token: string; loadSession: () => Promise<Session | null>; onSignedIn: (session: Session) => void; onUnusable: (code: UnusableCode) => void }) {
  const t = useMessages(passwordResetMessages);
  const { language } = useLanguage();
  const [password, setPassword] = useState('');
  const [secondFactorOwed, setSecondFactorOwed] = useState(false);
  const { busy, error, submit } = useSubmit(
    async () => {
      const answer = await api<ConfirmAnswer>('POST', `${props.apiPath}/confirm`, { body: { token: props.token, password }, quietUnauthenticated: true, language });
      if ('secondFactorRequired' in answer) {
        setSecondFactorOwed(true);
        return;
      }
      const session = await props.loadSession();
      if (session) props.onSignedIn(session);
    },
    {
      handled: (failure) => {
        const code = unusableCode(failure);
        if (code) props.onUnusable(code);
        return code !== undefined;
      },
    },
  );

  if (secondFactorOwed) {
    return (
      <div class="card sign-in-card">
        <h1>{t('chooseTitle')}</h1>
        <div class="notice" role="status">
          <p>{t('secondFactorOwed')}</p>
        </div>
        <Link href="/sign-in">{t('toSignIn')}</Link>
      </div>
    );
  }
  return (
    <form class="card sign-in-card" onSubmit={(event) => void submit(event)} aria-describedby="choose-intro" data-testid="password-reset-choose">
      <h1>{t('chooseTitle')}</h1>
      <p id="choose-intro" class="muted">
        {t('chooseIntro')}
      </p>
      {error !== undefined && <ErrorNotice error={error} />}
      <NewPasswordField id="reset-password" label={t('password')} hint={t('passwordHint')} value={password} onInput={setPassword} />
      <button type="submit" class="button button-primary button-wide" disabled={busy}>
        {busy ? t('saving') : t('save')}
      </button>
    </form>
  );
}

/**
 * "Forgot password?": without a token, the form that mails a link; with the link's token in the
 * fragment, the new password, which signs in. A spent or expired link says what to do next. The
 * portal and the console differ only in the API path and the session they load afterwards.
 */
export function PasswordResetScreen<Session>(props: { apiPath: string; loadSession: () => Promise<Session | null>; onSignedIn: (session: Session) => void }) {
  const t = useMessages(passwordResetMessages);
  const [token, setToken] = useState(tokenFromLocation);
  const [unusable, setUnusable] = useState<UnusableCode>();
  useEffect(() => {
    // A link opened in the tab already showing this page changes only the fragment: no reload.
    const follow = () => {
      setUnusable(undefined);
      setToken(tokenFromLocation());
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const requestAnother = () => {
    window.history.replaceState(null, '', window.location.pathname);
    setUnusable(undefined);
    setToken('');
  };
  return (
    <main class="sign-in" id="main">
      <div class="sign-in-language">
        <LanguageToggle />
      </div>
      {unusable ? (
        <div class="card sign-in-card" data-testid="password-reset-unusable" data-code={unusable}>
          <h1>{t('unusableTitle')}</h1>
          <div class="notice notice-error" role="alert">
            <p>{t(unusable)}</p>
          </div>
          <button type="button" class="button button-primary button-wide" onClick={requestAnother}>
            {t('requestAnother')}
          </button>
          <Link href="/sign-in">{t('toSignIn')}</Link>
        </div>
      ) : token ? (
        <ChooseForm apiPath={props.apiPath} token={token} loadSession={props.loadSession} onSignedIn={props.onSignedIn} onUnusable={setUnusable} />
      ) : (
        <RequestForm apiPath={props.apiPath} />
      )}
    </main>
  );
}
