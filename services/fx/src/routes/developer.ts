import { ForbiddenError, problemResponses, UnauthenticatedError } from '@svc/problem-json';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { FxExecutor } from '../db/executor.js';
import { clientNameSchema, PLAN_NAMES, planSchema, type PlanName } from '../domain/clients/api-clients.js';
import { accountOfSession, endSession, SESSION_DAYS, signIn, signUp, verifyAddress, type DeveloperAccount } from '../domain/developers/developer-accounts.js';
import { CLIENTS_PER_PLAN, createDeveloperClient, listDeveloperClients, rotateDeveloperClientKey, updateDeveloperClient } from '../domain/developers/developer-clients.js';
import type { FxMailer } from '../domain/mail/fx-mailer.js';
import { RATE_LANGUAGES } from '../i18n/language-list.js';
import { accountUsage, type DailyUsage, type MonthWindow } from '../domain/developers/developer-usage.js';
import type { LimitsConfiguration } from '../domain/limits/plans.js';
import { tooManyRequestsSchema } from './openapi.js';
import type { AlertContext } from '../domain/alerts/rate-alerts.js';
import { developerPasswordResetRoutes } from './developer-password-reset.js';
import { developerWebhookRoutes } from './developer-webhooks.js';

export interface DeveloperRouteOptions {
  /** What rate alerts need (secret box, SSRF policy, plan allowances) and a test send's time limit. */
  alerts: AlertContext & { timeoutMs: number };
  db: FxExecutor;
  clock: () => Date;
  mailer: FxMailer;
  /** PUBLIC_BASE_URL: the origin the dashboard is served at; a state-changing request from elsewhere is refused. */
  publicBaseUrl: string;
  /** FX_SIGNUP: closed leaves accounts to the operator. */
  signup: 'open' | 'closed';
  /** FX_KEY_ROTATION_GRACE_SECONDS: how long a replaced private key keeps working. */
  keyRotationGraceSeconds: number;
  usage: { daily: DailyUsage; limits: LimitsConfiguration; monthWindow: (client: { id: string; plan: string }) => Promise<MonthWindow> };
}

export const DEVELOPER_SESSION_COOKIE = 'fx_developer_session';
const tags = ['developer'];
const security = [{ developerSession: [] }];
/** Routes that need no session (sign-up, the mailed link, sign-in, sign-out). */
const anonymous: never[] = [];
const accepted = z.object({ message: z.string() });
const meSchema = z.object({ email: z.string(), emailVerified: z.boolean(), plan: planSchema, language: z.enum(RATE_LANGUAGES) });
const clientSchema = z.object({ id: z.uuid(), name: z.string(), plan: planSchema, publicKey: z.string(), isActive: z.boolean(), createdUtc: z.string(), lastUsedUtc: z.string().nullable() });
const newClientSchema = z.object({ id: z.uuid(), name: z.string(), plan: planSchema, publicKey: z.string(), privateKey: z.string().meta({ description: 'svc_prv_…, shown only in this response' }) });
const verifiedSchema = meSchema.extend({
  client: newClientSchema.optional().meta({ description: "The account's first (Free) client, made when the address is confirmed; its private key is shown only here" }),
});
const usageSchema = z.object({
  monthToDate: z.number().int().meta({ description: "This month's counted requests over the account's clients, as the limiter counts them (the quota headers' figure)" }),
  monthlyQuota: z.number().int().nullable().meta({ description: "The clients' monthly quotas added up; null when a plan has none" }),
  resetUtc: z.string().meta({ description: 'When the monthly quota starts again: the first instant of next month, UTC' }),
  days: z.array(z.object({ date: z.string(), requests: z.number().int(), limited: z.number().int().meta({ description: 'Of them, refused with 429' }) })),
});
const clientIdParams = z.object({ id: z.uuid({ error: 'must be a client id (UUID)' }) });
const credentials = { email: z.string().max(1000), password: z.string().max(1000) };

const sessionOf = (request: FastifyRequest) => /(?:^|;\s*)fx_developer_session=([A-Za-z0-9_]+)/.exec(request.headers.cookie ?? '')?.[1];

/**
 * The developer dashboard's API (/developers): cookie sessions, HttpOnly and SameSite=Lax, Secure unless
 * the dashboard is served over plain HTTP (the embedded default). Every state-changing route refuses a
 * request a browser marks cross-site or whose Origin is not the dashboard's (403), and takes JSON only,
 * which a cross-site form cannot send.
 */
export const developerRoutes: FastifyPluginAsync<DeveloperRouteOptions> = async (app, options) => {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const publicOrigin = new URL(options.publicBaseUrl).origin;
  const secure = publicOrigin.startsWith('https:');
  const setSession = (reply: FastifyReply, token: string, maxAgeSeconds: number) =>
    reply.header('set-cookie', `${DEVELOPER_SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`);

  app.addHook('onRequest', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    const ownOrigin = `${request.protocol}://${request.host}`;
    if ((site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && origin !== publicOrigin && origin !== ownOrigin)) {
      throw new ForbiddenError('Cross-site requests to the developer dashboard are refused.');
    }
  });
  const account = async (request: FastifyRequest): Promise<DeveloperAccount> => {
    const token = sessionOf(request);
    const found = token ? await accountOfSession(options.db, token, options.clock()) : null;
    if (!found) throw new UnauthenticatedError('Sign in to the developer dashboard.');
    return found;
  };

  // Registered here so the cross-site check above covers its state changes too.
  await app.register(developerWebhookRoutes, { ...options.alerts, db: options.db, clock: options.clock, account });
  await app.register(developerPasswordResetRoutes, { db: options.db, clock: options.clock, mailer: options.mailer });

  typed.post(
    '/api/v1/developer/signup',
    {
      schema: {
        operationId: 'developerSignUp',
        security: anonymous,
        summary: 'Sign up; the same 202 whether or not the address has an account (it is mailed either way)',
        tags,
        body: z.strictObject({ ...credentials, language: z.enum(RATE_LANGUAGES).optional() }),
        response: { 202: accepted, ...problemResponses({ 400: 'Not an email address, or a password outside the rules (12 to 256 characters, not a common one)', 403: 'Sign-up is closed (FX_SIGNUP=closed)' }) },
      },
    },
    async (request, reply) => {
      if (options.signup === 'closed') throw new ForbiddenError('Sign-up is closed: accounts are made by the operator.');
      const language = request.body.language ?? options.mailer.languageOf(request.headers['accept-language']);
      await options.db.transaction((tx) => signUp(tx, options.mailer, { email: request.body.email, password: request.body.password, language }, options.clock()));
      return reply.code(202).send({ message: 'Check your mailbox: a link to confirm the address is on its way.' });
    },
  );

  typed.post(
    '/api/v1/developer/verify',
    {
      schema: {
        operationId: 'developerVerify',
        security: anonymous,
        summary: 'Confirm the address with the mailed token; signs in (session cookie)',
        tags,
        body: z.strictObject({ token: z.string().min(1).max(200) }),
        response: { 200: verifiedSchema, ...problemResponses({ 400: 'No token', 404: 'Unknown token', 410: 'The link was used or has expired' }) },
      },
    },
    async (request, reply) => {
      const { account: verified, session, client } = await options.db.transaction(async (tx) => {
        const now = options.clock();
        const done = await verifyAddress(tx, request.body.token, now);
        // A verified account holds a key at once: the first Free client, whose private key this answer shows once.
        const first = (await listDeveloperClients(tx, done.account.id)).length === 0 ? await createDeveloperClient(tx, done.account, 'My first key', now) : undefined;
        return { ...done, client: first };
      });
      setSession(reply, session, SESSION_DAYS * 86_400);
      return { ...me(verified), ...(client ? { client } : {}) };
    },
  );

  typed.post(
    '/api/v1/developer/login',
    {
      schema: {
        operationId: 'developerLogin',
        security: anonymous,
        summary: 'Sign in (session cookie); 5 failures within 15 minutes lock the account for 15 minutes',
        tags,
        body: z.strictObject(credentials),
        response: { 200: meSchema, ...problemResponses({ 400: 'Malformed body', 401: 'Wrong address or password', 403: 'The address is not confirmed yet', 429: 'Locked after repeated failures' }) },
      },
    },
    async (request, reply) => {
      const { account: signedIn, session } = await signIn(options.db, request.body, options.clock());
      setSession(reply, session, SESSION_DAYS * 86_400);
      return me(signedIn);
    },
  );

  typed.post(
    '/api/v1/developer/logout',
    { schema: { operationId: 'developerLogout', summary: 'Sign out: the session ends on the server and the cookie is cleared', tags, security: anonymous, response: { 204: z.null(), ...problemResponses({ 403: 'Cross-site request' }) } } },
    async (request, reply) => {
      const token = sessionOf(request);
      if (token) await endSession(options.db, token);
      setSession(reply, '', 0);
      return reply.code(204).send(null);
    },
  );

  typed.get(
    '/api/v1/developer/config',
    {
      schema: {
        operationId: 'developerConfig',
        summary: 'What the dashboard needs before anyone signs in: whether sign-up is open, and how many clients each plan may hold',
        tags,
        security: anonymous,
        response: {
          200: z.object({
            signup: z.enum(['open', 'closed']).meta({ description: 'closed: accounts are made by the operator (FX_SIGNUP)' }),
            clientsPerPlan: z.object(Object.fromEntries(PLAN_NAMES.map((plan) => [plan, z.number().int()])) as Record<PlanName, z.ZodNumber>),
          }),
          429: tooManyRequestsSchema,
        },
      },
    },
    () => ({ signup: options.signup, clientsPerPlan: CLIENTS_PER_PLAN }),
  );

  typed.get(
    '/api/v1/developer/me',
    { schema: { operationId: 'developerMe', summary: 'The signed-in account', tags, security, response: { 200: meSchema, ...problemResponses({ 401: 'Not signed in' }) } } },
    async (request) => me(await account(request)),
  );

  typed.get(
    '/api/v1/developer/clients',
    {
      schema: { operationId: 'developerClients', summary: "The account's API clients (never their private keys)", tags, security, response: { 200: z.object({ clients: z.array(clientSchema) }), ...problemResponses({ 401: 'Not signed in' }) } },
    },
    async (request) => ({ clients: await listDeveloperClients(options.db, (await account(request)).id) }),
  );

  typed.post(
    '/api/v1/developer/clients',
    {
      schema: {
        operationId: 'developerCreateClient',
        summary: 'Create an API client on the account’s plan (the private key is shown once, here)',
        tags,
        security,
        body: z.strictObject({ name: clientNameSchema }),
        response: { 201: newClientSchema, ...problemResponses({ 400: 'Invalid name', 401: 'Not signed in', 403: 'Address not confirmed, the plan’s client limit reached, or a cross-site request' }) },
      },
    },
    async (request, reply) => {
      const owner = await account(request);
      return reply.code(201).send(await options.db.transaction((tx) => createDeveloperClient(tx, owner, request.body.name, options.clock())));
    },
  );
  typed.get(
    '/api/v1/developer/usage',
    {
      schema: {
        operationId: 'developerUsage',
        summary: "Requests over all the account's clients: this month against the quota, and per UTC day (with 429s) for the last `days` days",
        tags,
        security,
        querystring: z.strictObject({ days: z.coerce.number().int().min(1).max(90).default(30) }),
        response: { 200: usageSchema, ...problemResponses({ 400: 'days outside 1 to 90', 401: 'Not signed in' }) },
      },
    },
    async (request) => {
      const owner = await account(request);
      // This instance's pending counts go first, so a figure includes the caller's own latest requests.
      await options.usage.daily.batcher.flush();
      const planQuota = options.usage.limits.plans.find((plan) => plan.name === owner.plan)?.monthlyQuota ?? null;
      return accountUsage(options.db, owner.id, { days: request.query.days, now: options.clock(), planQuota, monthWindow: options.usage.monthWindow });
    },
  );

  typed.patch(
    '/api/v1/developer/clients/:id',
    {
      schema: {
        operationId: 'developerUpdateClient',
        summary: "Rename one of the account's clients, or deactivate it (isActive: false; its keys then get 401, for good)",
        tags,
        security,
        params: clientIdParams,
        body: z.strictObject({ name: clientNameSchema.optional(), isActive: z.literal(false).optional() }),
        response: { 200: clientSchema, ...problemResponses({ 400: 'Invalid id, name or change', 401: 'Not signed in', 403: 'Cross-site request', 404: "Not one of the account's clients" }) },
      },
    },
    async (request) => updateDeveloperClient(options.db, (await account(request)).id, request.params.id, request.body),
  );

  typed.post(
    '/api/v1/developer/clients/:id/rotate',
    {
      schema: {
        operationId: 'developerRotateClientKey',
        summary: "Issue a new private key for one of the account's clients (shown once, here); the old one keeps working for a grace period",
        description: `The public key stays. The replaced private key keeps authenticating until previousKeyExpiresUtc (FX_KEY_ROTATION_GRACE_SECONDS, a day by default), then gets 401; a second rotation within that time ends the first old key at once. The account is mailed.`,
        tags,
        security,
        params: clientIdParams,
        response: {
          200: newClientSchema.pick({ id: true, publicKey: true, privateKey: true }).extend({
            previousKeyExpiresUtc: z.string().nullable().meta({ description: 'Until when the replaced private key still works (ISO 8601, UTC); null when it stopped at once' }),
          }),
          ...problemResponses({ 400: 'The id is not a UUID', 401: 'Not signed in', 403: 'Cross-site request', 404: "Not one of the account's clients", 409: 'The client is deactivated' }),
        },
      },
    },
    async (request) => {
      const owner = await account(request);
      return options.db.transaction((tx) => rotateDeveloperClientKey(tx, options.mailer, owner, request.params.id, { graceSeconds: options.keyRotationGraceSeconds, now: options.clock() }));
    },
  );
};

function me(account: DeveloperAccount) {
  const language = (RATE_LANGUAGES as readonly string[]).includes(account.language) ? (account.language as (typeof RATE_LANGUAGES)[number]) : 'ar';
  return { email: account.email, emailVerified: account.emailVerifiedUtc !== null, plan: account.plan, language };
}
