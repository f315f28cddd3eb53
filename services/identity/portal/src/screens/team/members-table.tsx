import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ConfirmDialog, DataTable, useAsync } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import type { PortalRole } from '../../session.js';
import { ListFeedback, useRowAction } from './team-feedback.js';
import { teamMessages } from './messages.js';
import type { TeamMember } from '@svc/identity-client/types';

/** GET /portal/team/users */
type Member = TeamMember;

type Change = { role: PortalRole } | { status: Member['status'] };

/** The tenant's users with their role, status and last sign-in, and what an admin may do to each. */
export function MembersTable(props: { version: number }) {
  const t = useMessages(teamMessages);
  const { language } = useLanguage();
  const members = useAsync(() => api<{ items: Member[] }>('GET', '/portal/team/users'), [props.version]);
  const action = useRowAction(members);
  const [confirmDisable, setConfirmDisable] = useState<Member>();

  const change = (member: Member, body: Change) =>
    action.run(async () => {
      await api('PATCH', `/portal/team/users/${member.id}`, { body });
      return t('changed', { email: member.email });
    });
  const endSessions = (member: Member) =>
    action.run(async () => {
      const { endedSessions } = await api<{ endedSessions: number }>('DELETE', `/portal/users/${member.id}/sessions`);
      return t('sessionsEnded', { email: member.email, count: endedSessions });
    });

  return (
    <section class="card team-card" aria-labelledby="users-heading">
      <h2 id="users-heading">{t('usersHeading')}</h2>
      <ListFeedback list={members} action={action} />
      {members.data && (
        <DataTable testId="members-table" columns={[t('email'), t('role'), t('status'), t('lastSignIn'), t('actions')]}>
          {members.data.items.map((member) => (
            <tr key={member.id} data-email={member.email} data-status={member.status}>
              <td dir="ltr">
                {member.email} {member.you && <span class="muted">{t('you')}</span>}
              </td>
              <td>{t(`role_${member.role}`)}</td>
              <td>
                <span class={`badge ${member.status === 'active' ? 'badge-success' : 'badge-neutral'}`}>{t(`status_${member.status}`)}</span>
              </td>
              <td>{member.lastSignInAt ? formatDateTime(member.lastSignInAt, language) : t('never')}</td>
              <td class="member-actions">
                <button type="button" class="button button-small" onClick={() => void change(member, { role: member.role === 'PartnerAdmin' ? 'PartnerReadOnly' : 'PartnerAdmin' })}>
                  {member.role === 'PartnerAdmin' ? t('makeReadOnly') : t('makeAdmin')}
                </button>
                {member.status === 'active' ? (
                  <button type="button" class="button button-small button-danger-outline" onClick={() => setConfirmDisable(member)}>
                    {t('disable')}
                  </button>
                ) : (
                  <button type="button" class="button button-small" onClick={() => void change(member, { status: 'active' })}>
                    {t('enable')}
                  </button>
                )}
                <button type="button" class="button button-small button-quiet" onClick={() => void endSessions(member)}>
                  {t('endSessions')}
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        open={confirmDisable !== undefined}
        title={t('disableTitle', { email: confirmDisable?.email ?? '' })}
        body={t('disableBody')}
        confirmLabel={t('disable')}
        danger
        onCancel={() => setConfirmDisable(undefined)}
        onConfirm={() => {
          const member = confirmDisable;
          setConfirmDisable(undefined);
          if (member) void change(member, { status: 'disabled' });
        }}
      />
    </section>
  );
}
