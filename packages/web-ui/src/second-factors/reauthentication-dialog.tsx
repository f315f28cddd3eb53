import { useEffect, useRef, useState } from 'preact/hooks';
import { api, setReauthenticationHandler } from '../api.js';
import { ErrorNotice } from '../components/index.js';
import { useMessages } from '../i18n.js';
import { passkeyAssertion, type PasskeyOptions } from '../sign-in/passkey-client.js';
import { secondFactorMessages } from './messages.js';

type Proof = { password: string } | { code: string } | { passkey: unknown };

/**
 * Mounted once per signed-in app: when a sensitive action answers 403 REAUTHENTICATION_REQUIRED,
 * this modal asks for the password, an authenticator code or a passkey, and the api layer then
 * sends the same request again. Cancelling lets the refusal reach the screen that asked.
 * `accountPath` is where the API serves the account (/portal/account or /account).
 */
export function ReauthenticationDialog(props: { accountPath: string }) {
  const t = useMessages(secondFactorMessages);
  const dialog = useRef<HTMLDialogElement>(null);
  // Several refused requests at once (two buttons, a retry) share one prompt.
  const waiting = useRef<((confirmed: boolean) => void)[]>([]);
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<'password' | 'code'>('password');
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  // Offered only when the account has a passkey: the options list the ones it may use.
  const [passkeyOptions, setPasskeyOptions] = useState<PasskeyOptions>();
  const loadPasskeyOptions = () =>
    api<PasskeyOptions>('POST', `${props.accountPath}/reauthenticate/passkey-options`).then(
      (options) => setPasskeyOptions(options.allowCredentials?.length ? options : undefined),
      () => setPasskeyOptions(undefined),
    );

  useEffect(() => {
    setReauthenticationHandler(
      () =>
        new Promise<boolean>((resolve) => {
          waiting.current.push(resolve);
          setOpen(true);
        }),
    );
    return () => setReauthenticationHandler(undefined);
  }, []);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      setMode('password');
      setValue('');
      setError(undefined);
      element.showModal();
      void loadPasskeyOptions();
    } else if (!open && element.open) element.close();
  }, [open]);

  const finish = (confirmed: boolean) => {
    const resolvers = waiting.current;
    waiting.current = [];
    setOpen(false);
    for (const resolve of resolvers) resolve(confirmed);
  };

  const confirm = async (proof: () => Promise<Proof>) => {
    setBusy(true);
    setError(undefined);
    try {
      await api('POST', `${props.accountPath}/reauthenticate`, { body: await proof() });
      finish(true);
    } catch (failure) {
      setError(failure);
      setValue('');
      // A passkey challenge is spent once: the next try needs fresh options.
      void loadPasskeyOptions();
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby="reauthentication-title"
      data-testid="reauthentication-dialog"
      onCancel={(event) => {
        event.preventDefault();
        finish(false);
      }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const entered = value.trim();
          if (entered) void confirm(async () => (mode === 'password' ? { password: value } : { code: entered.replace(/\s/g, '') }));
        }}
      >
        <h2 id="reauthentication-title">{t('reauthHeading')}</h2>
        <p class="dialog-body">{t('reauthBody')}</p>
        {error !== undefined && <ErrorNotice error={error} />}
        <div class="field">
          <label for="reauthentication-secret">{mode === 'password' ? t('reauthPassword') : t('reauthCode')}</label>
          {mode === 'password' ? (
            <input id="reauthentication-secret" name="password" type="password" required dir="ltr" autocomplete="current-password" value={value} onInput={(event) => setValue(event.currentTarget.value)} />
          ) : (
            <input id="reauthentication-secret" name="code" required dir="ltr" inputMode="numeric" autocomplete="one-time-code" value={value} onInput={(event) => setValue(event.currentTarget.value)} />
          )}
        </div>
        <p>
          <button type="button" class="button button-link" onClick={() => (setMode(mode === 'password' ? 'code' : 'password'), setValue(''))}>
            {mode === 'password' ? t('reauthUseCode') : t('reauthUsePassword')}
          </button>
        </p>
        {passkeyOptions && (
          <p>
            <button type="button" class="button" disabled={busy} data-testid="reauthenticate-passkey" onClick={() => void confirm(async () => ({ passkey: await passkeyAssertion(passkeyOptions) }))}>
              {t('reauthPasskey')}
            </button>
          </p>
        )}
        <div class="dialog-actions">
          <button type="button" class="button" onClick={() => finish(false)}>
            {t('cancel')}
          </button>
          <button type="submit" class="button button-primary" disabled={busy}>
            {t('reauthConfirm')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
