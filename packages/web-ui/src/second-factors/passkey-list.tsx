import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { formatDateTime } from '../format.js';
import { useLanguage, useMessages } from '../i18n.js';
import { addPasskey } from '../sign-in/passkey-client.js';
import { secondFactorMessages } from './messages.js';

/**
 * The account's passkeys with "Add a passkey". `onChanged` gets the recovery codes of a first
 * factor, null after any other addition, undefined after a removal or a new name.
 */
export function PasskeyList(props: {
  accountPath: string;
  passkeys: { id: string; name: string | null; createdAt: string }[];
  onChanged: (recoveryCodes: string[] | null | undefined) => void;
  onError: (error: unknown) => void;
}) {
  const t = useMessages(secondFactorMessages);
  const { language } = useLanguage();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<{ id: string; name: string }>();
  const act = async (action: () => Promise<string[] | null | undefined>) => {
    setBusy(true);
    props.onError(undefined);
    try {
      props.onChanged(await action());
    } catch (failure) {
      props.onError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div data-testid="passkeys">
      <h3>{t('passkeysHeading')}</h3>
      {props.passkeys.length === 0 ? (
        <p>{t('passkeysNone')}</p>
      ) : (
        <ul class="passkey-list">
          {props.passkeys.map((passkey) =>
            renaming?.id === passkey.id ? (
              <li key={passkey.id} data-testid="passkey-item">
                <form
                  onSubmit={(event) => {
                    event.preventDefault();
                    void act(async () => (await api('PATCH', `${props.accountPath}/second-factors/passkeys/${passkey.id}`, { body: { name: renaming.name.trim() } }), setRenaming(undefined), undefined));
                  }}
                >
                  <label for={`rename-${passkey.id}`}>{t('renameLabel', { name: passkey.name ?? '' })}</label>{' '}
                  <input id={`rename-${passkey.id}`} name="name" required maxLength={60} value={renaming.name} onInput={(event) => setRenaming({ id: passkey.id, name: event.currentTarget.value })} />{' '}
                  <button type="submit" class="button button-primary" disabled={busy}>
                    {t('save')}
                  </button>{' '}
                  <button type="button" class="button" onClick={() => setRenaming(undefined)}>
                    {t('cancel')}
                  </button>
                </form>
              </li>
            ) : (
              <li key={passkey.id} data-testid="passkey-item">
                {t('passkeyItem', { name: passkey.name ?? '', date: formatDateTime(passkey.createdAt, language) })}{' '}
                <button type="button" class="button" disabled={busy} onClick={() => setRenaming({ id: passkey.id, name: passkey.name ?? '' })}>
                  {t('rename')}
                </button>{' '}
                <button type="button" class="button button-danger" disabled={busy} onClick={() => void act(async () => (await api('DELETE', `${props.accountPath}/second-factors/${passkey.id}`), undefined))}>
                  {t('remove')}
                </button>
              </li>
            ),
          )}
        </ul>
      )}
      <div class="field">
        <label for="passkey-name">{t('passkeyNameLabel')}</label>
        <input id="passkey-name" name="passkeyName" maxLength={60} value={name} onInput={(event) => setName(event.currentTarget.value)} />
      </div>
      <button
        type="button"
        class="button button-primary"
        disabled={busy}
        data-testid="add-passkey"
        onClick={() => void act(async () => {
          const { recoveryCodes } = await addPasskey(props.accountPath, name.trim() || undefined);
          setName('');
          return recoveryCodes;
        })}
      >
        {t('addPasskey')}
      </button>
    </div>
  );
}
