import type { Metric, Registry } from 'prom-client';

/** What prom-client's registry reads from a metric at scrape time (get()). */
interface ScrapedValue {
  labels: Record<string, string | number>;
  /** Written after the metric's own labels and the registry's defaults (prom-client's order for histograms). */
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
}
interface ScrapedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: ScrapedValue[];
}

/** One label set's responses: how many, their summed seconds, and how many fell in each bucket. */
export interface RequestSeries {
  readonly labels: Record<string, string>;
  count: number;
  sum: number;
  /** Not cumulative: bucketCounts[i] counts the observations in (bounds[i-1], bounds[i]]. */
  readonly bucketCounts: number[];
}

/**
 * A counter and a histogram over the same series, counted with plain arithmetic on the request
 * path and turned into prom-client's shapes only when scraped. prom-client's labelled children
 * check and hash their labels on every inc() and observe(): twice per response, that cost more
 * than the rest of the metrics hook together.
 */
export function requestSeriesMetrics(options: { counter: { name: string; help: string }; histogram: { name: string; help: string; buckets: readonly number[] }; registry: Registry }) {
  const bounds = [...options.histogram.buckets].sort((a, b) => a - b);
  const all = new Map<string, RequestSeries>();

  /** A metric prom-client's registry can scrape: its values are read from the series when asked. */
  const scraped = (name: string, help: string, type: ScrapedMetric['type'], values: () => ScrapedValue[]) => ({
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async (): Promise<ScrapedMetric> => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => all.clear(),
  });
  const counter = scraped(options.counter.name, options.counter.help, 'counter', () => [...all.values()].map((series) => ({ labels: series.labels, value: series.count })));
  const bucketName = `${options.histogram.name}_bucket`;
  const histogram = scraped(options.histogram.name, options.histogram.help, 'histogram', () =>
    [...all.values()].flatMap((series): ScrapedValue[] => {
      let cumulative = 0;
      const buckets = bounds.map((bound, i) => {
        cumulative += series.bucketCounts[i]!;
        return { labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: bucketName };
      });
      return [
        ...buckets,
        { labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.count, metricName: bucketName },
        { labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${options.histogram.name}_sum` },
        { labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${options.histogram.name}_count` },
      ];
    }),
  );
  options.registry.registerMetric(counter as unknown as Metric);
  options.registry.registerMetric(histogram as unknown as Metric);

  return {
    /** The series under `key`, made with `labels()` the first time. */
    series(key: string, labels: () => Record<string, string>): RequestSeries {
      let series = all.get(key);
      if (!series) {
        series = { labels: labels(), count: 0, sum: 0, bucketCounts: bounds.map(() => 0) };
        all.set(key, series);
      }
      return series;
    },
    observe(series: RequestSeries, seconds: number): void {
      series.count += 1;
      series.sum += seconds;
      for (let i = 0; i < bounds.length; i++) {
        if (seconds <= bounds[i]!) {
          series.bucketCounts[i]! += 1;
          return;
        }
      }
    },
  };
}
