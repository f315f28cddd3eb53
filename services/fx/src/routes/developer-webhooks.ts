import { createGuardedDispatcher } from '@svc/outbound-http';
import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FxExecutor } from '../db/executor.js';
import { ATTEMPT_LOG_SIZE, listAttempts } from '../domain/alerts/delivery-attempts.js';
import { alertFieldsSchema, createRateAlert, deleteRateAlert, getRateAlert, listRateAlerts, updateRateAlert, type AlertContext } from '../domain/alerts/rate-alerts.js';
import { sendTestDelivery } from '../domain/alerts/test-delivery.js';
import type { DeveloperAccount } from '../domain/developers/developer-accounts.js';
import { ownClient } from '../domain/developers/developer-clients.js';
import { ALERT_USER_AGENT } from '../workers/alert-delivery-worker.js';
import { signingSecret, webhookSchema } from './client.js';

export interface DeveloperWebhookRouteOptions extends AlertContext {
  db: FxExecutor;
  clock: () => Date;
  /** The signed-in account of a request (401 otherwise), as the dashboard's other routes resolve it. */
  account: (request: FastifyRequest) => Promise<DeveloperAccount>;
  /** ALERT_DELIVERY_TIMEOUT_MS: a test send gets the time a firing gets. */
  timeoutMs: number;
}

const tags = ['developer'];
const security = [{ developerSession: [] }];
const clientParams = z.object({ id: z.uuid({ error: 'must be a client id (UUID)' }) });
const webhookParams = clientParams.extend({ webhookId: z.uuid({ error: 'must be a webhook id (UUID)' }) });
const notFound = "Not one of the account's clients, or not one of the client's webhooks";
const attemptSchema = z.object({
  attemptedUtc: z.string(),
  kind: z.enum(['alert', 'test']).meta({ description: "alert: an attempt of a firing; test: a dashboard's Send test" }),
  statusCode: z.int().meta({ description: 'HTTP status; 0 when no answer arrived (connection failed, timed out, target refused)' }),
  latencyMs: z.int().nullable(),
  error: z.string().nullable(),
});

/**
 * The rate-alert webhooks of the account's clients, for the dashboard: the client API's own webhook
 * domain (validation, SSRF guard, plan allowance, signing) behind a session instead of a key, plus the
 * delivery log, a test send and re-enabling. A client of another account is a 404, as if it did not exist.
 */
export const developerWebhookRoutes: FastifyPluginAsync<DeveloperWebhookRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const clientOf = async (request: FastifyRequest, clientId: string) => ownClient(options.db, (await options.account(request)).id, clientId);
  let dispatcher: ReturnType<typeof createGuardedDispatcher> | undefined;
  const testContext = {
    ...options,
    userAgent: ALERT_USER_AGENT,
    dispatcher: () => (dispatcher ??= createGuardedDispatcher(options.policy, { connectTimeoutMs: options.timeoutMs })),
  };
  app.addHook('onClose', async () => {
    if (dispatcher) await (await dispatcher).close();
  });
  const base = '/api/v1/developer/clients/:id/webhooks';

  typed.get(
    base,
    {
      schema: {
        operationId: 'developerListWebhooks',
        summary: "A client's rate-alert webhooks with their delivery health (lastDeliveryStatusCode, consecutiveFailures, isActive)",
        tags,
        security,
        params: clientParams,
        response: { 200: z.object({ webhooks: z.array(webhookSchema) }), ...problemResponses({ 400: 'The id is not a UUID', 401: 'Not signed in', 404: notFound }) },
      },
    },
    async (request) => ({ webhooks: await listRateAlerts(options.db, await clientOf(request, request.params.id)) }),
  );

  typed.post(
    base,
    {
      schema: {
        operationId: 'developerCreateWebhook',
        summary: 'Create a rate-alert webhook for one of the account’s clients (the signing secret is shown once, here)',
        description: 'The same rules as POST /api/v1/client/webhooks: a public https:// URL, the fields’ bounds, the plan’s webhook allowance.',
        tags,
        security,
        params: clientParams,
        body: alertFieldsSchema.strict(),
        response: {
          201: webhookSchema.extend({ signingSecret }),
          ...problemResponses({ 400: 'Invalid field, or a webhookUrl that is not a public https:// URL', 401: 'Not signed in', 403: 'The plan’s webhook allowance is used up, or a cross-site request', 404: notFound }),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await createRateAlert(options.db, options, await clientOf(request, request.params.id), request.body, options.clock())),
  );

  typed.patch(
    `${base}/:webhookId`,
    {
      schema: {
        operationId: 'developerUpdateWebhook',
        summary: 'Edit a webhook: any subset of the creatable fields (what PUT /api/v1/client/webhooks/{id} takes)',
        tags,
        security,
        params: webhookParams,
        body: alertFieldsSchema.partial().strict(),
        response: { 200: webhookSchema, ...problemResponses({ 400: 'Invalid field', 401: 'Not signed in', 403: 'Cross-site request', 404: notFound }) },
      },
    },
    async (request) => updateRateAlert(options.db, options, await clientOf(request, request.params.id), request.params.webhookId, request.body, options.clock()),
  );

  typed.delete(
    `${base}/:webhookId`,
    {
      schema: {
        operationId: 'developerDeleteWebhook',
        summary: 'Delete a webhook (deliveries not yet sent are cancelled, its delivery log goes with it)',
        tags,
        security,
        params: webhookParams,
        response: { 204: z.null(), ...problemResponses({ 400: 'An id is not a UUID', 401: 'Not signed in', 403: 'Cross-site request', 404: notFound }) },
      },
    },
    async (request, reply) => {
      await deleteRateAlert(options.db, await clientOf(request, request.params.id), request.params.webhookId, options.clock());
      return reply.code(204).send(null);
    },
  );

  typed.get(
    `${base}/:webhookId/deliveries`,
    {
      schema: {
        operationId: 'developerWebhookDeliveries',
        summary: `The webhook's last ${ATTEMPT_LOG_SIZE} delivery attempts, newest first (time, status, latency, error)`,
        tags,
        security,
        params: webhookParams,
        response: { 200: z.object({ attempts: z.array(attemptSchema) }), ...problemResponses({ 400: 'An id is not a UUID', 401: 'Not signed in', 404: notFound }) },
      },
    },
    async (request) => {
      const alert = await getRateAlert(options.db, await clientOf(request, request.params.id), request.params.webhookId);
      return { attempts: await listAttempts(options.db, alert.id) };
    },
  );

  typed.post(
    `${base}/:webhookId/test`,
    {
      schema: {
        operationId: 'developerTestWebhook',
        summary: 'Send a signed test delivery now (event rate_alert.test), once, and answer what the receiver said',
        description: 'Signed as a firing is, through the same SSRF guard; logged as kind test. It does not change the webhook’s health (consecutiveFailures, lastDeliveryStatusCode, isActive), and works on a disabled webhook.',
        tags,
        security,
        params: webhookParams,
        response: {
          200: z.object({ succeeded: z.boolean().meta({ description: 'The receiver answered 2xx' }), statusCode: z.int(), latencyMs: z.int(), error: z.string().nullable() }),
          ...problemResponses({ 400: 'An id is not a UUID', 401: 'Not signed in', 403: 'Cross-site request', 404: notFound }),
        },
      },
    },
    async (request) => sendTestDelivery(options.db, testContext, await clientOf(request, request.params.id), request.params.webhookId, options.clock()),
  );

  typed.post(
    `${base}/:webhookId/enable`,
    {
      schema: {
        operationId: 'developerEnableWebhook',
        summary: 'Re-enable a webhook (disabled after 10 failed firings, or by hand): resets consecutiveFailures and re-arms it against the current rate',
        tags,
        security,
        params: webhookParams,
        response: { 200: webhookSchema, ...problemResponses({ 400: 'An id is not a UUID', 401: 'Not signed in', 403: 'Cross-site request', 404: notFound }) },
      },
    },
    async (request) => updateRateAlert(options.db, options, await clientOf(request, request.params.id), request.params.webhookId, { isActive: true }, options.clock()),
  );
};
