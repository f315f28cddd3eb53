import { useMessages } from '@svc/web-ui/i18n';
import { EmptyState } from '@svc/web-ui/components';
import { CaseDetail } from './case-detail.js';
import { CaseList } from './case-list.js';
import { caseMessages, CASES_HREF } from '@svc/web-ui/cases/messages';
import { Link } from '@svc/web-ui/router';

const CASE_ID = /^\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/?$/i;

/** `/portal/cases` is the list, `/portal/cases/<id>` one case; anything else is not a page. */
export function CasesArea({ subpath }: { subpath: string }) {
  const t = useMessages(caseMessages);
  if (subpath === '' || subpath === '/') return <CaseList />;
  const caseId = CASE_ID.exec(subpath)?.[1];
  if (caseId) return <CaseDetail key={caseId} caseId={caseId.toLowerCase()} />;
  return (
    <EmptyState title={t('notACase')}>
      <Link href={CASES_HREF}>{t('backToCases')}</Link>
    </EmptyState>
  );
}
