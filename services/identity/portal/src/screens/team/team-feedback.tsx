import { useState } from 'preact/hooks';
import { ApiError } from '@svc/web-ui/api';
import { type AsyncState, ErrorNotice, Loading } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { teamMessages } from './messages.js';

/** A refusal the screen explains in its own words, or the server's problem otherwise. */
export function TeamProblem(props: { error: unknown }) {
  const t = useMessages(teamMessages);
  const known = props.error instanceof ApiError && (props.error.code === 'LAST_ADMIN' || props.error.code === 'USER_EXISTS') ? props.error.code : undefined;
  if (!known) return <ErrorNotice error={props.error} />;
  return (
    <div class="notice notice-error" role="alert" data-code={known}>
      <p>{t(known === 'LAST_ADMIN' ? 'lastAdmin' : 'userExists')}</p>
    </div>
  );
}

/**
 * An action on a row of a list: its success message or its refusal, and the list loaded again
 * either way (a refused change may still mean the list moved under us).
 */
export function useRowAction(list: AsyncState<unknown>) {
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const run = async (action: () => Promise<string>) => {
    setError(undefined);
    setNotice(undefined);
    try {
      setNotice(await action());
    } catch (failure) {
      setError(failure);
    } finally {
      list.reload();
    }
  };
  return { error, notice, run };
}

/** Above a list: the last action's outcome, then the list's own loading state or failure. */
export function ListFeedback(props: { list: AsyncState<unknown>; action: { error: unknown; notice: string | undefined } }) {
  const { list, action } = props;
  return (
    <>
      {action.notice && (
        <div class="notice notice-success" role="status">
          <p>{action.notice}</p>
        </div>
      )}
      {action.error !== undefined && <TeamProblem error={action.error} />}
      {list.error !== undefined && <ErrorNotice error={list.error} onRetry={list.reload} />}
      {list.data === undefined && list.error === undefined && <Loading />}
    </>
  );
}
