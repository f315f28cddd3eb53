import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ConfirmDialog, EmptyState, ErrorNotice, Loading, PageHeader, useAsync } from '@svc/web-ui/components';
import { formatNumber } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { useSession } from '../../session.js';
import type { OAuthAuthorizationServerMetadata } from '@svc/identity-client/types';
import { activeClientCount, MAX_ACTIVE_CLIENTS, type OAuthClient, tokenEndpointOf } from './client-logic.js';
import { CaptureEmbedSettings } from './capture-embed.js';
import { ClientsTable } from './clients-table.js';
import { clientMessages } from './messages.js';
import { RegisterClient } from './register-client.js';
import { TokenRequest } from './token-request.js';
import './clients.css';

/** The discovery document names the public (mutual-TLS) token endpoint, which this page's origin may not be. */
async function loadMetadata(): Promise<OAuthAuthorizationServerMetadata | undefined> {
  try {
    const response = await fetch('/.well-known/oauth-authorization-server', { credentials: 'omit' });
    return response.ok ? ((await response.json()) as OAuthAuthorizationServerMetadata) : undefined;
  } catch {
    return undefined;
  }
}

export function ClientsScreen() {
  const t = useMessages(clientMessages);
  const { language } = useLanguage();
  const { canWrite } = useSession();
  const clients = useAsync(() => api<OAuthClient[]>('GET', '/oauth/clients'), []);
  const metadata = useAsync(loadMetadata, []);
  const [registering, setRegistering] = useState(false);
  const [shown, setShown] = useState<{ client: OAuthClient; registered: boolean }>();
  const [revoking, setRevoking] = useState<OAuthClient>();
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();

  const list = clients.data ?? [];
  const active = activeClientCount(list);
  const atLimit = active >= MAX_ACTIVE_CLIENTS;
  const tokenEndpoint = tokenEndpointOf(metadata.data, window.location.origin);

  const closeRevoke = () => {
    setRevoking(undefined);
    setRevokeError(undefined);
  };

  const revoke = async () => {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError(undefined);
    try {
      await api('DELETE', `/oauth/clients/${revoking.id}`);
      setNotice(t('revoked', { name: revoking.clientName }));
      if (shown?.client.id === revoking.id) setShown(undefined);
      setRevoking(undefined);
      clients.reload();
    } catch (failure) {
      setRevokeError(failure);
    } finally {
      setRevokeBusy(false);
    }
  };

  const registerButton = canWrite && !registering && (
    <button
      type="button"
      class="button button-primary"
      disabled={atLimit || clients.data === undefined}
      aria-describedby={atLimit ? 'client-limit' : undefined}
      onClick={() => {
        setRegistering(true);
        setShown(undefined);
        setNotice(undefined);
      }}
    >
      {t('register')}
    </button>
  );

  return (
    <section class="clients-screen">
      <PageHeader title={t('title')} actions={registerButton || undefined}>
        <p class="muted">{t('intro')}</p>
        {clients.data && (
          <p class="client-count" data-testid="client-count">
            {t('activeCount', { count: formatNumber(active, language), max: formatNumber(MAX_ACTIVE_CLIENTS, language) })}
          </p>
        )}
      </PageHeader>
      {atLimit && (
        <div class="notice notice-warning" id="client-limit" data-testid="client-limit">
          <p>{t('limitReached', { max: formatNumber(MAX_ACTIVE_CLIENTS, language) })}</p>
        </div>
      )}
      {notice && (
        <div class="notice notice-success" role="status">
          <p>{notice}</p>
        </div>
      )}
      {registering && (
        <RegisterClient
          onCancel={() => setRegistering(false)}
          onRegistered={(client) => {
            setRegistering(false);
            setShown({ client, registered: true });
            clients.reload();
          }}
        />
      )}
      {shown && <TokenRequest clientId={shown.client.clientId} clientName={shown.client.clientName} tokenEndpoint={tokenEndpoint} registered={shown.registered} onClose={() => setShown(undefined)} />}
      <ErrorNotice error={clients.error} onRetry={clients.reload} />
      {clients.data === undefined && clients.loading && <Loading />}
      {clients.data && list.length === 0 && (
        <EmptyState title={t('empty')}>
          <p>{t('emptyBody')}</p>
        </EmptyState>
      )}
      {list.length > 0 && (
        <ClientsTable
          clients={list}
          canWrite={canWrite}
          onRevoke={(client) => {
            setNotice(undefined);
            setRevoking(client);
          }}
          onShowCurl={(client) => {
            setRegistering(false);
            setShown({ client, registered: false });
          }}
        />
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        danger
        title={t('revokeTitle', { name: revoking?.clientName ?? '' })}
        body={t('revokeBody')}
        confirmLabel={t('revokeConfirm')}
        confirmDisabled={revokeBusy}
        onCancel={closeRevoke}
        onConfirm={() => void revoke()}
      >
        <ErrorNotice error={revokeError} />
      </ConfirmDialog>
      <CaptureEmbedSettings />
    </section>
  );
}
