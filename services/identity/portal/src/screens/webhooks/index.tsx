import './webhooks.css';
import { WebhookCreate } from './webhook-create.js';
import { WebhookDetail } from './webhook-detail.js';
import { WebhookList } from './webhook-list.js';

/** `/portal/webhooks` (list), `/portal/webhooks/new` (register), `/portal/webhooks/<id>` (endpoint, log, recovery). */
export function WebhooksArea({ subpath }: { subpath: string }) {
  const id = subpath.replace(/^\/+/, '').split('/')[0] ?? '';
  if (id === '') return <WebhookList />;
  if (id === 'new') return <WebhookCreate />;
  // key: another endpoint is a fresh screen (no secret or notice carried over).
  return <WebhookDetail key={id} endpointId={decodeURIComponent(id)} />;
}
