import type { FieldError } from './problem-document.js';

export interface ProblemErrorInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  /** Extra members of the problem body (RFC 7807 §3.2); they never override the standard members. */
  extensions?: Record<string, unknown>;
  /** Response headers the error needs, such as `Retry-After`. */
  headers?: Record<string, string>;
  /**
   * Media type of the body; default application/problem+json. OAuth endpoints answer
   * application/json (RFC 6749 §5.2), which OAuth client libraries insist on.
   */
  contentType?: string;
  cause?: unknown;
}

/**
 * An error that knows its HTTP answer. Domain code throws these; the plugin turns them
 * into problem+json bodies. `detail` is shown to the caller, so it must never carry internals.
 */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly contentType: string | undefined;

  constructor(init: ProblemErrorInit) {
    // A problem is an error answer: anything else would fail later inside the error handler.
    if (!Number.isInteger(init.status) || init.status < 400 || init.status > 599) {
      throw new RangeError(`A problem status must be an integer from 400 to 599, got ${init.status}`);
    }
    super(init.detail, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.extensions = { ...init.extensions };
    this.headers = { ...init.headers };
    this.contentType = init.contentType;
  }
}

// Retry-After takes whole non-negative seconds (RFC 9110 §10.2.3); rounding up never invites an early retry.
function wholeSecondsToWait(retryAfterSeconds: number): number {
  if (!Number.isFinite(retryAfterSeconds)) {
    throw new RangeError(`retryAfterSeconds must be a finite number, got ${retryAfterSeconds}`);
  }
  return Math.max(0, Math.ceil(retryAfterSeconds));
}

/** 400: the body, query, path parameters or headers failed validation. */
export class ValidationError extends ProblemError {
  constructor(detail: string, errors: FieldError[] = []) {
    super({ status: 400, code: 'VALIDATION_ERROR', title: 'Validation Error', detail, extensions: { errors } });
  }
}

/** 401: the authorization token is missing, expired or invalid. */
export class UnauthenticatedError extends ProblemError {
  constructor(detail = 'The authorization token is missing, expired or invalid.') {
    super({ status: 401, code: 'UNAUTHENTICATED', title: 'Unauthenticated', detail });
  }
}

/** 403: the caller lacks the required role or tenant scope. */
export class ForbiddenError extends ProblemError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super({ status: 403, code: 'FORBIDDEN', title: 'Forbidden', detail });
  }
}

/** 403: the partner account was disabled by an administrator. */
export class AccountDisabledError extends ProblemError {
  constructor(detail = 'This account has been disabled by an administrator.') {
    super({ status: 403, code: 'ACCOUNT_DISABLED', title: 'Account Disabled', detail });
  }
}

/** 404: the resource does not exist, or belongs to another tenant (which must look the same). */
export class NotFoundError extends ProblemError {
  constructor(detail = 'The requested resource was not found.') {
    super({ status: 404, code: 'NOT_FOUND', title: 'Not Found', detail });
  }
}

/** 409: the idempotency key was already used; the spec puts the original case id in `detail`. */
export class CaseExistsError extends ProblemError {
  constructor(originalCaseId: string) {
    super({
      status: 409,
      code: 'CASE_EXISTS',
      title: 'Case Exists',
      detail: `The idempotency key was already used for case ${originalCaseId}.`,
      extensions: { caseId: originalCaseId },
    });
  }
}

/** 429: too many requests; `Retry-After` and the `retryAfter` member give the wait in seconds. */
export class RateLimitedError extends ProblemError {
  constructor(retryAfterSeconds: number, detail?: string) {
    const seconds = wholeSecondsToWait(retryAfterSeconds);
    super({
      status: 429,
      code: 'RATE_LIMITED',
      title: 'Rate Limited',
      detail: detail ?? `Too many requests. Retry after ${seconds} seconds.`,
      extensions: { retryAfter: seconds },
      headers: { 'Retry-After': String(seconds) },
    });
  }
}

/** 429: the account is locked for a while after repeated failed logins. */
export class AccountLockedError extends ProblemError {
  constructor(retryAfterSeconds: number, detail?: string) {
    const seconds = wholeSecondsToWait(retryAfterSeconds);
    super({
      status: 429,
      code: 'ACCOUNT_LOCKED',
      title: 'Account Locked',
      detail: detail ?? `The account is temporarily locked after repeated failed logins. Retry after ${seconds} seconds.`,
      extensions: { retryAfter: seconds },
      headers: { 'Retry-After': String(seconds) },
    });
  }
}

/** 500: something failed on our side. The detail is shown to callers; put the real reason in `cause`. */
export class InternalError extends ProblemError {
  constructor(detail = 'An unexpected error occurred.', cause?: unknown) {
    super({ status: 500, code: 'INTERNAL_ERROR', title: 'Internal Server Error', detail, cause });
  }
}

/** 409: the request conflicts with the current state of the resource (not in the identity spec's table). */
export class ConflictError extends ProblemError {
  constructor(detail: string) {
    super({ status: 409, code: 'CONFLICT', title: 'Conflict', detail });
  }
}

/** 413: the request body is larger than the route accepts (not in the identity spec's table). */
export class PayloadTooLargeError extends ProblemError {
  constructor(detail = 'The request body is too large.') {
    super({ status: 413, code: 'PAYLOAD_TOO_LARGE', title: 'Payload Too Large', detail });
  }
}

/** 415: the route does not accept the request's Content-Type (not in the identity spec's table). */
export class UnsupportedMediaTypeError extends ProblemError {
  constructor(detail = 'The request Content-Type is not supported.') {
    super({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported Media Type', detail });
  }
}

/** 408: the client stopped sending its request (headers or body) for longer than the server waits. */
export class RequestTimeoutError extends ProblemError {
  constructor(detail: string) {
    super({ status: 408, code: 'REQUEST_TIMEOUT', title: 'Request Timeout', detail, headers: { Connection: 'close' } });
  }
}

/** 400: the body ended (or the connection closed) before the request was whole, e.g. a multipart body without its closing boundary. */
export class IncompleteBodyError extends ProblemError {
  constructor(detail: string) {
    super({ status: 400, code: 'INCOMPLETE_BODY', title: 'Incomplete Body', detail, headers: { Connection: 'close' } });
  }
}

/** 503: the server is shutting down; the request may be retried at once against another instance. */
export class ShuttingDownError extends ProblemError {
  constructor(detail = 'The server is shutting down; retry the request.') {
    super({ status: 503, code: 'SHUTTING_DOWN', title: 'Service Unavailable', detail, headers: { Connection: 'close', 'Retry-After': '1' } });
  }
}

/** 503: a dependency (the database) dropped or refused the connection the request was using: a moment's outage, worth a retry. */
export class DependencyUnavailableError extends ProblemError {
  constructor(detail = 'A service this one depends on could not be reached while answering; retry the request.', cause?: unknown) {
    super({ status: 503, code: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable', detail, headers: { 'Retry-After': '1' }, cause });
  }
}
