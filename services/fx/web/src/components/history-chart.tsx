import { chartWidth, followContainerWidth } from '@svc/web-ui';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HistoryPoint } from '../api.js';
import type { Formatters } from '../i18n/format.js';
import type { Messages } from '../i18n/messages.js';

export type ChartMode = 'line' | 'ohlc';

const UP = '#1a7f37';
const DOWN = '#c62828';
const LINE = '#0b5cad';
const HEIGHT = 280;

const secondsOf = (isoDay: string) => Date.parse(`${isoDay}T00:00:00Z`) / 1000;
const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** Index of the first point in the new pound after rescaled ones: where the redenomination falls. */
export function redenominationIndex(points: HistoryPoint[]): number {
  return points.findIndex((point, index) => index > 0 && !point.rescaled && points[index - 1]?.rescaled === true);
}

/** Candles drawn on uPlot's canvas in its draw hook (uPlot has scales, axes and cursor, not a candle type). */
function drawCandles(u: uPlot, mode: ChartMode) {
  if (mode !== 'ohlc') return;
  const [xs, opens, highs, lows, closes] = u.data as unknown as number[][];
  if (!xs || !opens || !highs || !lows || !closes) return;
  const context = u.ctx;
  const slot = u.bbox.width / Math.max(xs.length, 1);
  const bodyWidth = Math.max(1, Math.min(slot * 0.6, 14 * uPlot.pxRatio));
  context.save();
  for (let index = 0; index < xs.length; index += 1) {
    const [x0, open, high, low, close] = [xs[index], opens[index], highs[index], lows[index], closes[index]];
    if (x0 === undefined || open === undefined || high === undefined || low === undefined || close === undefined) continue;
    const x = Math.round(u.valToPos(x0, 'x', true));
    const top = u.valToPos(Math.max(open, close), 'y', true);
    const bottom = u.valToPos(Math.min(open, close), 'y', true);
    context.strokeStyle = context.fillStyle = close >= open ? UP : DOWN;
    context.lineWidth = uPlot.pxRatio;
    context.beginPath();
    context.moveTo(x, u.valToPos(high, 'y', true));
    context.lineTo(x, u.valToPos(low, 'y', true));
    context.stroke();
    context.fillRect(x - bodyWidth / 2, top, bodyWidth, Math.max(bottom - top, uPlot.pxRatio));
  }
  context.restore();
}

/** A dashed vertical line where the series switches from rescaled old pounds to new ones. */
function drawRedenomination(u: uPlot, points: HistoryPoint[]) {
  const index = redenominationIndex(points);
  const point = points[index];
  if (!point) return;
  const x = Math.round(u.valToPos(secondsOf(point.date), 'x', true));
  const context = u.ctx;
  context.save();
  context.strokeStyle = '#6b4f00';
  context.setLineDash([4 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
  context.lineWidth = uPlot.pxRatio;
  context.beginPath();
  context.moveTo(x, u.bbox.top);
  context.lineTo(x, u.bbox.top + u.bbox.height);
  context.stroke();
  context.restore();
}

interface Props {
  points: HistoryPoint[];
  mode: ChartMode;
  label: string;
  t: Messages;
  format: Formatters;
}

/** uPlot line (close) or OHLC candles; the legend shows the values under the cursor. */
export function HistoryChart({ points, mode, label, t, format }: Props) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const value = (_u: uPlot, raw: number | null) => (raw === null ? '—' : format.amount(raw));
    const hidden = (name: string, stroke: string): uPlot.Series => ({ label: name, stroke, value, paths: () => null, points: { show: false } });
    const series: uPlot.Series[] =
      mode === 'line'
        ? [{ label: t.close, stroke: LINE, width: 2, value, points: { show: points.length <= 45 } }]
        : [hidden(t.open, '#555'), hidden(t.high, UP), hidden(t.low, DOWN), hidden(t.close, LINE)];
    const xs = points.map((point) => secondsOf(point.date));
    const data: uPlot.AlignedData =
      mode === 'line'
        ? [xs, points.map((point) => point.close)]
        : [xs, points.map((point) => point.open), points.map((point) => point.high), points.map((point) => point.low), points.map((point) => point.close)];
    const plot = new uPlot(
      {
        width: chartWidth(element),
        height: HEIGHT,
        series: [{ label: t.date, value: (_u, raw) => (raw === null ? '—' : format.day(dayOf(raw))) }, ...series],
        scales: { x: { time: true } },
        axes: [
          { values: (_u, splits) => splits.map((split) => format.shortDay(dayOf(split))), space: 60, stroke: '#333', grid: { stroke: '#e3e3e3' }, ticks: { stroke: '#ccc' } },
          { values: (_u, splits) => splits.map((split) => format.amount(split)), size: 72, stroke: '#333', grid: { stroke: '#e3e3e3' }, ticks: { stroke: '#ccc' } },
        ],
        cursor: { drag: { x: false, y: false } },
        hooks: { draw: [(u) => drawCandles(u, mode), (u) => drawRedenomination(u, points)] },
      },
      data,
      element,
    );
    return followContainerWidth(plot, element, HEIGHT);
  }, [points, mode, t, format]);

  // A chart's canvas says nothing to a screen reader: it is labelled here and the data table follows it.
  return <div class="chart" ref={container} role="img" aria-label={label} data-testid="history-chart" data-points={points.length} dir="ltr" />;
}
