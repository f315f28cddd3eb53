import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { LanguageToggle } from '../components/index.js';
import { useLanguage, useMessages } from '../i18n.js';
import { signInMessages } from './messages.js';
import { signInErrorMessage, type SecondStepProof } from './sign-in-form.js';
import { passkeyAssertion, secondStepPasskeyOptions, type PasskeyOptions } from './passkey-client.js';

/** After the password: a code from the authenticator app, or one of the recovery codes. */
export function SecondStepForm(props: { title: string; loginPath: string; onSubmit: (proof: SecondStepProof) => Promise<void>; onExpired: () => void }) {
  const t = useMessages(signInMessages);
  const { language } = useLanguage();
  const [useRecovery, setUseRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>();
  // Offered only when the account has a passkey: the options list the ones it may use.
  const [passkeyOptions, setPasskeyOptions] = useState<PasskeyOptions>();
  useEffect(() => {
    secondStepPasskeyOptions(props.loginPath).then(
      (options) => setPasskeyOptions(options.allowCredentials?.length ? options : undefined),
      () => setPasskeyOptions(undefined),
    );
  }, [props.loginPath]);

  const usePasskey = async (options: PasskeyOptions) => {
    setSubmitting(true);
    setError(undefined);
    try {
      await props.onSubmit({ passkey: await passkeyAssertion(options) });
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 401) props.onExpired();
      setError(failure);
      // A challenge is spent once: the next try needs fresh options.
      secondStepPasskeyOptions(props.loginPath).then(setPasskeyOptions, () => setPasskeyOptions(undefined));
    } finally {
      setSubmitting(false);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setSubmitting(true);
    setError(undefined);
    try {
      await props.onSubmit(useRecovery ? { recoveryCode: value.trim() } : { code: value.replace(/\s/g, '') });
    } catch (failure) {
      // An expired or spent pending sign-in: the password is asked again.
      if (failure instanceof ApiError && failure.status === 401) props.onExpired();
      setError(failure);
      setValue('');
    } finally {
      setSubmitting(false);
    }
  };
  const message = (failure: unknown) =>
    failure instanceof ApiError && failure.code === 'INVALID_CODE' ? (language === 'en' ? failure.detail : t('invalidCode')) : signInErrorMessage(failure, t, language);

  return (
    <main class="sign-in" id="main">
      <div class="sign-in-language">
        <LanguageToggle />
      </div>
      <form class="card sign-in-card" onSubmit={(event) => void submit(event)} aria-describedby="second-step-intro" data-testid="second-step-form">
        <h1>{props.title}</h1>
        <p id="second-step-intro" class="muted">
          {t('secondStepIntro')}
        </p>
        {error !== undefined && (
          <div class="notice notice-error" role="alert" data-code={error instanceof ApiError ? error.code : undefined}>
            <p>{message(error)}</p>
          </div>
        )}
        <div class="field">
          <label for="second-step-code">{useRecovery ? t('recoveryCode') : t('code')}</label>
          <input
            id="second-step-code"
            name="code"
            required
            dir="ltr"
            autocomplete="one-time-code"
            inputMode={useRecovery ? 'text' : 'numeric'}
            pattern={useRecovery ? undefined : '[0-9 ]{6,7}'}
            value={value}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
        </div>
        <button type="submit" class="button button-primary button-wide" disabled={submitting}>
          {t('verify')}
        </button>
        <button type="button" class="button button-link" onClick={() => (setUseRecovery(!useRecovery), setValue(''), setError(undefined))}>
          {useRecovery ? t('useCode') : t('useRecoveryCode')}
        </button>
        {passkeyOptions && (
          <button type="button" class="button button-wide" disabled={submitting} onClick={() => void usePasskey(passkeyOptions)} data-testid="second-step-passkey">
            {t('usePasskey')}
          </button>
        )}
      </form>
    </main>
  );
}
