import { useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { ErrorNotice } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { secondFactorMessages } from '@svc/web-ui/second-factors/messages';
import { SecuritySection } from '@svc/web-ui/second-factors/security-section';
import { useSession } from '../../session.js';

/** The tenant's "require a second factor" switch: PartnerAdmin only (the server refuses others anyway). */
function RequireSecondFactorSwitch() {
  const t = useMessages(secondFactorMessages);
  const { tenant } = useSession();
  const [required, setRequired] = useState(tenant.requireSecondFactor);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const change = async (value: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      setRequired((await api<{ requireSecondFactor: boolean }>('PUT', '/portal/tenant/security', { body: { requireSecondFactor: value } })).requireSecondFactor);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card account-card" aria-labelledby="tenant-security-heading" data-testid="tenant-security">
      <h2 id="tenant-security-heading">{t('requireHeading')}</h2>
      {error !== undefined && <ErrorNotice error={error} />}
      <div class="field field-checkbox">
        <input id="require-second-factor" type="checkbox" checked={required} disabled={busy} aria-describedby="require-second-factor-hint" onChange={(event) => void change(event.currentTarget.checked)} />
        <label for="require-second-factor">{t('requireLabel')}</label>
      </div>
      <p id="require-second-factor-hint" class="muted">
        {t('requireHint')}
      </p>
    </section>
  );
}

/** The "Security" part of the account screen: the user's own factors, and the admin's tenant switch. */
export function AccountSecurity() {
  const { canWrite } = useSession();
  return (
    <>
      <SecuritySection accountPath="/portal/account" />
      {canWrite && <RequireSecondFactorSwitch />}
    </>
  );
}
