import { problemResponses } from '@svc/problem-json';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { clientEmailSchema, clientNameSchema, createApiClient, deactivateClient, planSchema, rotateClientSecret, setClientEmail, setClientPlan } from '../domain/clients/api-clients.js';
import type { FxExecutor } from '../db/executor.js';
import { requireAdminToken } from '../plugins/admin-auth.js';

export interface AdminClientRouteOptions {
  db: FxExecutor;
  clock: () => Date;
  adminToken: string;
}

const security = [{ adminToken: [] }];
const tags = ['admin'];
const keysSchema = z.object({ id: z.uuid(), publicKey: z.string(), privateKey: z.string().meta({ description: 'svc_prv_…, shown only in this response' }) });
const clientSchema = z.object({ id: z.uuid(), name: z.string(), plan: planSchema, email: z.string().nullable().meta({ description: 'Contact address for notices such as a disabled rate alert' }), publicKey: z.string(), isActive: z.boolean(), createdUtc: z.string(), lastUsedUtc: z.string().nullable() });
const idParams = z.object({ id: z.uuid({ error: 'must be a client id (UUID)' }) });

/** The operator CLI's client commands as HTTP, behind X-Admin-Token. */
export const adminClientRoutes: FastifyPluginAsync<AdminClientRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  app.addHook('onRequest', requireAdminToken(options.adminToken));

  typed.post(
    '/api/v1/admin/clients',
    {
      schema: {
        operationId: 'createApiClient',
        summary: 'Create an API-key client (the private key is shown once)',
        tags,
        security,
        body: z.strictObject({ name: clientNameSchema, plan: planSchema, email: z.string().trim().pipe(clientEmailSchema).optional() }),
        response: { 201: keysSchema, ...problemResponses({ 400: 'Invalid name, plan or email', 401: 'Missing or wrong X-Admin-Token' }) },
      },
    },
    async (request, reply) => reply.code(201).send(await options.db.transaction((tx) => createApiClient(tx, request.body, options.clock()))),
  );

  typed.post(
    '/api/v1/admin/clients/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateApiClientSecret',
        summary: 'Issue a new private key; the old one stops working at once',
        tags,
        security,
        params: idParams,
        response: { 200: keysSchema, ...problemResponses({ 400: 'The id is not a UUID', 401: 'Missing or wrong X-Admin-Token', 404: 'Unknown client' }) },
      },
    },
    async (request) => rotateClientSecret(options.db, request.params.id),
  );

  typed.post(
    '/api/v1/admin/clients/:id/deactivate',
    {
      schema: { operationId: 'deactivateApiClient', summary: 'Deactivate a client: its keys get 401', tags, security, params: idParams, response: { 200: clientSchema, ...problemResponses({ 400: 'The id is not a UUID', 401: 'Missing or wrong X-Admin-Token', 404: 'Unknown client' }) } },
    },
    async (request) => deactivateClient(options.db, request.params.id),
  );

  typed.put(
    '/api/v1/admin/clients/:id/plan',
    {
      schema: {
        operationId: 'changeApiClientPlan',
        summary: 'Move a client to another plan (limits apply from the next request; the month’s usage is kept)',
        tags,
        security,
        params: idParams,
        body: z.strictObject({ plan: planSchema }),
        response: { 200: clientSchema, ...problemResponses({ 400: 'Unknown plan, or an id that is not a UUID', 401: 'Missing or wrong X-Admin-Token', 404: 'Unknown client' }) },
      },
    },
    async (request) => setClientPlan(options.db, request.params.id, request.body.plan),
  );
  typed.put(
    '/api/v1/admin/clients/:id/email',
    {
      schema: {
        operationId: 'changeApiClientEmail',
        summary: 'Set the client’s contact address (null removes it)',
        tags,
        security,
        params: idParams,
        body: z.strictObject({ email: z.string().trim().pipe(clientEmailSchema).nullable() }),
        response: { 200: clientSchema, ...problemResponses({ 400: 'Not an email address, or an id that is not a UUID', 401: 'Missing or wrong X-Admin-Token', 404: 'Unknown client' }) },
      },
    },
    async (request) => setClientEmail(options.db, request.params.id, request.body.email),
  );
};
