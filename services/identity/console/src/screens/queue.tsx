import type { ReviewQueuePage } from '@svc/identity-client/staff-types';
import { api } from '@svc/web-ui/api';
import { DataTable, EmptyState, ErrorNotice, Loading, PageHeader, Pagination, useAsync } from '@svc/web-ui/components';
import { caseMessages } from '@svc/web-ui/cases/messages';
import { DOCUMENT_TYPES } from '@svc/identity-client/types';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { Link, setQuery, useLocation } from '@svc/web-ui/router';
import { formatAge } from '../format-age.js';
import { formText } from '../form-text.js';
import { consoleMessages } from '../messages.js';

const PAGE_SIZE = 25;

export function QueueScreen() {
  const t = useMessages(consoleMessages);
  const tc = useMessages(caseMessages);
  const { language } = useLanguage();
  const { query } = useLocation();
  const filters = { tenantId: query.get('tenantId') ?? '', documentType: query.get('documentType') ?? '', reason: query.get('reason') ?? '' };
  const page = Math.max(1, Number(query.get('page')) || 1);
  const queue = useAsync(() => api<ReviewQueuePage>('GET', '/review-queue', { query: { ...filters, page, pageSize: PAGE_SIZE } }), [filters.tenantId, filters.documentType, filters.reason, page]);
  const tenants = queue.data?.tenants ?? [];
  const filtered = Boolean(filters.tenantId || filters.documentType || filters.reason);

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setQuery({ tenantId: formText(form, 'tenantId'), documentType: formText(form, 'documentType'), reason: formText(form, 'reason').trim(), page: undefined });
  };

  return (
    <section aria-labelledby="queue-title">
      <PageHeader title={<span id="queue-title">{t('queue')}</span>}>
        {queue.data ? (
          <p class="oldest-waiting" data-testid="oldest-waiting">
            {t('oldestWaiting', { age: queue.data.totalCount > 0 ? formatAge(queue.data.oldestWaitingSeconds, language) : '—' })}
          </p>
        ) : null}
      </PageHeader>
      <form class="case-filters" onSubmit={onSubmit} key={`${filters.tenantId}|${filters.documentType}|${filters.reason}`}>
        <div class="field">
          <label for="filter-tenant">{t('filterTenant')}</label>
          <select id="filter-tenant" name="tenantId">
            <option value="" selected={filters.tenantId === ''}>{t('allTenants')}</option>
            {tenants.map(({ id, name }) => (
              <option key={id} value={id} selected={id === filters.tenantId}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-document">{t('filterDocument')}</label>
          <select id="filter-document" name="documentType">
            <option value="" selected={filters.documentType === ''}>{t('allDocuments')}</option>
            {DOCUMENT_TYPES.map((type) => (
              <option key={type} value={type} selected={type === filters.documentType}>
                {tc(`documentType.${type}`)}
              </option>
            ))}
          </select>
        </div>
        <div class="field grow">
          <label for="filter-reason">{t('filterReason')}</label>
          <input id="filter-reason" name="reason" type="search" dir="auto" placeholder={t('reasonPlaceholder')} defaultValue={filters.reason} />
        </div>
        <div class="filter-actions">
          <button type="submit" class="button button-primary">
            {t('applyFilters')}
          </button>
          {filtered ? (
            <button type="button" class="button button-quiet" onClick={() => setQuery({ tenantId: undefined, documentType: undefined, reason: undefined, page: undefined })}>
              {t('clearFilters')}
            </button>
          ) : null}
        </div>
      </form>
      {queue.error ? <ErrorNotice error={queue.error} onRetry={queue.reload} /> : null}
      {!queue.data && queue.loading ? <Loading /> : null}
      {queue.data && queue.data.items.length === 0 ? <EmptyState title={filtered ? t('noMatches') : t('queueEmpty')} /> : null}
      {queue.data && queue.data.items.length > 0 ? (
        <>
          <DataTable class="queue-table" testId="queue-table" columns={[t('age'), t('tenant'), t('document'), t('why'), t('signals'), { hidden: t('open') }]}>
            {queue.data.items.map((item) => (
              <tr key={item.id} data-case-id={item.id}>
                <td class="nowrap">{formatAge(item.waitingSeconds, language)}</td>
                <td>
                  <bdi>{item.tenantName}</bdi> <span class={`badge ${item.sandbox ? 'badge-sandbox' : 'badge-live'}`}>{item.sandbox ? t('sandboxCase') : t('liveCase')}</span>
                </td>
                <td>{tc(`documentType.${item.documentType}`)}</td>
                {/* The checks write their reason in English; lang lets a screen reader on the Arabic page read it as English. */}
                <td dir="auto" lang="en" class="reason-cell">
                  {item.decisionReason ?? '—'}
                </td>
                <td>{item.fraudSignalTypes.length > 0 ? item.fraudSignalTypes.map((type) => <code key={type} class="signal-chip">{type}</code>) : '—'}</td>
                <td class="nowrap">
                  <Link href={`/cases/${item.id}`} class="button button-small">
                    {t('open')}
                  </Link>
                  {item.claim ? (
                    <span class="claim-note" data-testid="claim-note">
                      {t('claimedBy', { email: item.claim.email })}
                    </span>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
          <Pagination page={page} pageSize={PAGE_SIZE} total={queue.data.totalCount} onPage={(next) => setQuery({ page: next === 1 ? undefined : String(next) })} />
        </>
      ) : null}
    </section>
  );
}
