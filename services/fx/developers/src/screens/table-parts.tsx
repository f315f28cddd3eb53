import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A table of one row per item: it scrolls inside its own box, and its header row names each column. */
export function ItemTable({ columns, testId, className, children }: { columns: string[]; testId: string; className: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll">
      <table class={className} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A question asked in the row it concerns, named by its action, answered by the action's button or Cancel.
 * The button that opened it is gone, so the focus moves to Cancel: the safe answer to a stray second Enter.
 */
export function ConfirmInRow({ action, question, cancel, danger, onConfirm, onCancel }: { action: string; question: string; cancel: string; danger: boolean; onConfirm: () => void; onCancel: () => void }) {
  const cancelButton = useRef<HTMLButtonElement>(null);
  useEffect(() => cancelButton.current?.focus(), []);
  return (
    <div role="group" aria-label={action} class="confirm">
      <p>{question}</p>
      <button type="button" class={danger ? 'danger' : 'primary'} onClick={onConfirm}>
        {action}
      </button>
      <button type="button" ref={cancelButton} onClick={onCancel}>
        {cancel}
      </button>
    </div>
  );
}
