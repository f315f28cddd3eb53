import { useState } from 'preact/hooks';
import { api, ApiError } from '@svc/web-ui/api';
import { DataTable, ErrorNotice, Loading, NewPasswordField, PageHeader, useAsync } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { accountMessages } from './messages.js';
import { AccountSecurity } from './security.js';
import { useSession } from '../../session.js';
import './account.css';
import type { OwnPortalSession } from '@svc/identity-client/types';

/** GET /portal/account/sessions */
type OwnSession = OwnPortalSession;

function PasswordForm(props: { onChanged: () => void }) {
  const t = useMessages(accountMessages);
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<number>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const result = await api<{ endedSessions: number }>('POST', '/portal/account/password', { body: { currentPassword, newPassword } });
      setDone(result.endedSessions);
      setCurrentPassword('');
      setNewPassword('');
      props.onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card account-card" onSubmit={(event) => void submit(event)} data-testid="password-form">
      <h2>{t('passwordHeading')}</h2>
      {done !== undefined && (
        <div class="notice notice-success" role="status">
          <p>{t('passwordChanged', { count: done })}</p>
        </div>
      )}
      {error !== undefined &&
        (error instanceof ApiError && error.code === 'WRONG_PASSWORD' ? (
          <div class="notice notice-error" role="alert" data-code="WRONG_PASSWORD">
            <p>{t('wrongPassword')}</p>
          </div>
        ) : (
          <ErrorNotice error={error} />
        ))}
      <div class="field">
        <label for="current-password">{t('currentPassword')}</label>
        <input id="current-password" type="password" autocomplete="current-password" required dir="ltr" value={currentPassword} onInput={(event) => setCurrentPassword(event.currentTarget.value)} />
      </div>
      <NewPasswordField id="new-password" label={t('newPassword')} hint={t('passwordHint')} value={newPassword} onInput={setNewPassword} />
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? t('changing') : t('changePassword')}
      </button>
    </form>
  );
}

function SessionsList() {
  const t = useMessages(accountMessages);
  const { language } = useLanguage();
  const sessions = useAsync(() => api<{ items: OwnSession[] }>('GET', '/portal/account/sessions'), []);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();

  const end = async (session: OwnSession) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await api('DELETE', `/portal/account/sessions/${session.id}`);
      setNotice(t('sessionEnded'));
      sessions.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section class="card account-card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">{t('sessionsHeading')}</h2>
      <p class="muted">{t('sessionsIntro')}</p>
      {notice && (
        <div class="notice notice-success" role="status">
          <p>{notice}</p>
        </div>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
      {sessions.error !== undefined && <ErrorNotice error={sessions.error} onRetry={sessions.reload} />}
      {!sessions.data && sessions.error === undefined && <Loading />}
      {sessions.data && (
        <DataTable testId="sessions-table" columns={[t('device'), t('address'), t('started'), t('lastSeen'), { hidden: t('endSession') }]}>
          {sessions.data.items.map((session) => (
            <tr key={session.id} data-session-id={session.id} data-current={session.current ? 'true' : undefined}>
              <td dir="ltr" class="user-agent">
                {session.userAgent ?? t('unknownDevice')}
                {session.current && <span class="badge"> {t('thisSession')}</span>}
              </td>
              <td dir="ltr">{session.ipAddress ?? '—'}</td>
              <td>{formatDateTime(session.createdAt, language)}</td>
              <td>{formatDateTime(session.lastSeenAt, language)}</td>
              <td>
                {!session.current && (
                  <button type="button" class="button button-quiet" onClick={() => void end(session)}>
                    {t('endSession')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** The signed-in user's password, second factors and sessions: any role may manage their own account. */
export function AccountScreen() {
  const t = useMessages(accountMessages);
  const { user } = useSession();
  const [generation, setGeneration] = useState(0);
  return (
    <section class="account-screen">
      <PageHeader title={t('title')}>
        <p class="muted" data-testid="account-mail-address">
          {t('mailsGoTo', { email: user.email })}
        </p>
      </PageHeader>
      <PasswordForm onChanged={() => setGeneration((value) => value + 1)} />
      <AccountSecurity />
      <SessionsList key={generation} />
    </section>
  );
}
