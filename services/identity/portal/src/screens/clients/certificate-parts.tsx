import { StatusBadge } from '@svc/web-ui/components';
import { useMessages } from '@svc/web-ui/i18n';
import { certificateValidity } from './client-logic.js';
import { clientMessages } from './messages.js';

/** A subject DN that wraps between its parts (after each comma), never inside a name. */
export function SubjectName(props: { dn: string }) {
  const parts = props.dn.split(/(?<=,)/);
  return (
    <>
      {parts.map((part, index) => (
        <span key={index} class="dn-part">
          {part}
          {index < parts.length - 1 && <wbr />}
        </span>
      ))}
    </>
  );
}

/** "Expired" / "Expires soon" / "Not yet valid" beside a certificate's dates; nothing while it is plainly valid. */
export function ValidityMark(props: { notBefore: string; notAfter: string }) {
  const t = useMessages(clientMessages);
  const validity = certificateValidity(props.notBefore, props.notAfter);
  if (validity === 'valid') return null;
  if (validity === 'notYetValid') return <StatusBadge status="inactive" label={t('notYetValid')} />;
  return <StatusBadge status={validity} />;
}
