import { ApiError } from '../../../../web-shared/api.js';
import { ErrorNotice } from '../../../../web-shared/components/index.js';
import { useMessages } from '../../../../web-shared/i18n.js';
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
