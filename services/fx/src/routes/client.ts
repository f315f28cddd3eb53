import { problemResponses, UnauthenticatedError } from '@svc/problem-json';
import { ROTATE_SECRET_DESCRIPTION, rotateSecretBodySchema, signingSecretSchema } from '@svc/service-kit';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { alertFieldsSchema, createRateAlert, deleteRateAlert, listRateAlerts, rotateAlertSecret, updateRateAlert, type AlertContext } from '../domain/alerts/rate-alerts.js';
import { clientProfile, INVALID_API_KEY, type ApiClient } from '../domain/clients/api-clients.js';
import type { FxExecutor } from '../db/executor.js';
import { tooManyRequestsSchema } from './openapi.js';
import { RATE_SOURCES } from '../domain/rates/rate-types.js';

export interface ClientRouteOptions extends AlertContext {
  db: FxExecutor;
  clock: () => Date;
}

const security = [{ apiKey: [], apiSecret: [] }];
const tooMany = tooManyRequestsSchema;

export const webhookSchema = z
  .object({
    id: z.uuid(),
    webhookUrl: z.string(),
    currency: z.string(),
    source: z.enum(RATE_SOURCES),
    alertType: z.int().meta({ description: '0 ABOVE, 1 BELOW, 2 CHANGE_INCREASE, 3 CHANGE_DECREASE' }),
    thresholdValue: z.number(),
    label: z.string().nullable(),
    isActive: z.boolean(),
    lastDeliveryStatusCode: z.int().nullable(),
    consecutiveFailures: z.int(),
    lastTriggeredUtc: z.string().nullable(),
    createdUtc: z.string(),
  })
  .meta({ id: 'RateAlertWebhook' });
export const signingSecret = signingSecretSchema('X-Service-Signature-256');
const idParams = z.object({ id: z.uuid({ error: 'must be a webhook id (UUID)' }) });

/** The hook guarantees a client on /client/*; this narrows the type. */
function clientOf(request: FastifyRequest): ApiClient {
  if (!request.apiClient) throw new UnauthenticatedError(INVALID_API_KEY);
  return request.apiClient;
}

export const clientRoutes: FastifyPluginAsync<ClientRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['client'];

  typed.get(
    '/api/v1/client/me',
    {
      schema: {
        operationId: 'getClientProfile',
        summary: 'The calling client’s profile',
        tags,
        security,
        response: {
          200: z.object({ id: z.uuid(), name: z.string(), publicKey: z.string(), isActive: z.boolean(), createdUtc: z.string(), lastUsedUtc: z.string(), webhookCount: z.int() }),
          ...problemResponses({ 401: 'Missing or invalid API key' }),
          429: tooMany,
        },
      },
    },
    async (request) => clientProfile(options.db, clientOf(request), options.clock()),
  );

  typed.get(
    '/api/v1/client/webhooks',
    { schema: { operationId: 'listClientWebhooks', summary: 'List the client’s rate-alert webhooks (without secrets)', tags, security, response: { 200: z.array(webhookSchema), ...problemResponses({ 401: 'Missing or invalid API key' }), 429: tooMany } } },
    async (request) => listRateAlerts(options.db, clientOf(request)),
  );

  typed.post(
    '/api/v1/client/webhooks',
    {
      schema: {
        operationId: 'createClientWebhook',
        summary: 'Create a rate-alert webhook',
        description:
          'The alert watches the mid rate of its currency and source (MARKET = effective market rate, CBS = official). ABOVE/BELOW fire when an update crosses the threshold (no repeat while the rate stays past it); CHANGE_INCREASE/DECREASE when the rate moved by the threshold percent from the rate at creation or at the last firing. The signingSecret is shown only in this response.',
        tags,
        security,
        body: alertFieldsSchema.strict(),
        response: {
          201: webhookSchema.extend({ signingSecret }),
          ...problemResponses({ 400: 'Invalid field, or a webhookUrl that is not a public https:// URL', 401: 'Missing or invalid API key', 403: 'The plan’s webhook allowance is used up' }),
          429: tooMany,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createRateAlert(options.db, options, clientOf(request), request.body, options.clock())),
  );

  typed.put(
    '/api/v1/client/webhooks/:id',
    {
      schema: {
        operationId: 'updateClientWebhook',
        summary: 'Update a webhook; isActive: true re-enables a disabled one',
        description: 'Any subset of the creatable fields plus isActive. isActive: true resets consecutiveFailures; changing what is watched, or re-enabling, re-arms the alert against the current rate.',
        tags,
        security,
        params: idParams,
        body: alertFieldsSchema.partial().extend({ isActive: z.boolean().optional() }).strict(),
        response: { 200: webhookSchema, ...problemResponses({ 400: 'Invalid field', 401: 'Missing or invalid API key', 404: 'No such webhook for this client' }), 429: tooMany },
      },
    },
    async (request) => updateRateAlert(options.db, options, clientOf(request), request.params.id, request.body, options.clock()),
  );

  typed.delete(
    '/api/v1/client/webhooks/:id',
    {
      schema: {
        operationId: 'deleteClientWebhook',
        summary: 'Delete a webhook (deliveries not yet sent are cancelled)',
        tags,
        security,
        params: idParams,
        response: { 204: z.null(), ...problemResponses({ 401: 'Missing or invalid API key', 404: 'No such webhook for this client' }), 429: tooMany },
      },
    },
    async (request, reply) => {
      await deleteRateAlert(options.db, clientOf(request), request.params.id, options.clock());
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/api/v1/client/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateClientWebhookSecret',
        summary: 'Replace the signing secret (the new one is shown once)',
        description: ROTATE_SECRET_DESCRIPTION('X-Service-Signature-256'),
        tags,
        security,
        params: idParams,
        body: rotateSecretBodySchema,
        response: {
          200: z.object({
            signingSecret,
            previousSecretExpiresUtc: z.string().optional().meta({ description: "ISO 8601, UTC. Only with a grace window: until then webhook-signature also carries the previous secret's signature" }),
          }),
          ...problemResponses({ 400: 'previousSecretValidSeconds not an integer from 0 to 604800', 401: 'Missing or invalid API key', 404: 'No such webhook for this client' }),
          429: tooMany,
        },
      },
    },
    async (request) =>
      rotateAlertSecret(options.db, options, clientOf(request), request.params.id, { previousSecretValidSeconds: request.body?.previousSecretValidSeconds, now: options.clock() }),
  );
};
