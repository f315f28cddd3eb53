/**
 * An identity API as a web app calls it: same origin, the HttpOnly session cookie only (no
 * token ever in the browser), JSON in and out, problem+json errors turned into ApiError. The
 * portal calls the partner API, the console the internal one: each app names its base once at start-up.
 */
let apiBase = '/api/partner/v1';

export function setApiBase(base: string): void {
  apiBase = base;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Query = Record<string, string | number | undefined>;

export interface FieldError {
  path: string;
  message: string;
}

interface ProblemBody {
  title?: string;
  detail?: string;
  code?: string;
  errors?: FieldError[];
}

/** A refused request: the problem's detail is what the user reads. */
export class ApiError extends Error {
  status: number;
  code: string | undefined;
  /** The problem's short title ("Forbidden"), when it has one. */
  title: string | undefined;
  detail: string;
  errors?: FieldError[];
  /** Seconds from a Retry-After header (429 ACCOUNT_LOCKED, rate limits), when the server sent one. */
  retryAfterSeconds: number | undefined;
  /** The problem document's own members beyond the standard ones (e.g. claimedBy of CASE_CLAIMED). */
  extensions: Record<string, unknown>;

  constructor(status: number, problem: ProblemBody, retryAfterSeconds?: number) {
    const detail = problem.detail ?? problem.title ?? `The server answered ${status}.`;
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = detail;
    if (problem.errors) this.errors = problem.errors;
    this.retryAfterSeconds = retryAfterSeconds;
    this.extensions = problem as Record<string, unknown>;
  }
}

/** `<api base><path>?<query>`, for <img src>, <video src> and <a href download>: the browser sends the cookie. */
export function apiUrl(path: string, query?: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return `${apiBase}${path}${text ? `?${text}` : ''}`;
}

type UnauthenticatedListener = () => void;
let onUnauthenticated: UnauthenticatedListener = () => undefined;

/** The session layer sends the user to sign in when any call answers 401; set once by the app. */
export function setUnauthenticatedListener(listener: UnauthenticatedListener) {
  onUnauthenticated = listener;
}

type ReauthenticationHandler = () => Promise<boolean>;
let onReauthenticationRequired: ReauthenticationHandler | undefined;

/**
 * A sensitive action answered 403 REAUTHENTICATION_REQUIRED: the app asks the person again (a
 * modal), and when they confirm it is them the same request is sent once more. Set by the dialog.
 */
export function setReauthenticationHandler(handler: ReauthenticationHandler | undefined) {
  onReauthenticationRequired = handler;
}

async function readProblem(response: Response): Promise<ProblemBody> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return { title: response.statusText };
  try {
    return (await response.json()) as ProblemBody;
  } catch {
    return { title: response.statusText };
  }
}

export interface ApiOptions {
  body?: unknown;
  query?: Query;
  /** Sign-in and the session probe handle their own 401 instead of redirecting. */
  quietUnauthenticated?: boolean;
  /** Set on the retry after re-authenticating: a second refusal is shown, not asked again. */
  reauthenticated?: boolean;
  /** The page's chosen language as Accept-Language, for answers written to the reader later (mails). */
  language?: string;
}

export async function api<T>(method: HttpMethod, path: string, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  // Every call says the page's language (the store keeps it on <html lang>): sign-in remembers it
  // for the account's later mails, and a mail a call causes is written in it.
  const language = options.language ?? (typeof document === 'undefined' ? '' : document.documentElement.lang);
  if (language) headers['accept-language'] = language;
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch {
    throw new ApiError(0, { code: 'NETWORK', detail: 'The server could not be reached. Check the connection and try again.' });
  }
  if (response.ok) {
    if (response.status === 204) return undefined as T;
    const type = response.headers.get('content-type') ?? '';
    return (type.includes('json') ? await response.json() : await response.text()) as T;
  }
  const problem = await readProblem(response);
  const retryAfter = Number(response.headers.get('retry-after'));
  const error = new ApiError(response.status, problem, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  if (response.status === 401 && !options.quietUnauthenticated) onUnauthenticated();
  if (response.status === 403 && error.code === 'REAUTHENTICATION_REQUIRED' && onReauthenticationRequired && !options.reauthenticated) {
    if (await onReauthenticationRequired()) return api<T>(method, path, { ...options, reauthenticated: true });
  }
  throw error;
}

/** The list envelope of /verifications, /webhooks/…/deliveries and the like. */
export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}
