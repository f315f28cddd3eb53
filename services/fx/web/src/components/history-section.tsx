import { ChartDataTable } from '@svc/web-ui';
import { useEffect, useState } from 'preact/hooks';
import { getJson, type RateHistory, type RateSource } from '../api.js';
import type { Formatters } from '../i18n/format.js';
import { fill, type Messages } from '../i18n/messages.js';
import { HistoryChart, redenominationIndex, type ChartMode } from './history-chart.js';

const RANGES = [7, 30, 90, 365] as const;

interface Props {
  currencies: string[];
  /** Changes on every refresh of the page data, so the chart revalidates with it. */
  refreshCount: number;
  t: Messages;
  format: Formatters;
}

/** A group of radio buttons styled as segments: arrow keys move within it, Tab moves past it. */
function Segments<T extends string | number>({ name, legend, options, value, onChange }: { name: string; legend: string; options: { value: T; label: string }[]; value: T; onChange: (value: T) => void }) {
  return (
    <fieldset class="segments">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={String(option.value)}>
          <input type="radio" name={name} value={String(option.value)} checked={option.value === value} onChange={() => onChange(option.value)} />
          <span>{option.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

export function HistorySection({ currencies, refreshCount, t, format }: Props) {
  const [currency, setCurrency] = useState('USD');
  const [source, setSource] = useState<RateSource>('MARKET');
  const [days, setDays] = useState<number>(30);
  const [mode, setMode] = useState<ChartMode>('line');
  const [history, setHistory] = useState<RateHistory | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let current = true;
    getJson<RateHistory>(`/api/v1/rates/history?currency=${currency}&source=${source}&days=${days}`)
      .then((body) => {
        if (!current) return;
        setHistory(body);
        setFailed(false);
      })
      .catch(() => current && setFailed(true));
    return () => {
      current = false;
    };
  }, [currency, source, days, refreshCount]);

  const points = history && history.currency === currency && history.source === source ? history.points : [];
  const switchIndex = redenominationIndex(points);
  const switchDay = points[switchIndex]?.date;
  const sourceName = source === 'CBS' ? t.official : t.market;
  return (
    <section aria-labelledby="history-title" class="card wide">
      <h2 id="history-title">{t.history}</h2>
      <div class="controls">
        <label>
          {t.currency}
          <select value={currency} onChange={(event) => setCurrency(event.currentTarget.value)}>
            {(currencies.length > 0 ? currencies : ['USD']).map((code) => (
              <option key={code} value={code}>
                {code} · {format.currencyName(code)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.source}
          <select value={source} onChange={(event) => setSource(event.currentTarget.value as RateSource)}>
            <option value="MARKET">{t.market}</option>
            <option value="CBS">{t.official}</option>
          </select>
        </label>
        <Segments name="range" legend={t.range} value={days} onChange={setDays} options={RANGES.map((range) => ({ value: range, label: fill(t.days, { days: format.whole(range) }) }))} />
        <Segments
          name="mode"
          legend={t.chartType}
          value={mode}
          onChange={setMode}
          options={[
            { value: 'line', label: t.line },
            { value: 'ohlc', label: t.ohlc },
          ]}
        />
      </div>
      {failed && <p class="warning">{t.loadFailed}</p>}
      <HistoryChart points={points} mode={mode} label={`${t.history}: ${currency}, ${sourceName}, ${fill(t.days, { days: format.whole(days) })}`} t={t} format={format} />
      {switchDay && (
        <p class="note" data-testid="redenomination-note">
          {fill(t.redenominationNote, { date: format.day(switchDay) })}
        </p>
      )}
      <details class="data-table">
        <summary>{t.dataTable}</summary>
        <ChartDataTable
          wrapClass="table-scroll"
          tableClass="compact"
          testId="history-table"
          caption={`${t.history}: ${currency}, ${sourceName}`}
          columns={[t.date, t.open, t.high, t.low, t.close]}
          rows={[...points].reverse().map((point) => ({
            key: point.date,
            data: { 'data-date': point.date },
            header: format.day(point.date),
            cells: [{ text: format.amount(point.open) }, { text: format.amount(point.high) }, { text: format.amount(point.low) }, { text: format.amount(point.close), value: point.close }],
          }))}
        />
      </details>
    </section>
  );
}
