import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** The bars' colour; the tests look for its pixels on the canvas. */
export const BAR_COLOUR = '#1f6fbf';
const HEIGHT = 300;
const INK = '#333';
const GRID = '#e3e3e3';

interface Props {
  /** One label per bar (status names, days), shown in the legend under the cursor. */
  labels: string[];
  /** Shorter labels for the axis, when the legend's are long (days); default `labels`. */
  axisLabels?: string[];
  /** Legend name of the categories (e.g. "Status", "Day"). */
  categoryLabel: string;
  values: number[];
  /** Legend and cursor name of the series (e.g. "Cases"). */
  seriesLabel: string;
  /** What the canvas shows, for screen readers; the table after it has the numbers. */
  description: string;
  formatCount: (value: number) => string;
  /** Long category names (statuses) are slanted so all eleven fit. */
  slantLabels?: boolean;
  testId: string;
}

/**
 * Counts as uPlot bars over categories (x = 0..n-1, labelled by `labels`). uPlot styles its DOM
 * through CSSOM properties and its own stylesheet, both allowed by the portal's CSP.
 */
export function CountChart({ labels, axisLabels = labels, categoryLabel, values, seriesLabel, description, formatCount, slantLabels = false, testId }: Props) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const xs = labels.map((_label, index) => index);
    const width = () => Math.max(element.clientWidth, 240);
    // Every label needs room (slanted ones less): on a month or a year of days only every n-th is drawn.
    const labelEvery = Math.max(1, Math.ceil(labels.length / Math.max(1, Math.floor(width() / (slantLabels ? 34 : 80)))));
    const plot = new uPlot(
      {
        width: width(),
        height: HEIGHT + (slantLabels ? 70 : 0),
        legend: { show: true },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        series: [
          { label: categoryLabel, value: (_u, raw) => (raw === null ? '—' : (labels[raw] ?? '')) },
          {
            label: seriesLabel,
            stroke: BAR_COLOUR,
            fill: BAR_COLOUR,
            width: 0,
            paths: uPlot.paths.bars?.({ size: [0.7, 48], align: 0 }),
            points: { show: false },
            value: (_u, raw) => (raw === null ? '—' : formatCount(raw)),
          },
        ],
        axes: [
          {
            stroke: INK,
            grid: { show: false },
            ticks: { stroke: '#ccc' },
            splits: () => xs.filter((index) => index % labelEvery === 0),
            values: (_u, splits) => splits.map((split) => axisLabels[split] ?? ''),
            ...(slantLabels ? { rotate: -40, size: 110 } : { size: 40 }),
          },
          {
            stroke: INK,
            grid: { stroke: GRID },
            ticks: { stroke: '#ccc' },
            // Counts are whole numbers: no 0.5 ticks.
            incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000],
            values: (_u, splits) => splits.map((split) => formatCount(split)),
            size: 56,
          },
        ],
      },
      [xs, values],
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: plot.height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [labels, axisLabels, categoryLabel, values, seriesLabel, formatCount, slantLabels]);

  // Charts read left to right in both languages (like the axes of a printed Arabic report).
  return <div class="count-chart" ref={container} role="img" aria-label={description} data-testid={testId} data-bars={values.length} dir="ltr" />;
}
