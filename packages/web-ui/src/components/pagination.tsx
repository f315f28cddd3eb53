import { useLanguage, useMessages } from '../i18n.js';
import { formatNumber } from '../format.js';
import { componentMessages } from './messages.js';

export interface PaginationProps {
  page: number;
  pageSize: number;
  /** The envelope's totalCount. */
  total: number;
  onPage: (page: number) => void;
}

/** Previous / next with "page n of m" between them; nothing when everything fits on one page. */
export function Pagination(props: PaginationProps) {
  const t = useMessages(componentMessages);
  const { language } = useLanguage();
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  if (props.total <= props.pageSize && props.page <= 1) return null;
  return (
    <nav class="pagination" aria-label={t('pagination')}>
      <button type="button" class="button" disabled={props.page <= 1} onClick={() => props.onPage(Math.min(props.page - 1, pages))}>
        {t('previous')}
      </button>
      <span class="pagination-status" aria-live="polite">
        {t('pageOf', { page: formatNumber(props.page, language), pages: formatNumber(pages, language) })} · {t('totalItems', { count: formatNumber(props.total, language) })}
      </span>
      <button type="button" class="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        {t('next')}
      </button>
    </nav>
  );
}
