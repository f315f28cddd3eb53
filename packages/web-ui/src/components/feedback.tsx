import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.js';
import { useMessages } from '../i18n.js';
import { componentMessages } from './messages.js';

export function Spinner(props: { label?: string }) {
  const t = useMessages(componentMessages);
  return <span class="spinner" role="status" aria-label={props.label ?? t('loading')} />;
}

/** A whole area still loading: a spinner and the word, announced politely. */
export function Loading(props: { label?: string }) {
  const t = useMessages(componentMessages);
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? t('loading')}
    </p>
  );
}

function fieldErrors(error: ApiError) {
  return error.errors?.filter((field) => field.message) ?? [];
}

/**
 * The server's own words for a refused request (problem+json detail, and each field's message
 * for a 400), in an alert so screen readers announce it. Renders nothing without an error.
 */
export function ErrorNotice(props: { error: unknown; onRetry?: () => void }) {
  const t = useMessages(componentMessages);
  const { error } = props;
  if (error === undefined || error === null) return null;
  const apiError = error instanceof ApiError ? error : undefined;
  const detail = apiError ? apiError.detail : error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const fields = apiError ? fieldErrors(apiError) : [];
  return (
    <div class="notice notice-error" role="alert" data-code={apiError?.code}>
      <p class="notice-title">{apiError?.title ?? t('errorTitle')}</p>
      <p>{detail}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map((field) => (
            <li key={field.path}>
              {field.path ? <code>{field.path}</code> : null} {field.message}
            </li>
          ))}
        </ul>
      )}
      {props.onRetry && (
        <button type="button" class="button" onClick={props.onRetry}>
          {t('retry')}
        </button>
      )}
    </div>
  );
}

export function EmptyState(props: { title?: string; children?: ComponentChildren }) {
  const t = useMessages(componentMessages);
  return (
    <div class="empty-state">
      <p class="empty-title">{props.title ?? t('nothingHere')}</p>
      {props.children}
    </div>
  );
}

export function PageHeader(props: { title: ComponentChildren; actions?: ComponentChildren; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div class="page-heading">
        <h1>{props.title}</h1>
        {props.children}
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </header>
  );
}
