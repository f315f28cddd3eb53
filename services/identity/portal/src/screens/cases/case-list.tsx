import { useEffect, useState } from 'preact/hooks';
import { api } from '@svc/web-ui/api';
import { EmptyState, ErrorNotice, Loading, PageHeader, Pagination, StatusBadge, statusLabel, useAsync } from '@svc/web-ui/components';
import { formatDateTime, formatNumber } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { Link, setQuery, useLocation } from '@svc/web-ui/router';
import { useSession } from '../../session.js';
import { listQueryFromUrl, PAGE_SIZE } from '@svc/web-ui/cases/case-logic';
import { CASE_STATUSES, type CaseListItem, type CasePage } from '@svc/web-ui/cases/case-types';
import { caseHref, caseMessages } from '@svc/web-ui/cases/messages';
import '@svc/web-ui/cases/cases.css';

export function CaseList() {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  const { query } = useLocation();
  const { status, search, page } = listQueryFromUrl(query);
  // The box holds what is being typed; the URL holds what was searched, and wins on back/forward.
  const [draft, setDraft] = useState(search ?? '');
  useEffect(() => setDraft(search ?? ''), [search]);

  const cases = useAsync(() => api<CasePage>('GET', '/verifications', { query: { status, search, page, pageSize: PAGE_SIZE } }), [status, search, page]);

  const submitSearch = (event: Event) => {
    event.preventDefault();
    setQuery({ search: draft.trim() || undefined, page: undefined });
  };
  const filtered = status !== undefined || search !== undefined;

  return (
    <section class="cases" aria-labelledby="cases-title">
      <PageHeader title={<span id="cases-title">{t('casesTitle')}</span>} />
      <RetentionPolicy />
      <form class="case-filters" role="search" onSubmit={submitSearch}>
        <div class="field">
          <label for="case-status-filter">{t('statusFilter')}</label>
          <select id="case-status-filter" value={status ?? ''} onChange={(event) => setQuery({ status: event.currentTarget.value || undefined, page: undefined })} data-testid="case-status-filter">
            <option value="">{t('allStatuses')}</option>
            {CASE_STATUSES.map((value) => (
              <option key={value} value={value}>
                {statusLabel(value, language)}
              </option>
            ))}
          </select>
        </div>
        <div class="field grow">
          <label for="case-search">{t('search')}</label>
          <input id="case-search" type="search" value={draft} maxLength={200} placeholder={t('searchPlaceholder')} onInput={(event) => setDraft(event.currentTarget.value)} data-testid="case-search" />
        </div>
        <div class="filter-actions">
          <button type="submit" class="button button-primary">
            {t('searchButton')}
          </button>
          {filtered && (
            <button type="button" class="button" onClick={() => setQuery({ status: undefined, search: undefined, page: undefined })}>
              {t('clearFilters')}
            </button>
          )}
        </div>
      </form>

      {cases.error ? <ErrorNotice error={cases.error} /> : null}
      {cases.loading && !cases.data ? <Loading /> : null}
      {cases.data ? (
        <>
          {cases.data.items.length === 0 ? <EmptyState title={filtered ? t('noMatches') : t('noCases')} /> : <CaseTable items={cases.data.items} />}
          {/* Also under an empty page past the end (an old link), so the way back is there. */}
          <Pagination page={cases.data.page} pageSize={cases.data.pageSize} total={cases.data.totalCount} onPage={(next: number) => setQuery({ page: next === 1 ? undefined : String(next) })} />
        </>
      ) : null}
    </section>
  );
}

/** What a compliance team asks first: how long this tenant's evidence and audit trail are kept. */
function RetentionPolicy() {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  const { retention } = useSession().tenant;
  return (
    <p class="muted retention-policy" data-testid="retention-policy">
      {t('retentionPolicy', { decided: retention.evidenceRetentionDays, undecided: retention.undecidedRetentionDays, auditYears: formatNumber(Math.round((retention.auditRetentionDays / 365.25) * 10) / 10, language) })}
    </p>
  );
}

function CaseTable({ items }: { items: CaseListItem[] }) {
  const t = useMessages(caseMessages);
  const { language } = useLanguage();
  return (
    <div class="table-wrap">
      <table class="data case-table" data-testid="case-table">
        <caption class="visually-hidden">{t('casesTitle')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('externalReference')}</th>
            <th scope="col">{t('status')}</th>
            <th scope="col">{t('documentType')}</th>
            <th scope="col" class="number">
              {t('riskScore')}
            </th>
            <th scope="col">{t('created')}</th>
            <th scope="col">{t('completed')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id} data-case-id={item.id}>
              <th scope="row">
                <Link href={caseHref(item.id)} class="case-link">
                  {item.externalReference ?? <span class="muted">{t('noReference', { id: item.id.slice(0, 8) })}</span>}
                </Link>
              </th>
              <td>
                <StatusBadge status={item.status} />
              </td>
              <td>{t(`documentType.${item.documentType}` as const)}</td>
              <td class="number">{item.compositeRiskScore === null ? '—' : formatNumber(item.compositeRiskScore, language)}</td>
              <td>{formatDateTime(item.createdAt, language)}</td>
              <td>{item.completedAt ? formatDateTime(item.completedAt, language) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
