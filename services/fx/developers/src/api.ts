/** The dashboard's calls to fx's developer API (cookie session, same origin); shapes from the generated client. */
import type { operations } from '@svc/fx-client/types';

type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type Answer<Operation extends keyof operations, Status extends keyof operations[Operation]['responses']> = JsonOf<operations[Operation]['responses'][Status]>;

export type Me = Answer<'developerMe', 200>;
export type DeveloperClient = Answer<'developerClients', 200>['clients'][number];
export type NewClient = Answer<'developerCreateClient', 201>;
export type Verified = Answer<'developerVerify', 200>;
export type Usage = Answer<'developerUsage', 200>;
export type DashboardConfig = Answer<'developerConfig', 200>;
export type Pricing = Answer<'getPricing', 200>;
export type PlanName = Me['plan'];
export type RotatedKey = Answer<'developerRotateClientKey', 200>;
export type Webhook = Answer<'developerListWebhooks', 200>['webhooks'][number];
export type NewWebhook = Answer<'developerCreateWebhook', 201>;
export type WebhookFields = NonNullable<operations['developerCreateWebhook']['requestBody']>['content']['application/json'];
export type DeliveryAttempt = Answer<'developerWebhookDeliveries', 200>['attempts'][number];
export type TestResult = Answer<'developerTestWebhook', 200>;
export type ResetRequested = Answer<'developerForgotPassword', 202>;

/**
 * A refused call: its status and the problem+json detail, shown when the screen has no message of its own for it;
 * the problem's code where a screen words each cause itself (a spent or expired link), and its retryAfter in seconds (429).
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code?: string,
    readonly retryAfter?: number,
  ) {
    super(detail);
  }
}

const memberOf = (body: unknown, name: string): unknown => (body && typeof body === 'object' && name in body ? (body as Record<string, unknown>)[name] : undefined);

async function call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    // JSON bodies only: the API refuses anything else, which is part of what keeps a cross-site form out.
    response = await fetch(path, { method, cache: 'no-store', credentials: 'same-origin', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  } catch {
    throw new ApiProblem(0, 'network');
  }
  if (response.status === 204) return undefined as T;
  const answer = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) {
    const detail = memberOf(answer, 'detail');
    const code = memberOf(answer, 'code');
    const retryAfter = memberOf(answer, 'retryAfter');
    throw new ApiProblem(response.status, typeof detail === 'string' ? detail : response.statusText, typeof code === 'string' ? code : undefined, typeof retryAfter === 'number' ? retryAfter : undefined);
  }
  return answer as T;
}

const base = '/api/v1/developer';
const webhooksOf = (clientId: string) => `${base}/clients/${encodeURIComponent(clientId)}/webhooks`;
const webhookOf = (clientId: string, id: string) => `${webhooksOf(clientId)}/${encodeURIComponent(id)}`;

export const api = {
  config: () => call<DashboardConfig>('GET', `${base}/config`),
  signUp: (body: { email: string; password: string; language: Me['language'] }) => call<{ message: string }>('POST', `${base}/signup`, body),
  verify: (token: string) => call<Verified>('POST', `${base}/verify`, { token }),
  signIn: (body: { email: string; password: string }) => call<Me>('POST', `${base}/login`, body),
  signOut: () => call<undefined>('POST', `${base}/logout`),
  forgotPassword: (email: string) => call<ResetRequested>('POST', `${base}/password/forgot`, { email }),
  resetPassword: (token: string, password: string) => call<undefined>('POST', `${base}/password/reset`, { token, password }),
  me: () => call<Me>('GET', `${base}/me`),
  clients: () => call<{ clients: DeveloperClient[] }>('GET', `${base}/clients`),
  createClient: (name: string) => call<NewClient>('POST', `${base}/clients`, { name }),
  updateClient: (id: string, change: { name?: string; isActive?: false }) => call<DeveloperClient>('PATCH', `${base}/clients/${encodeURIComponent(id)}`, change),
  rotateKey: (id: string) => call<RotatedKey>('POST', `${base}/clients/${encodeURIComponent(id)}/rotate`),
  webhooks: (clientId: string) => call<{ webhooks: Webhook[] }>('GET', webhooksOf(clientId)),
  createWebhook: (clientId: string, fields: WebhookFields) => call<NewWebhook>('POST', webhooksOf(clientId), fields),
  updateWebhook: (clientId: string, id: string, fields: Partial<WebhookFields>) => call<Webhook>('PATCH', webhookOf(clientId, id), fields),
  deleteWebhook: (clientId: string, id: string) => call<undefined>('DELETE', webhookOf(clientId, id)),
  deliveries: (clientId: string, id: string) => call<{ attempts: DeliveryAttempt[] }>('GET', `${webhookOf(clientId, id)}/deliveries`),
  testWebhook: (clientId: string, id: string) => call<TestResult>('POST', `${webhookOf(clientId, id)}/test`),
  enableWebhook: (clientId: string, id: string) => call<Webhook>('POST', `${webhookOf(clientId, id)}/enable`),
  usage: (days: number) => call<Usage>('GET', `${base}/usage?days=${days}`),
  pricing: () => call<Pricing>('GET', '/api/v1/pricing'),
};
