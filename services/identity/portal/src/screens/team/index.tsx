import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { CopyButton, DataTable, EmptyState, PageHeader, useAsync } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import type { PortalRole } from '../../session.js';
import { MembersTable } from './members-table.js';
import { ListFeedback, TeamProblem, useRowAction } from './team-feedback.js';
import { teamMessages } from './messages.js';
import './team.css';
import type { PendingInvitation } from '@svc/identity-client/types';

/** GET /portal/team/invitations */
type Invitation = PendingInvitation;

function InviteForm(props: { onInvited: () => void }) {
  const t = useMessages(teamMessages);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<PortalRole>('PartnerReadOnly');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [link, setLink] = useState<{ email: string; url: string }>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await api<{ invitation: Invitation; invitationUrl: string }>('POST', '/portal/team/invitations', { body: { email, role } });
      setLink({ email: created.invitation.email, url: created.invitationUrl });
      setEmail('');
      props.onInvited();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card team-card" aria-labelledby="invite-heading">
      <h2 id="invite-heading">{t('inviteHeading')}</h2>
      {link && (
        <div class="notice notice-success invitation-link" role="status" data-testid="invitation-link">
          <p class="notice-title">{t('linkHeading', { email: link.email })}</p>
          <p>{t('linkIntro')}</p>
          <label for="invitation-url" class="visually-hidden">
            {t('linkLabel')}
          </label>
          <input id="invitation-url" class="invitation-url" readOnly dir="ltr" value={link.url} onFocus={(event) => event.currentTarget.select()} />
          <div class="invitation-link-actions">
            <CopyButton text={link.url} label={t('copyLink')} />
            <button type="button" class="button button-small button-quiet" onClick={() => setLink(undefined)}>
              {t('dismiss')}
            </button>
          </div>
        </div>
      )}
      {error !== undefined && <TeamProblem error={error} />}
      <form class="invite-form" onSubmit={(event) => void submit(event)} data-testid="invite-form">
        <div class="field">
          <label for="invite-email">{t('email')}</label>
          <input id="invite-email" type="email" required maxLength={254} dir="ltr" autocomplete="off" value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="invite-role">{t('role')}</label>
          <select id="invite-role" value={role} onChange={(event) => setRole(event.currentTarget.value as PortalRole)}>
            <option value="PartnerReadOnly">{t('role_PartnerReadOnly')}</option>
            <option value="PartnerAdmin">{t('role_PartnerAdmin')}</option>
          </select>
        </div>
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? t('inviting') : t('invite')}
        </button>
      </form>
    </section>
  );
}

function PendingInvitations(props: { version: number }) {
  const t = useMessages(teamMessages);
  const { language } = useLanguage();
  const invitations = useAsync(() => api<{ items: Invitation[] }>('GET', '/portal/team/invitations'), [props.version]);
  const action = useRowAction(invitations);
  const revoke = (invitation: Invitation) =>
    action.run(async () => {
      await api('DELETE', `/portal/team/invitations/${invitation.id}`);
      return t('revoked');
    });

  return (
    <section class="card team-card" aria-labelledby="pending-heading">
      <h2 id="pending-heading">{t('pendingHeading')}</h2>
      <ListFeedback list={invitations} action={action} />
      {invitations.data?.items.length === 0 && <EmptyState title={t('noPending')} />}
      {invitations.data && invitations.data.items.length > 0 && (
        <DataTable testId="invitations-table" columns={[t('email'), t('role'), t('invitedAt'), t('expires'), { hidden: t('actions') }]}>
          {invitations.data.items.map((invitation) => (
            <tr key={invitation.id} data-email={invitation.email}>
              <td dir="ltr">{invitation.email}</td>
              <td>{t(`role_${invitation.role}`)}</td>
              <td>{formatDateTime(invitation.createdAt, language)}</td>
              <td>{formatDateTime(invitation.expiresAt, language)}</td>
              <td>
                <button type="button" class="button button-quiet" aria-label={`${t('revoke')} ${invitation.email}`} onClick={() => void revoke(invitation)}>
                  {t('revoke')}
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** Team management for PartnerAdmins: invite colleagues, withdraw invitations, change roles and access. */
export function TeamScreen() {
  const t = useMessages(teamMessages);
  const [version, setVersion] = useState(0);
  return (
    <div class="team-screen">
      <PageHeader title={t('title')}>
        <p class="muted">{t('intro')}</p>
      </PageHeader>
      <InviteForm onInvited={() => setVersion((value) => value + 1)} />
      <PendingInvitations version={version} />
      <MembersTable version={version} />
    </div>
  );
}
