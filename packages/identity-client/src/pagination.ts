import type { Client } from 'openapi-fetch';
import type { operations, paths, VerificationCaseListItem, WebhookDelivery } from './types.js';

type CaseQuery = Omit<NonNullable<operations['listVerifications']['parameters']['query']>, 'page' | 'cursor'>;
type DeliveryQuery = Omit<NonNullable<operations['listWebhookDeliveries']['parameters']['query']>, 'page'>;

/**
 * Every case matching `query`, page after page by the list's cursor (stable at any depth, and
 * no case is seen twice when new ones arrive meanwhile). Stop iterating to stop fetching.
 */
export async function* allVerifications(api: Client<paths>, query: CaseQuery = {}): AsyncGenerator<VerificationCaseListItem> {
  let cursor: string | undefined;
  for (;;) {
    const { data } = await api.GET('/api/partner/v1/verifications', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } });
    if (!data) return;
    yield* data.items;
    if (!data.nextCursor) return;
    cursor = data.nextCursor;
  }
}

/** Every delivery of one webhook endpoint matching `query`, newest first, page after page. */
export async function* allWebhookDeliveries(api: Client<paths>, endpointId: string, query: DeliveryQuery = {}): AsyncGenerator<WebhookDelivery> {
  for (let page = 1; ; page++) {
    const { data } = await api.GET('/api/partner/v1/webhooks/{id}/deliveries', { params: { path: { id: endpointId }, query: { ...query, page } } });
    if (!data) return;
    yield* data.deliveries;
    if (page >= data.totalPages || data.deliveries.length === 0) return;
  }
}
