import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useMessages } from '../i18n.js';
import { componentMessages } from './messages.js';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  body: string;
  confirmLabel: string;
  /** Red confirm button: the action cannot be undone. */
  danger?: boolean;
  /** Disables the confirm button (e.g. while a required reason is empty, or the request is running). */
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** Extra content between the text and the buttons: a reason field, an error notice. */
  children?: ComponentChildren;
}

/**
 * A native modal <dialog>: the browser keeps focus inside it, makes the page behind it inert,
 * and Escape cancels it; the cancel button takes the first focus so Enter never confirms by accident.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const t = useMessages(componentMessages);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) {
      element.showModal();
      cancelButton.current?.focus();
    } else if (!props.open && element.open) element.close();
  }, [props.open]);

  const onCancelEvent = (event: Event) => {
    // Escape: the parent decides (it closes by setting open=false), so state and dialog agree.
    event.preventDefault();
    props.onCancel();
  };

  return (
    <dialog ref={dialog} class={`dialog${props.danger ? ' dialog-danger' : ''}`} aria-labelledby="confirm-dialog-title" onCancel={onCancelEvent}>
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (!props.confirmDisabled) props.onConfirm();
        }}
      >
        <h2 id="confirm-dialog-title">{props.title}</h2>
        <p class="dialog-body">{props.body}</p>
        {props.children}
        <div class="dialog-actions">
          <button type="button" class="button" ref={cancelButton} onClick={props.onCancel}>
            {t('cancel')}
          </button>
          <button type="submit" class={`button ${props.danger ? 'button-danger' : 'button-primary'}`} disabled={props.confirmDisabled}>
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
