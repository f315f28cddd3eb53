import type { ComponentChildren } from 'preact';

/** A column heading; `hidden` is read by screen readers only (a column of buttons needs a name but no visible title). */
export type DataTableColumn = string | { hidden: string };

/**
 * The one table markup of the portal and the console: a scrolling wrapper (a wide table scrolls
 * on a phone instead of the page), `scope="col"` headings, and the rows the screen renders.
 */
export function DataTable(props: { class?: string; testId: string; columns: readonly DataTableColumn[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class={props.class ? `data ${props.class}` : 'data'} data-testid={props.testId}>
        <thead>
          <tr>
            {props.columns.map((column, index) =>
              typeof column === 'string' ? (
                <th key={index} scope="col">
                  {column}
                </th>
              ) : (
                <th key={index} scope="col">
                  <span class="visually-hidden">{column.hidden}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
