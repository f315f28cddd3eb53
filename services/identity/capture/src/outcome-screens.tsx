import { useMessages } from './messages.js';

export type DeadReason = 'used' | 'expired' | 'closed' | 'unknown';

/** What happened to a link that cannot be used, and what to do: never a stack or a blank page. */
export function DeadLink({ reason, tenant }: { reason: DeadReason; tenant: string | null }) {
  const t = useMessages();
  const tenantName = tenant ?? '—';
  return (
    <section class="card" data-testid="dead-link" data-reason={reason}>
      <h1>{t(`${reason}Title`)}</h1>
      <p>{t(`${reason}Text`, { tenant: tenantName })}</p>
    </section>
  );
}

export function Done({ tenant, redirecting }: { tenant: string; redirecting: boolean }) {
  const t = useMessages();
  return (
    <section class="card" data-testid="done">
      <div class="tick" aria-hidden="true" />
      <h1>{t('doneTitle')}</h1>
      <p role="status">{redirecting ? t('redirecting', { tenant }) : t('doneText', { tenant })}</p>
    </section>
  );
}

export function Declined({ tenant }: { tenant: string }) {
  const t = useMessages();
  return (
    <section class="card" data-testid="declined">
      <h1>{t('declinedTitle')}</h1>
      <p>{t('declinedText', { tenant })}</p>
    </section>
  );
}
