import { CopyButton, DataTable, StatusBadge } from '@svc/web-ui/components';
import { formatDate, formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { type OAuthClient, shortThumbprint } from './client-logic.js';
import { clientMessages } from './messages.js';
import { SubjectName, ValidityMark } from './certificate-parts.js';

export interface ClientsTableProps {
  clients: OAuthClient[];
  canWrite: boolean;
  onRevoke: (client: OAuthClient) => void;
  onShowCurl: (client: OAuthClient) => void;
}

/** Active clients first (newest first within each group), so the ones that matter lead. */
function ordered(clients: OAuthClient[]): OAuthClient[] {
  return [...clients].sort((a, b) => Number(b.isActive) - Number(a.isActive) || b.createdAt.localeCompare(a.createdAt));
}

export function ClientsTable(props: ClientsTableProps) {
  const t = useMessages(clientMessages);
  const { language } = useLanguage();
  return (
    <DataTable class="clients-table" testId="clients-table" columns={[t('name'), t('thumbprint'), t('subject'), t('validity'), t('lastUsed'), t('status'), { hidden: t('actions') }]}>
      {ordered(props.clients).map((client) => (
        <tr key={client.id} data-client-id={client.clientId} class={client.isActive ? undefined : 'row-revoked'}>
          <td>
            <div class="client-name">{client.clientName}</div>
            <div class="mono ltr muted small">{client.clientId}</div>
          </td>
          <td>
            <span class="mono ltr thumbprint" title={client.certificateThumbprint}>
              {shortThumbprint(client.certificateThumbprint)}
            </span>{' '}
            <CopyButton text={client.certificateThumbprint} label={t('copy')} ariaLabel={t('copyThumbprint', { name: client.clientName })} />
          </td>
          <td class="mono ltr small subject">
            <SubjectName dn={client.certificateSubjectDN} />
          </td>
          <td class="validity">
            {/* Each date stays on one line; the range breaks at the dash. */}
            <div>
              <span class="nowrap">{formatDate(client.certificateNotBefore, language)}</span> – <span class="nowrap">{formatDate(client.certificateNotAfter, language)}</span>
            </div>
            {client.isActive && <ValidityMark notBefore={client.certificateNotBefore} notAfter={client.certificateNotAfter} />}
          </td>
          <td>{client.lastUsedAt ? formatDateTime(client.lastUsedAt, language) : <span class="muted">{t('never')}</span>}</td>
          <td>
            <StatusBadge status={client.isActive ? 'active' : 'revoked'} />
            {client.revokedAt && <div class="muted small">{t('revokedOn', { date: formatDateTime(client.revokedAt, language) })}</div>}
          </td>
          <td>
            <div class="row-actions">
              {client.isActive && (
                <button type="button" class="button button-small" aria-label={`${t('showCurl')}: ${client.clientName}`} onClick={() => props.onShowCurl(client)}>
                  {t('showCurl')}
                </button>
              )}
              {client.isActive && props.canWrite && (
                <button type="button" class="button button-small button-danger-outline" aria-label={`${t('revoke')}: ${client.clientName}`} onClick={() => props.onRevoke(client)}>
                  {t('revoke')}
                </button>
              )}
            </div>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
