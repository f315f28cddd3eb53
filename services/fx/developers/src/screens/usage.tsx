import { chartWidth, ChartDataTable, followContainerWidth } from '@svc/web-ui';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, ApiProblem, type Usage } from '../api.js';
import type { Formatters } from '../format.js';
import { fill, type Messages } from '../i18n/messages.js';
import { problemText } from '../problems.js';

const DAYS = 30;
const HEIGHT = 240;
const REQUESTS = '#0b5cad';
const LIMITED = '#b3261e';
const secondsOf = (isoDay: string) => Date.parse(`${isoDay.slice(0, 10)}T00:00:00Z`) / 1000;
const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** Requests and 429s per UTC day as bars; the canvas is labelled and the table beneath carries the same figures. */
function DailyChart({ days, t, format }: { days: Usage['days']; t: Messages; format: Formatters }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const count = (_u: uPlot, raw: number | null) => (raw === null ? '—' : format.whole(raw));
    const bars = (offset: number) => uPlot.paths.bars?.({ size: [0.4, 24], align: offset as 1 | -1 });
    const plot = new uPlot(
      {
        width: chartWidth(element),
        height: HEIGHT,
        series: [
          { label: t.date, value: (_u, raw) => (raw === null ? '—' : format.day(dayOf(raw))) },
          { label: t.requests, stroke: REQUESTS, fill: `${REQUESTS}cc`, value: count, paths: bars(-1), points: { show: false } },
          { label: t.limited, stroke: LIMITED, fill: `${LIMITED}cc`, value: count, paths: bars(1), points: { show: false } },
        ],
        // Half a day either side, so the first and last days' bars are drawn whole.
        scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] }, y: { range: (_u, _min, max) => [0, Math.max(max, 4)] } },
        axes: [
          { values: (_u, splits) => splits.map((split) => format.shortDay(dayOf(split))), space: 60, stroke: '#333', grid: { stroke: '#e3e3e3' } },
          { values: (_u, splits) => splits.map((split) => (Number.isInteger(split) ? format.whole(split) : '')), size: 56, stroke: '#333', grid: { stroke: '#e3e3e3' } },
        ],
        cursor: { drag: { x: false, y: false } },
      },
      [days.map((day) => secondsOf(day.date)), days.map((day) => day.requests), days.map((day) => day.limited)],
      element,
    );
    return followContainerWidth(plot, element, HEIGHT);
  }, [days, t, format]);
  return <div class="chart" ref={container} role="img" aria-label={t.chartLabel} data-testid="usage-chart" data-days={days.length} dir="ltr" />;
}

export function UsageScreen({ t, format, onSessionEnded }: { t: Messages; format: Formatters; onSessionEnded: () => void }) {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.usage(DAYS).then(setUsage, (problem: unknown) => (problem instanceof ApiProblem && problem.status === 401 ? onSessionEnded() : setError(problemText(problem, t))));
  }, []);
  if (error) {
    return (
      <p class="field-error" role="alert">
        {error}
      </p>
    );
  }
  if (!usage) return <p class="loading">…</p>;
  const used = format.whole(usage.monthToDate);
  // Newest first in the table: the day a reader looks for is today.
  const newestFirst = [...usage.days].reverse();
  return (
    <>
      <section class="card wide" aria-labelledby="month-title">
        <h2 id="month-title">{t.monthToDate}</h2>
        <p class="figure" data-testid="month-to-date" data-value={usage.monthToDate}>
          {usage.monthlyQuota === null ? fill(t.unlimited, { used }) : fill(t.ofQuota, { used, quota: format.whole(usage.monthlyQuota) })}
        </p>
        {usage.monthlyQuota !== null && <meter min={0} max={usage.monthlyQuota} value={usage.monthToDate} aria-label={t.monthToDate} />}
        <p class="note">
          <ResetInstant t={t} format={format} iso={usage.resetUtc} />
        </p>
        <p class="note">{t.quotaNote}</p>
      </section>
      <section class="card wide" aria-labelledby="days-title">
        <h2 id="days-title">{t.perDay}</h2>
        <DailyChart days={usage.days} t={t} format={format} />
        <ChartDataTable
          caption={t.perDay}
          columns={[t.date, t.requests, t.limited]}
          rows={newestFirst.map((day) => ({
            key: day.date,
            data: { 'data-day': day.date },
            header: format.day(day.date),
            cells: [
              { text: format.whole(day.requests), value: day.requests },
              { text: format.whole(day.limited), value: day.limited },
            ],
          }))}
          wrapClass="table-scroll days"
          scrolls
          tableClass="usage-days"
          testId="usage-days"
        />
      </section>
    </>
  );
}

/** The reset sentence with the instant as a <time>, whichever side of it the language puts the words. */
function ResetInstant({ t, format, iso }: { t: Messages; format: Formatters; iso: string }) {
  const [before, after = ''] = t.resetsAt.split('{instant}');
  return (
    <>
      {before}
      <time dateTime={iso} data-testid="reset-instant">
        {format.instant(iso)}
      </time>
      {after}
    </>
  );
}
