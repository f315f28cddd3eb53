import type { TargetPolicy } from '@svc/outbound-http';
import { problemResponses, ValidationError } from '@svc/problem-json';
import { ROTATE_SECRET_DESCRIPTION, rotateSecretBodySchema, type SecretBox } from '@svc/service-kit';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { IdentityExecutor } from '../../db/schema.js';
import { listDeliveries, recoverDeliveries, retryDelivery, sendTestPing } from '../../domain/webhooks/webhook-deliveries.js';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateEndpointSecret, setEndpointActive, updateEndpoint } from '../../domain/webhooks/webhook-endpoints.js';
import { MAX_ENDPOINTS_PER_TENANT, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/webhook-events.js';
import { requirePartner } from '../../plugins/authentication.js';
import { pageQueryShape } from '../page-query.js';
import { RATE_LIMITED, partnerSecurity } from '../openapi.js';
import {
  createdEndpointSchema,
  deliveryIdParams,
  deliveryPageSchema,
  deliveryRecordSchema,
  endpointIdParams,
  eventTypesSchema,
  recoverBodySchema,
  recoveredSchema,
  rotatedSecretSchema,
  webhookEndpointSchema,
  webhookUrlSchema,
} from './webhook-schemas.js';

export interface WebhookRouteOptions {
  db: IdentityExecutor;
  clock: () => Date;
  box: SecretBox;
  policy: TargetPolicy;
}

const AUTH_ERRORS = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN (scope webhooks missing, client revoked) or ACCOUNT_DISABLED', 429: RATE_LIMITED } as const;
/** Endpoint changes through the portal want the password or a second factor from the last 5 minutes; API tokens are machine credentials and are not asked. */
const CHANGE_ERRORS = { ...AUTH_ERRORS, 403: `${AUTH_ERRORS[403]}; REAUTHENTICATION_REQUIRED (portal sessions only): no password or second factor in the last 5 minutes` } as const;
const NOT_FOUND = 'NOT_FOUND: no such endpoint for this tenant';
const URL_RULES = 'https:// only, at most 500 characters, no credentials, and a publicly reachable host (checked again at each delivery, against DNS rebinding)';
const INACTIVE = 'CONFLICT: the endpoint is deactivated';

const deliveryListQuery = z.strictObject({
  page: pageQueryShape.page,
  pageSize: pageQueryShape.pageSize.default(20),
  succeeded: z.enum(['true', 'false'], { error: 'must be true or false' }).transform((value) => value === 'true').optional(),
  eventType: z.enum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE], { error: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')} or ${TEST_EVENT_TYPE}` }).optional(),
});

export const webhookRoutes: FastifyPluginAsync<WebhookRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock } = options;
  const context = { box: options.box, policy: options.policy };
  const common = { tags: ['webhooks'], security: partnerSecurity };

  typed.get(
    '/webhooks',
    { schema: { ...common, operationId: 'listWebhooks', summary: "List the tenant's webhook endpoints", response: { 200: z.array(webhookEndpointSchema), ...problemResponses(AUTH_ERRORS) } } },
    async (request) => listEndpoints(db, requirePartner(request).tenantId),
  );

  typed.post(
    '/webhooks',
    {
      config: { freshAuthentication: true },
      schema: {
        ...common,
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint',
        description: `The signing secret is returned only now. URL: ${URL_RULES}. At most ${MAX_ENDPOINTS_PER_TENANT} endpoints per tenant.`,
        body: z.strictObject({ url: webhookUrlSchema, eventTypes: eventTypesSchema }),
        response: {
          201: createdEndpointSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR: invalid URL or event types', 409: `CONFLICT: the tenant already has ${MAX_ENDPOINTS_PER_TENANT} endpoints`, ...CHANGE_ERRORS }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      return reply.code(201).send(await createEndpoint(db, context, tenantId, request.body, actor, clock()));
    },
  );

  typed.get(
    '/webhooks/:id',
    { schema: { ...common, operationId: 'getWebhook', summary: 'Get a webhook endpoint', params: endpointIdParams, response: { 200: webhookEndpointSchema, ...problemResponses({ 400: 'VALIDATION_ERROR', 404: NOT_FOUND, ...AUTH_ERRORS }) } } },
    async (request) => getEndpoint(db, requirePartner(request).tenantId, request.params.id),
  );

  typed.put(
    '/webhooks/:id',
    {
      config: { freshAuthentication: true },
      schema: {
        ...common,
        operationId: 'updateWebhook',
        summary: "Change a webhook endpoint's URL and/or event types",
        description: `Either or both; deliveries not yet sent go to the new URL. URL: ${URL_RULES}.`,
        params: endpointIdParams,
        body: z.strictObject({ url: webhookUrlSchema.optional(), eventTypes: eventTypesSchema.optional() }),
        response: { 200: webhookEndpointSchema, ...problemResponses({ 400: 'VALIDATION_ERROR: neither field, invalid URL or event types', 404: NOT_FOUND, ...CHANGE_ERRORS }) },
      },
    },
    async (request) => {
      const { tenantId, actor } = requirePartner(request);
      if (request.body.url === undefined && request.body.eventTypes === undefined) {
        throw new ValidationError('Send url, eventTypes or both.', [{ path: 'body', message: 'must contain url and/or eventTypes' }]);
      }
      return updateEndpoint(db, context, tenantId, request.params.id, request.body, actor, clock());
    },
  );

  typed.delete(
    '/webhooks/:id',
    {
      config: { freshAuthentication: true },
      schema: {
        ...common,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        description: 'Deletes it with its delivery history; deliveries not yet sent are dropped. To pause instead, deactivate it.',
        params: endpointIdParams,
        response: { 204: z.null().describe('Deleted'), ...problemResponses({ 400: 'VALIDATION_ERROR', 404: NOT_FOUND, ...CHANGE_ERRORS }) },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      await deleteEndpoint(db, tenantId, request.params.id, actor, clock());
      return reply.code(204).send(null);
    },
  );

  for (const [action, isActive] of [['deactivate', false], ['activate', true]] as const) {
    typed.post(
      `/webhooks/:id/${action}`,
      {
        schema: {
          ...common,
          operationId: isActive ? 'activateWebhook' : 'deactivateWebhook',
          summary: isActive ? 'Resume deliveries to a webhook endpoint' : 'Pause deliveries to a webhook endpoint',
          description: isActive
            ? 'Deliveries that waited while it was paused go out now; new events reach it again.'
            : 'New events are not delivered to it; deliveries already queued wait, and go out if it is activated again. Idempotent.',
          params: endpointIdParams,
          response: { 204: z.null().describe(isActive ? 'Active' : 'Paused'), ...problemResponses({ 400: 'VALIDATION_ERROR', 404: NOT_FOUND, ...AUTH_ERRORS }) },
        },
      },
      async (request, reply) => {
        const { tenantId, actor } = requirePartner(request);
        await setEndpointActive(db, tenantId, request.params.id, isActive, actor, clock());
        return reply.code(204).send(null);
      },
    );
  }

  typed.post(
    '/webhooks/:id/rotate-secret',
    {
      config: { freshAuthentication: true },
      schema: {
        ...common,
        operationId: 'rotateWebhookSecret',
        summary: "Replace a webhook endpoint's signing secret",
        description: `The new secret is returned only now. ${ROTATE_SECRET_DESCRIPTION('X-Service-Signature')}`,
        params: endpointIdParams,
        body: rotateSecretBodySchema,
        response: { 200: rotatedSecretSchema, ...problemResponses({ 400: 'VALIDATION_ERROR: previousSecretValidSeconds not an integer from 0 to 604800', 404: NOT_FOUND, ...CHANGE_ERRORS }) },
      },
    },
    async (request) => {
      const { tenantId, actor } = requirePartner(request);
      return rotateEndpointSecret(db, context, tenantId, request.params.id, { previousSecretValidSeconds: request.body?.previousSecretValidSeconds }, actor, clock());
    },
  );

  typed.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        ...common,
        operationId: 'listWebhookDeliveries',
        summary: "List a webhook endpoint's deliveries",
        description: 'Newest first. Filters: succeeded (true/false), eventType.',
        params: endpointIdParams,
        querystring: deliveryListQuery,
        response: { 200: deliveryPageSchema, ...problemResponses({ 400: 'VALIDATION_ERROR', 404: NOT_FOUND, ...AUTH_ERRORS }) },
      },
    },
    async (request) => listDeliveries(db, requirePartner(request).tenantId, request.params.id, request.query),
  );

  typed.post(
    '/webhooks/:id/test',
    {
      schema: {
        ...common,
        operationId: 'sendWebhookTest',
        summary: 'Send a signed test ping',
        description: `Queues one ${TEST_EVENT_TYPE} delivery (one attempt, whatever the endpoint subscribes to), signed like every event; see its outcome in the deliveries list.`,
        params: endpointIdParams,
        response: { 202: deliveryRecordSchema, ...problemResponses({ 400: 'VALIDATION_ERROR', 404: NOT_FOUND, 409: INACTIVE, ...AUTH_ERRORS }) },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      return reply.code(202).send(await sendTestPing(db, tenantId, request.params.id, actor, clock()));
    },
  );

  typed.post(
    '/webhooks/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        ...common,
        operationId: 'retryWebhookDelivery',
        summary: 'Send a finished delivery once more',
        description: 'The same delivery (same id and body, so receivers can dedupe) gets one more attempt now, signed afresh.',
        params: deliveryIdParams,
        response: {
          202: deliveryRecordSchema,
          ...problemResponses({ 400: 'VALIDATION_ERROR', 404: 'NOT_FOUND: no such endpoint or delivery for this tenant', 409: `${INACTIVE}, or the delivery is still scheduled or being sent`, ...AUTH_ERRORS }),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      return reply.code(202).send(await retryDelivery(db, tenantId, request.params.id, request.params.deliveryId, actor, clock()));
    },
  );

  typed.post(
    '/webhooks/:id/recover',
    {
      schema: {
        ...common,
        operationId: 'recoverWebhookDeliveries',
        summary: 'Queue again every failed delivery of a window',
        description: 'After an outage on your side: deliveries created in [since, until] whose attempts all failed get one more attempt each, now.',
        params: endpointIdParams,
        body: recoverBodySchema,
        response: { 202: recoveredSchema, ...problemResponses({ 400: 'VALIDATION_ERROR: bad timestamps, or since after until', 404: NOT_FOUND, 409: INACTIVE, ...AUTH_ERRORS }) },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = requirePartner(request);
      const now = clock();
      const since = new Date(request.body.since);
      const until = request.body.until === undefined ? now : new Date(request.body.until);
      if (since > until) throw new ValidationError('since must not be after until.', [{ path: 'body.since', message: 'must not be after until' }]);
      return reply.code(202).send(await recoverDeliveries(db, tenantId, request.params.id, { since, until }, actor, now));
    },
  );
};
