import { useMessages } from '../../../../web-shared/i18n.js';
import { EmptyState } from '../../../../web-shared/components/index.js';
import { CaseDetail } from './case-detail.js';
import { CaseList } from './case-list.js';
import { caseMessages, CASES_HREF } from '../../../../web-shared/cases/messages.js';
import { Link } from '../../../../web-shared/router.js';

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
