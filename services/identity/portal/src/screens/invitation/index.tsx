import { useState } from 'preact/hooks';
import { api, ApiError } from '@svc/web-ui/api';
import { ErrorNotice, LanguageToggle, Loading, NewPasswordField, useAsync } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { Link } from '@svc/web-ui/router';
import { loadSession, type PortalSession } from '../../session.js';
import { invitationMessages } from './messages.js';
import type { InvitationSummary } from '@svc/identity-client/types';


const UNUSABLE = ['INVITATION_NOT_FOUND', 'INVITATION_EXPIRED', 'INVITATION_USED', 'INVITATION_REVOKED'] as const;
type UnusableCode = (typeof UNUSABLE)[number];
const unusableCode = (error: unknown): UnusableCode | undefined =>
  error instanceof ApiError ? UNUSABLE.find((code) => code === error.code) : undefined;

/** The token travels in the link's fragment, which browsers never send to a server. */
const tokenFromLocation = () => decodeURIComponent(window.location.hash.replace(/^#/, ''));

function Unusable(props: { code: UnusableCode }) {
  const t = useMessages(invitationMessages);
  return (
    <div class="card sign-in-card" data-testid="invitation-unusable" data-code={props.code}>
      <h1>{t('unusableTitle')}</h1>
      <div class="notice notice-error" role="alert">
        <p>{t(props.code)}</p>
      </div>
      <Link href="/sign-in">{t('toSignIn')}</Link>
    </div>
  );
}

function AcceptForm(props: { token: string; invitation: InvitationSummary; onSignedIn: (session: PortalSession) => void }) {
  const t = useMessages(invitationMessages);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const tenant = props.invitation.tenantName;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api('POST', '/portal/invitations/accept', { body: { token: props.token, password }, quietUnauthenticated: true });
      const session = await loadSession();
      if (session) props.onSignedIn(session);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  const code = unusableCode(error);
  if (code) return <Unusable code={code} />;
  return (
    <form class="card sign-in-card" onSubmit={(event) => void submit(event)} aria-describedby="invitation-intro" data-testid="invitation-form">
      <h1>{t('title', { tenant })}</h1>
      <p id="invitation-intro" class="muted">
        {t('intro', { tenant, role: t(`role_${props.invitation.role}`) })}
      </p>
      {error !== undefined && <ErrorNotice error={error} />}
      <div class="field">
        <label for="invitation-email">{t('email')}</label>
        <input id="invitation-email" type="email" readOnly dir="ltr" autocomplete="username" value={props.invitation.email} />
      </div>
      <NewPasswordField id="invitation-password" label={t('password')} hint={t('passwordHint')} value={password} onInput={setPassword} />
      <button type="submit" class="button button-primary button-wide" disabled={busy}>
        {busy ? t('accepting') : t('accept')}
      </button>
    </form>
  );
}

/** The public page an invitation link opens: who invited you as what, then a password. */
export function InvitationScreen(props: { onSignedIn: (session: PortalSession) => void }) {
  const [token] = useState(tokenFromLocation);
  const invitation = useAsync(
    () => (token ? api<InvitationSummary>('POST', '/portal/invitations/lookup', { body: { token }, quietUnauthenticated: true }) : Promise.reject(new ApiError(404, { code: 'INVITATION_NOT_FOUND' }))),
    [token],
  );
  const code = unusableCode(invitation.error);
  return (
    <main class="sign-in" id="main">
      <div class="sign-in-language">
        <LanguageToggle />
      </div>
      {code && <Unusable code={code} />}
      {invitation.error !== undefined && !code && <ErrorNotice error={invitation.error} onRetry={invitation.reload} />}
      {!invitation.data && invitation.error === undefined && <Loading />}
      {invitation.data && <AcceptForm token={token} invitation={invitation.data} onSignedIn={props.onSignedIn} />}
    </main>
  );
}
