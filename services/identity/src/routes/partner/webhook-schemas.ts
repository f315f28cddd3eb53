import { z } from 'zod';
import { MAX_TARGET_URL_LENGTH } from '@svc/outbound-http';
import { signingSecretSchema } from '@svc/service-kit';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/webhook-events.js';

const timestamp = z.string().meta({ description: 'ISO 8601, UTC' });

export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES, { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }).meta({ id: 'WebhookEventType' });

export const eventTypesSchema = z
  .array(webhookEventTypeSchema, { error: 'must be an array of event type names' })
  .min(1, 'must name at least one event type')
  .refine((types) => new Set(types).size === types.length, { error: 'must not name an event type twice' });

export const webhookUrlSchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(MAX_TARGET_URL_LENGTH, `must be at most ${MAX_TARGET_URL_LENGTH} characters`)
  .meta({ description: `https:// only, publicly reachable (no loopback, private, link-local, CGNAT, multicast hosts), no credentials; at most ${MAX_TARGET_URL_LENGTH} characters` });

export const webhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    isActive: z.boolean(),
    createdAt: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

const signingSecret = signingSecretSchema('X-Service-Signature');

export const createdEndpointSchema = z.object({ endpoint: webhookEndpointSchema, signingSecret });
export const rotatedSecretSchema = z.object({
  newSigningSecret: signingSecret,
  previousSecretExpiresAt: timestamp.optional().meta({ description: 'ISO 8601, UTC. Only with a grace window: until then webhook-signature also carries the previous secret\'s signature' }),
});

export const deliveryRecordSchema = z
  .object({
    id: z.uuid().meta({ description: 'Stable across attempts; sent as X-Service-Delivery-Id' }),
    eventType: z.string().meta({ description: `An event type, or ${TEST_EVENT_TYPE} for a test ping` }),
    caseId: z.uuid().nullable().meta({ description: 'null for a test ping' }),
    httpStatus: z.number().int().nullable().meta({ description: 'Of the last attempt; 0 when no answer arrived (timeout, connection error, refused target); null before the first attempt' }),
    attemptCount: z.number().int(),
    lastAttemptAt: timestamp.nullable(),
    succeeded: z.boolean(),
    status: z.enum(['pending', 'in_flight', 'succeeded', 'failed']).meta({ description: 'failed: every attempt failed (given up)' }),
    nextAttemptAt: timestamp.nullable().meta({ description: 'When the next attempt is due; null once finished' }),
    lastError: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryPageSchema = z.object({
  deliveries: z.array(deliveryRecordSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  totalCount: z.number().int(),
  totalPages: z.number().int(),
});

export const endpointIdParams = z.object({ id: z.uuid({ error: 'must be a webhook endpoint id (a UUID)' }) });
export const deliveryIdParams = endpointIdParams.extend({ deliveryId: z.uuid({ error: 'must be a delivery id (a UUID)' }) });

const isoTimestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp with an offset, such as 2026-01-31T00:00:00Z' });
export const recoverBodySchema = z.strictObject({
  since: isoTimestamp.meta({ description: 'Failed deliveries created at or after this are queued again' }),
  until: isoTimestamp.optional().meta({ description: 'Up to and including this; default now' }),
});
export const recoveredSchema = z.object({ requeued: z.number().int(), since: timestamp, until: timestamp });
