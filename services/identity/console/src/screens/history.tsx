import { REVIEW_HISTORY_SCOPES, type ReviewHistoryPage, type ReviewHistoryScope } from '@svc/identity-client/staff-types';
import { api } from '@svc/web-ui/api';
import { DataTable, EmptyState, ErrorNotice, Loading, PageHeader, Pagination, StatusBadge, useAsync } from '@svc/web-ui/components';
import { formatDateTime } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { Link, setQuery, useLocation } from '@svc/web-ui/router';
import { formText } from '../form-text.js';
import { consoleMessages, type ConsoleMessageKey } from '../messages.js';
import type { StaffSession } from '../session.js';

const PAGE_SIZE = 25;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Decisions newest first: a reviewer's own; a ReviewLead may switch to everyone's. Searchable by case id. */
export function HistoryScreen({ session }: { session: StaffSession }) {
  const t = useMessages(consoleMessages);
  const { language } = useLanguage();
  const { query } = useLocation();
  const lead = session.staff.role === 'ReviewLead';
  const scope: ReviewHistoryScope = lead && query.get('scope') === 'everyone' ? 'everyone' : 'mine';
  const caseId = query.get('caseId') ?? '';
  const validCaseId = caseId === '' || UUID.test(caseId);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const history = useAsync(
    () => (validCaseId ? api<ReviewHistoryPage>('GET', '/review-history', { query: { scope, caseId: caseId || undefined, page, pageSize: PAGE_SIZE } }) : Promise.resolve(undefined)),
    [scope, caseId, page],
  );

  return (
    <section aria-labelledby="history-title">
      <PageHeader title={<span id="history-title">{t('historyTitle')}</span>} />
      <form
        class="case-filters"
        key={caseId}
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          setQuery({ caseId: formText(form, 'caseId').trim() || undefined, page: undefined });
        }}
      >
        {lead ? (
          <fieldset class="scope-switch">
            <legend class="visually-hidden">{t('history')}</legend>
            {REVIEW_HISTORY_SCOPES.map((value) => (
              <label key={value} class="choice">
                <input type="radio" name="scope" checked={scope === value} onChange={() => setQuery({ scope: value === 'mine' ? undefined : value, page: undefined })} />
                {t(value)}
              </label>
            ))}
          </fieldset>
        ) : null}
        <div class="field grow">
          <label for="history-case">{t('searchCase')}</label>
          <input id="history-case" name="caseId" type="search" dir="ltr" defaultValue={caseId} aria-invalid={!validCaseId} aria-describedby={validCaseId ? undefined : 'history-case-error'} />
        </div>
        <div class="filter-actions">
          <button type="submit" class="button button-primary">
            {t('search')}
          </button>
        </div>
      </form>
      {!validCaseId ? (
        <p id="history-case-error" class="notice notice-error" role="alert">
          {t('caseIdInvalid')}
        </p>
      ) : null}
      {history.error ? <ErrorNotice error={history.error} onRetry={history.reload} /> : null}
      {!history.data && history.loading && validCaseId ? <Loading /> : null}
      {history.data && history.data.items.length === 0 ? <EmptyState title={t('noHistory')} /> : null}
      {history.data && history.data.items.length > 0 ? (
        <>
          <DataTable testId="history-table" columns={[t('when'), t('caseId'), t('tenant'), t('reviewer'), t('outcome'), t('reason')]}>
            {history.data.items.map((item) => (
              <tr key={item.id} data-case-id={item.caseId}>
                <td class="nowrap">{formatDateTime(item.decidedAt, language)}</td>
                <td>
                  <Link href={`/cases/${item.caseId}`}>
                    <code>{item.caseId.slice(0, 8)}…</code>
                  </Link>
                </td>
                <td>
                  <bdi>{item.tenantName}</bdi>
                </td>
                <td>
                  <bdi>{item.reviewer.email}</bdi>
                </td>
                <td>
                  <StatusBadge status={item.decision} />
                </td>
                <td dir="auto">
                  {item.reasonCode ? <strong>{t(`reason.${item.reasonCode}` as ConsoleMessageKey)}</strong> : null}
                  {item.reasonCode && item.reason ? ' — ' : null}
                  <bdi>{item.reason}</bdi>
                </td>
              </tr>
            ))}
          </DataTable>
          <Pagination page={page} pageSize={PAGE_SIZE} total={history.data.totalCount} onPage={(next) => setQuery({ page: next === 1 ? undefined : String(next) })} />
        </>
      ) : null}
    </section>
  );
}
