import { api } from '@svc/web-ui/api';
import type { WebhookDelivery, WebhookDeliveryPage as DeliveryPage, WebhookEndpoint } from '@svc/identity-client/types';

export { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '@svc/identity-client/types';
export type { WebhookDelivery, WebhookDeliveryPage as DeliveryPage, WebhookDeliveryStatus as DeliveryStatus, WebhookEndpoint, WebhookEventType } from '@svc/identity-client/types';

export interface DeliveryFilter {
  page: number;
  succeeded?: 'true' | 'false' | undefined;
  eventType?: string | undefined;
}

export const DELIVERY_PAGE_SIZE = 20;

const endpointPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

export const listEndpoints = () => api<WebhookEndpoint[]>('GET', '/webhooks');
export const getEndpoint = (id: string) => api<WebhookEndpoint>('GET', endpointPath(id));
export const createEndpoint = (body: { url: string; eventTypes: string[] }) => api<{ endpoint: WebhookEndpoint; signingSecret: string }>('POST', '/webhooks', { body });
export const updateEndpoint = (id: string, body: { url: string; eventTypes: string[] }) => api<WebhookEndpoint>('PUT', endpointPath(id), { body });
export const deleteEndpoint = (id: string) => api<undefined>('DELETE', endpointPath(id));
export const setEndpointActive = (id: string, active: boolean) => api<undefined>('POST', `${endpointPath(id)}/${active ? 'activate' : 'deactivate'}`);
/** The grace windows the portal offers; the API takes any number of seconds up to 7 days. */
export const PREVIOUS_SECRET_GRACE_SECONDS = [3600, 86_400, 604_800] as const;
export type PreviousSecretGrace = (typeof PREVIOUS_SECRET_GRACE_SECONDS)[number];

/** Without a grace window no body is sent, so the old secret stops signing at once, as the spec says. */
export const rotateSecret = (id: string, previousSecretValidSeconds?: PreviousSecretGrace) =>
  api<{ newSigningSecret: string; previousSecretExpiresAt?: string }>('POST', `${endpointPath(id)}/rotate-secret`, previousSecretValidSeconds ? { body: { previousSecretValidSeconds } } : {});
export const sendTestPing = (id: string) => api<WebhookDelivery>('POST', `${endpointPath(id)}/test`);
export const retryDelivery = (id: string, deliveryId: string) => api<WebhookDelivery>('POST', `${endpointPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`);
export const recoverDeliveries = (id: string, window: { since: string; until: string }) =>
  api<{ requeued: number; since: string; until: string }>('POST', `${endpointPath(id)}/recover`, { body: window });

export const listDeliveries = (id: string, filter: DeliveryFilter) =>
  api<DeliveryPage>('GET', `${endpointPath(id)}/deliveries`, {
    query: { page: filter.page, pageSize: DELIVERY_PAGE_SIZE, succeeded: filter.succeeded, eventType: filter.eventType },
  });

/** A delivery the worker has not finished: the log polls while one is on screen. */
export function isUnfinished(delivery: WebhookDelivery): boolean {
  return delivery.status === 'pending' || delivery.status === 'in_flight';
}

/** Only finished deliveries can be sent once more (the API answers 409 for the others). */
export function canRetry(delivery: WebhookDelivery): boolean {
  return !isUnfinished(delivery);
}

/**
 * A `datetime-local` value (the browser's local time, to the minute) for an instant, and back.
 * The recover window is typed in local time and sent as UTC ISO 8601; its end is the last
 * millisecond of the minute typed, so "to 14:05" includes what failed at 14:05:40.
 */
export function toLocalInputValue(instant: Date): string {
  const local = new Date(instant.getTime() - instant.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function fromLocalInputValue(value: string, edge: 'start' | 'end' = 'start'): string | null {
  if (!value) return null;
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime())) return null;
  return new Date(instant.getTime() + (edge === 'end' ? 59_999 : 0)).toISOString();
}
