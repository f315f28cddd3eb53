/** The RFC 9457 problem body both services answer errors with (`@svc/problem-json`). */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  /** Stable machine-readable error code, e.g. `VALIDATION_ERROR`, `CASE_EXISTS`. */
  code?: string;
  instance?: string;
  correlationId?: string;
  [extension: string]: unknown;
}

/**
 * An API error answer, thrown by the clients instead of returned, so a caller's happy path
 * reads straight and a `catch` can switch on `code` (a stable string) rather than on status
 * numbers or message text.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The problem's `code`; for OAuth errors (RFC 6749 §5.2) the `error` field; else `HTTP_<status>`. */
  readonly code: string;
  readonly status: number;
  readonly problem: Problem;
  readonly method: string;
  readonly url: string;

  constructor(init: { status: number; method: string; url: string; problem: Problem }) {
    const code = init.problem.code ?? (typeof init.problem.error === 'string' ? init.problem.error : `HTTP_${init.status}`);
    super(`${init.method} ${new URL(init.url).pathname} answered ${init.status} ${code}${init.problem.detail ? `: ${init.problem.detail}` : ''}`);
    this.code = code;
    this.status = init.status;
    this.problem = init.problem;
    this.method = init.method;
    this.url = init.url;
  }
}

/** Reads a non-2xx answer into an ApiError; a body that is not JSON still gives status and code. */
export async function apiErrorFrom(request: { method: string; url: string }, response: Response): Promise<ApiError> {
  let problem: Problem = { status: response.status };
  const text = await response.clone().text();
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) problem = parsed as Problem;
  } catch {
    if (text) problem = { status: response.status, detail: text.slice(0, 500) };
  }
  return new ApiError({ status: response.status, method: request.method, url: request.url, problem });
}
