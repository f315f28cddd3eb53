import { ChartDataTable } from '@svc/web-ui';
import { useCallback, useMemo, useState } from 'preact/hooks';
import { ErrorNotice, Loading, PageHeader, statusLabel, useAsync } from '@svc/web-ui/components';
import { formatDate, formatNumber, formatPercent } from '@svc/web-ui/format';
import { useLanguage, useMessages } from '@svc/web-ui/i18n';
import { setQuery, useLocation } from '@svc/web-ui/router';
import { CountChart } from './count-chart.js';
import { reportMessages } from './messages.js';
import { CASE_STATUSES, exportUrl, fetchCasesPerDay, fetchSummary, rangeFromQuery, shortDay, type CasesPerDay, type DayRange, type ReportSummary } from './report-data.js';

/** The range form: the dates are applied (and put in the URL) on submit, not on every keystroke. */
function RangeForm({ range }: { range: DayRange }) {
  const t = useMessages(reportMessages);
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const [invalid, setInvalid] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    if (!from || !to || from > to) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    setQuery({ from, to });
  };
  return (
    <form class="report-range" onSubmit={submit} data-testid="report-range">
      <div class="field">
        <label for="report-from">{t('from')}</label>
        <input id="report-from" type="date" required value={from} onInput={(event) => setFrom(event.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="report-to">{t('to')}</label>
        <input id="report-to" type="date" required value={to} onInput={(event) => setTo(event.currentTarget.value)} />
      </div>
      <button type="submit" class="button button-primary">
        {t('show')}
      </button>
      <a class="button" href={exportUrl(range)} download data-testid="report-download">
        {t('downloadCsv')}
      </a>
      {invalid && (
        <p class="field-error" role="alert">
          {t('rangeInvalid')}
        </p>
      )}
    </form>
  );
}

function Headline({ summary }: { summary: ReportSummary }) {
  const t = useMessages(reportMessages);
  const { language } = useLanguage();
  return (
    <div class="report-headline">
      <div class="report-figure" data-testid="report-total">
        <span class="report-figure-label">{t('totalCases')}</span>
        <span class="report-figure-value">{formatNumber(summary.totalCases, language)}</span>
      </div>
      <div class="report-figure" data-testid="report-automation">
        <label class="report-figure-label" for="automation-meter">
          {t('automationRate')}
        </label>
        <span class="report-figure-value" data-value={summary.automationRate}>
          {formatPercent(summary.automationRate, language)}
        </span>
        <meter id="automation-meter" min={0} max={1} value={summary.automationRate} aria-describedby="automation-hint" />
        <span id="automation-hint" class="field-hint">
          {t('automationHint')}
        </span>
      </div>
    </div>
  );
}

interface CaseCountRow {
  key: string;
  data: Record<`data-${string}`, string>;
  label: string | undefined;
  count: number | undefined;
}

/** A count chart's figures as a table in the portal's style: one row per category, its number of cases. */
function CaseCountTable({ testId, caption, categoryLabel, rows }: { testId: string; caption: string; categoryLabel: string; rows: CaseCountRow[] }) {
  const t = useMessages(reportMessages);
  const { language } = useLanguage();
  return (
    <ChartDataTable
      wrapClass="table-wrap report-table"
      tableClass="data"
      testId={testId}
      caption={caption}
      columns={[categoryLabel, t('columnCases')]}
      rows={rows.map((row) => ({ key: row.key, data: row.data, header: row.label, cells: [{ text: formatNumber(row.count ?? 0, language), value: row.count }] }))}
    />
  );
}

function ByStatus({ summary }: { summary: ReportSummary }) {
  const t = useMessages(reportMessages);
  const { language } = useLanguage();
  // Memoised on the language: a new array would make the chart rebuild itself at every render.
  const labels = useMemo(() => CASE_STATUSES.map((status) => statusLabel(status, language)), [language]);
  const values = useMemo(() => CASE_STATUSES.map((status) => summary.byStatus[status] ?? 0), [summary]);
  const formatCount = useCallback((value: number) => formatNumber(value, language), [language]);
  return (
    <section class="report-section" aria-labelledby="by-status-title">
      <h2 id="by-status-title">{t('byStatusTitle')}</h2>
      <CountChart labels={labels} categoryLabel={t('columnStatus')} values={values} seriesLabel={t('columnCases')} description={t('byStatusChart')} formatCount={formatCount} slantLabels testId="chart-by-status" />
      <CaseCountTable
        testId="table-by-status"
        caption={t('byStatusTitle')}
        categoryLabel={t('columnStatus')}
        rows={CASE_STATUSES.map((status, index) => ({ key: status, data: { 'data-status': status }, label: labels[index], count: values[index] }))}
      />
    </section>
  );
}

function PerDay({ perDay }: { perDay: CasesPerDay }) {
  const t = useMessages(reportMessages);
  const { language } = useLanguage();
  const labels = useMemo(() => perDay.days.map((day) => formatDate(day, language)), [perDay, language]);
  const axisLabels = useMemo(() => perDay.days.map((day) => shortDay(day, language)), [perDay, language]);
  const formatCount = useCallback((value: number) => formatNumber(value, language), [language]);
  return (
    <section class="report-section" aria-labelledby="per-day-title">
      <h2 id="per-day-title">{t('perDayTitle')}</h2>
      {perDay.counted < perDay.total && (
        <p class="notice notice-warning" data-testid="per-day-truncated">
          {t('perDayTruncated', { shown: formatNumber(perDay.counted, language), total: formatNumber(perDay.total, language) })}
        </p>
      )}
      <CountChart labels={labels} axisLabels={axisLabels} categoryLabel={t('columnDay')} values={perDay.counts} seriesLabel={t('columnCases')} description={t('perDayChart')} formatCount={formatCount} testId="chart-per-day" />
      <details class="report-details">
        <summary>{t('showTable')}</summary>
        <CaseCountTable
          testId="table-per-day"
          caption={t('perDayTitle')}
          categoryLabel={t('columnDay')}
          rows={perDay.days.map((day, index) => ({ key: day, data: { 'data-day': day }, label: labels[index], count: perDay.counts[index] }))}
        />
      </details>
    </section>
  );
}

export function ReportsScreen() {
  const t = useMessages(reportMessages);
  const { query } = useLocation();
  // The default range is computed once per visit, so "today" does not move under the user.
  const [today] = useState(() => new Date());
  const range = rangeFromQuery(query, today);
  const rangeKey = `${range.from}/${range.to}`;
  const summary = useAsync(() => fetchSummary(range), [rangeKey]);
  const perDay = useAsync(() => fetchCasesPerDay(range), [rangeKey]);

  return (
    <section data-testid="reports">
      <PageHeader title={t('title')} />
      <p class="muted">{t('intro')}</p>
      <RangeForm key={rangeKey} range={range} />
      <p class="field-hint">{t('downloadHint')}</p>
      {summary.error ? <ErrorNotice error={summary.error} /> : null}
      {summary.loading && !summary.data ? <Loading /> : null}
      {summary.data && (
        <>
          <Headline summary={summary.data} />
          <ByStatus summary={summary.data} />
        </>
      )}
      {perDay.error && !summary.error ? <ErrorNotice error={perDay.error} /> : null}
      {perDay.data && <PerDay perDay={perDay.data} />}
    </section>
  );
}
