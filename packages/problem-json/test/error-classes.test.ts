import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountDisabledError,
  AccountLockedError,
  CaseExistsError,
  ConflictError,
  ForbiddenError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  ProblemError,
  RateLimitedError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../src/index.js';
import { buildTestApp, type TestApp } from './helpers.js';

interface ErrorRow {
  label: string;
  create: () => ProblemError;
  className: string;
  status: number;
  code: string;
  title: string;
  type: string;
  detail: string;
  extensions: Record<string, unknown>;
  headers: Record<string, string>;
}

const CASE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

const ERROR_ROWS: ErrorRow[] = [
  {
    label: 'ValidationError with field errors',
    create: () => new ValidationError('Request validation failed: body.name: Required', [{ path: 'body.name', message: 'Required' }]),
    className: 'ValidationError',
    status: 400,
    code: 'VALIDATION_ERROR',
    title: 'Validation Error',
    type: '/problems/validation-error',
    detail: 'Request validation failed: body.name: Required',
    extensions: { errors: [{ path: 'body.name', message: 'Required' }] },
    headers: {},
  },
  {
    label: 'ValidationError without field errors',
    create: () => new ValidationError('The date range is reversed.'),
    className: 'ValidationError',
    status: 400,
    code: 'VALIDATION_ERROR',
    title: 'Validation Error',
    type: '/problems/validation-error',
    detail: 'The date range is reversed.',
    extensions: { errors: [] },
    headers: {},
  },
  {
    label: 'UnauthenticatedError with its default detail',
    create: () => new UnauthenticatedError(),
    className: 'UnauthenticatedError',
    status: 401,
    code: 'UNAUTHENTICATED',
    title: 'Unauthenticated',
    type: '/problems/unauthenticated',
    detail: 'The authorization token is missing, expired or invalid.',
    extensions: {},
    headers: {},
  },
  {
    label: 'UnauthenticatedError with a detail',
    create: () => new UnauthenticatedError('The access token has expired.'),
    className: 'UnauthenticatedError',
    status: 401,
    code: 'UNAUTHENTICATED',
    title: 'Unauthenticated',
    type: '/problems/unauthenticated',
    detail: 'The access token has expired.',
    extensions: {},
    headers: {},
  },
  {
    label: 'ForbiddenError',
    create: () => new ForbiddenError('The PartnerAdmin role is required.'),
    className: 'ForbiddenError',
    status: 403,
    code: 'FORBIDDEN',
    title: 'Forbidden',
    type: '/problems/forbidden',
    detail: 'The PartnerAdmin role is required.',
    extensions: {},
    headers: {},
  },
  {
    label: 'AccountDisabledError',
    create: () => new AccountDisabledError(),
    className: 'AccountDisabledError',
    status: 403,
    code: 'ACCOUNT_DISABLED',
    title: 'Account Disabled',
    type: '/problems/account-disabled',
    detail: 'This account has been disabled by an administrator.',
    extensions: {},
    headers: {},
  },
  {
    label: 'NotFoundError',
    create: () => new NotFoundError(`Verification case ${CASE_ID} was not found.`),
    className: 'NotFoundError',
    status: 404,
    code: 'NOT_FOUND',
    title: 'Not Found',
    type: '/problems/not-found',
    detail: `Verification case ${CASE_ID} was not found.`,
    extensions: {},
    headers: {},
  },
  {
    label: 'CaseExistsError',
    create: () => new CaseExistsError(CASE_ID),
    className: 'CaseExistsError',
    status: 409,
    code: 'CASE_EXISTS',
    title: 'Case Exists',
    type: '/problems/case-exists',
    detail: `The idempotency key was already used for case ${CASE_ID}.`,
    extensions: { caseId: CASE_ID },
    headers: {},
  },
  {
    label: 'RateLimitedError',
    create: () => new RateLimitedError(42),
    className: 'RateLimitedError',
    status: 429,
    code: 'RATE_LIMITED',
    title: 'Rate Limited',
    type: '/problems/rate-limited',
    detail: 'Too many requests. Retry after 42 seconds.',
    extensions: { retryAfter: 42 },
    headers: { 'retry-after': '42' },
  },
  {
    label: 'RateLimitedError with fractional seconds and a detail',
    create: () => new RateLimitedError(1.2, 'Slow down.'),
    className: 'RateLimitedError',
    status: 429,
    code: 'RATE_LIMITED',
    title: 'Rate Limited',
    type: '/problems/rate-limited',
    detail: 'Slow down.',
    extensions: { retryAfter: 2 },
    headers: { 'retry-after': '2' },
  },
  {
    label: 'AccountLockedError',
    create: () => new AccountLockedError(900),
    className: 'AccountLockedError',
    status: 429,
    code: 'ACCOUNT_LOCKED',
    title: 'Account Locked',
    type: '/problems/account-locked',
    detail: 'The account is temporarily locked after repeated failed logins. Retry after 900 seconds.',
    extensions: { retryAfter: 900 },
    headers: { 'retry-after': '900' },
  },
  {
    label: 'InternalError',
    create: () => new InternalError('The report could not be generated.', new Error('disk full')),
    className: 'InternalError',
    status: 500,
    code: 'INTERNAL_ERROR',
    title: 'Internal Server Error',
    type: '/problems/internal-error',
    detail: 'The report could not be generated.',
    extensions: {},
    headers: {},
  },
  {
    label: 'ConflictError',
    create: () => new ConflictError('The tenant already has 5 active OAuth clients.'),
    className: 'ConflictError',
    status: 409,
    code: 'CONFLICT',
    title: 'Conflict',
    type: '/problems/conflict',
    detail: 'The tenant already has 5 active OAuth clients.',
    extensions: {},
    headers: {},
  },
  {
    label: 'PayloadTooLargeError',
    create: () => new PayloadTooLargeError(),
    className: 'PayloadTooLargeError',
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    title: 'Payload Too Large',
    type: '/problems/payload-too-large',
    detail: 'The request body is too large.',
    extensions: {},
    headers: {},
  },
  {
    label: 'UnsupportedMediaTypeError',
    create: () => new UnsupportedMediaTypeError(),
    className: 'UnsupportedMediaTypeError',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    title: 'Unsupported Media Type',
    type: '/problems/unsupported-media-type',
    detail: 'The request Content-Type is not supported.',
    extensions: {},
    headers: {},
  },
  {
    label: 'a bare ProblemError whose extensions try to override standard members',
    create: () =>
      new ProblemError({
        status: 503,
        code: 'UPSTREAM_UNAVAILABLE',
        title: 'Upstream Unavailable',
        detail: 'The central bank feed did not answer.',
        extensions: { source: 'central-bank', status: 200, type: 'about:blank', code: 'OK' },
        headers: { 'Retry-After': '30' },
      }),
    className: 'ProblemError',
    status: 503,
    code: 'UPSTREAM_UNAVAILABLE',
    title: 'Upstream Unavailable',
    type: '/problems/upstream-unavailable',
    detail: 'The central bank feed did not answer.',
    extensions: { source: 'central-bank' },
    headers: { 'retry-after': '30' },
  },
];

describe('error classes', () => {
  let app: TestApp;

  beforeAll(async () => {
    ({ app } = await buildTestApp((routes) => {
      routes.get<{ Params: { index: string } }>('/errors/:index', (request) => {
        const row = ERROR_ROWS[Number(request.params.index)];
        if (!row) throw new Error('no such row');
        throw row.create();
      });
    }));
  });

  afterAll(async () => {
    await app.close();
  });

  it.each(ERROR_ROWS.map((row, index) => ({ ...row, index })))('$label → $status $code', async (row) => {
    const error = row.create();
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(row.className);
    expect(error.message).toBe(row.detail);

    const response = await app.inject({
      method: 'GET',
      url: `/errors/${row.index}?token=should-not-appear`,
      headers: { 'x-correlation-id': `trace-row-${row.index}` },
    });

    expect(response.statusCode).toBe(row.status);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    for (const [name, value] of Object.entries(row.headers)) {
      expect(response.headers[name]).toBe(value);
    }
    expect(response.headers['retry-after']).toBe(row.headers['retry-after']);
    expect(response.json()).toEqual({
      type: row.type,
      title: row.title,
      status: row.status,
      detail: row.detail,
      code: row.code,
      instance: `/errors/${row.index}`,
      correlationId: `trace-row-${row.index}`,
      ...row.extensions,
    });
  });

  it('keeps the cause of an error for the logs', () => {
    const cause = new Error('disk full');
    expect(new InternalError('The report could not be generated.', cause).cause).toBe(cause);
    expect(new InternalError().detail).toBe('An unexpected error occurred.');
  });

  it('rejects a Retry-After that is not a finite number', () => {
    expect(() => new RateLimitedError(Number.NaN)).toThrow(RangeError);
    expect(() => new AccountLockedError(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('clamps a negative wait to zero seconds', () => {
    const error = new RateLimitedError(-5);
    expect(error.headers).toEqual({ 'Retry-After': '0' });
    expect(error.extensions).toEqual({ retryAfter: 0 });
  });

  it('rejects a status that is not an error status', () => {
    expect(() => new ProblemError({ status: 200, code: 'OK', title: 'OK', detail: 'fine' })).toThrow(
      'A problem status must be an integer from 400 to 599, got 200',
    );
    expect(() => new ProblemError({ status: 600, code: 'X', title: 'X', detail: 'x' })).toThrow(RangeError);
  });

  it('copies extensions and headers so later changes to the inputs do not leak in', () => {
    const extensions: Record<string, unknown> = { a: 1 };
    const headers: Record<string, string> = { 'Retry-After': '1' };
    const error = new ProblemError({ status: 400, code: 'X', title: 'X', detail: 'x', extensions, headers });
    extensions.b = 2;
    headers.Other = 'y';
    expect(error.extensions).toEqual({ a: 1 });
    expect(error.headers).toEqual({ 'Retry-After': '1' });
  });
});
