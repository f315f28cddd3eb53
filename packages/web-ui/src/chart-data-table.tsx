import type { ComponentChildren } from 'preact';

export interface ChartDataCell {
  text: ComponentChildren;
  /** The exact figure behind the formatted text, as `data-value` (for scripts and tests). */
  value?: number | string | undefined;
}

export interface ChartDataRow {
  key: string;
  /** `data-*` attributes naming the row (e.g. `data-day`), for scripts and tests. */
  data?: Record<`data-${string}`, string>;
  header: ComponentChildren;
  cells: ChartDataCell[];
}

export interface ChartDataTableProps {
  /** Read by screen readers only: the chart's title. */
  caption: string;
  /** The row header column first, then one per figure. */
  columns: string[];
  rows: ChartDataRow[];
  /** The page's own classes for the scrolling wrapper and the table. */
  wrapClass: string;
  tableClass: string;
  testId?: string;
  /** The wrapper scrolls (the page caps its height): it is then a region named by the caption, which a keyboard can focus and scroll. */
  scrolls?: boolean;
}

/** The figures a chart draws, as a table: one row per category, a row header naming it, then its numbers. */
export function ChartDataTable({ caption, columns, rows, wrapClass, tableClass, testId, scrolls = false }: ChartDataTableProps) {
  return (
    <div class={wrapClass} {...(scrolls ? { tabIndex: 0, role: 'region', 'aria-label': caption } : {})}>
      <table class={tableClass} data-testid={testId}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={index} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} {...row.data}>
              <th scope="row">{row.header}</th>
              {row.cells.map((cell, index) => (
                <td key={index} class="number" data-value={cell.value}>
                  {cell.text}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
