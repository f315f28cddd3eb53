/** What this needs of a uPlot chart (structural, so this package does not depend on uPlot). */
interface ResizableChart {
  setSize(size: { width: number; height: number }): void;
  destroy(): void;
}

/** A chart's width for its container: never so narrow that the axes cover the plot. */
export function chartWidth(container: HTMLElement): number {
  return Math.max(container.clientWidth, 200);
}

/** Keeps a chart as wide as its container; the returned clean-up (an effect's) stops that and destroys the chart. */
export function followContainerWidth(chart: ResizableChart, container: HTMLElement, height: number): () => void {
  const resize = new ResizeObserver(() => chart.setSize({ width: chartWidth(container), height }));
  resize.observe(container);
  return () => {
    resize.disconnect();
    chart.destroy();
  };
}
