import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CaseExistsError,
  PROBLEM_CONTENT_TYPE,
  problemDocumentSchema,
  problemJsonPlugin,
  problemTypeUri,
  toProblemDocument,
  ValidationError,
} from '../src/index.js';
import { buildTestApp, type TestApp } from './helpers.js';

describe('problemTypeUri', () => {
  it('turns the code into a kebab-case slug under the base', () => {
    expect(problemTypeUri('VALIDATION_ERROR')).toBe('/problems/validation-error');
    expect(problemTypeUri('NOT_FOUND', 'https://errors.example.com/problems/')).toBe('https://errors.example.com/problems/not-found');
    expect(problemTypeUri('CASE_EXISTS', 'https://errors.example.com/problems')).toBe('https://errors.example.com/problems/case-exists');
    expect(problemTypeUri('RATE_LIMITED', 'urn:problem:')).toBe('urn:problem:rate-limited');
  });
});

describe('toProblemDocument', () => {
  it('builds the body from the error, with instance only when given', () => {
    const error = new CaseExistsError('case-1');
    expect(toProblemDocument(error)).toEqual({
      type: '/problems/case-exists',
      title: 'Case Exists',
      status: 409,
      detail: 'The idempotency key was already used for case case-1.',
      code: 'CASE_EXISTS',
      caseId: 'case-1',
    });
    expect(Object.keys(toProblemDocument(error))).not.toContain('instance');
    expect(toProblemDocument(error, '/api/partner/v1/verifications', 'urn:problem:')).toMatchObject({
      type: 'urn:problem:case-exists',
      instance: '/api/partner/v1/verifications',
    });
  });

  it('is exported with the RFC 7807 media type', () => {
    expect(PROBLEM_CONTENT_TYPE).toBe('application/problem+json');
  });
});

describe('problemDocumentSchema', () => {
  it('accepts a problem body and keeps its extension members', () => {
    const body = { ...toProblemDocument(new ValidationError('bad', [{ path: 'query.page', message: 'Too small' }]), '/x'), correlationId: 'c-1', extra: true };
    expect(problemDocumentSchema.parse(body)).toEqual(body);
  });

  it('rejects a body without the required members', () => {
    expect(problemDocumentSchema.safeParse({ type: '/problems/x', title: 'X', status: 400, detail: 'x' }).success).toBe(false);
    expect(problemDocumentSchema.safeParse({ type: '/problems/x', title: 'X', status: '400', detail: 'x', code: 'X' }).success).toBe(false);
    expect(problemDocumentSchema.safeParse({ type: '/problems/x', title: 'X', status: 200, detail: 'x', code: 'X' }).success).toBe(false);
  });

  it('converts to a JSON schema that requires the standard members and allows extensions', () => {
    const jsonSchema = z.toJSONSchema(problemDocumentSchema);
    expect(jsonSchema).toMatchObject({
      type: 'object',
      required: ['type', 'title', 'status', 'detail', 'code'],
      additionalProperties: {},
      properties: {
        status: { type: 'integer', minimum: 400, maximum: 599 },
        errors: { type: 'array', items: { required: ['path', 'message'] } },
      },
    });
  });
});

describe('problemJsonPlugin', () => {
  let app: TestApp;

  beforeAll(async () => {
    ({ app } = await buildTestApp(
      (routes) => {
        routes.post(
          '/cases',
          {
            schema: {
              body: z.object({ reference: z.string() }),
              response: { 201: z.object({ caseId: z.string() }), 400: problemDocumentSchema, 409: problemDocumentSchema },
            },
          },
          (request) => {
            if (request.body.reference === 'taken') throw new CaseExistsError('case-9');
            return { caseId: 'case-1' };
          },
        );
      },
      { plugin: { typeBaseUri: 'https://errors.example.com/problems/' } },
    ));
  });

  afterAll(async () => {
    await app.close();
  });

  it('registers under the name @svc/problem-json', () => {
    expect((problemJsonPlugin as unknown as Record<symbol, { name: string }>)[Symbol.for('plugin-meta')]?.name).toBe('@svc/problem-json');
    expect(app.hasPlugin('@svc/problem-json')).toBe(true);
  });

  it('keeps extension members when the route declares problemDocumentSchema as its response', async () => {
    const conflict = await app.inject({ method: 'POST', url: '/cases', headers: { 'x-correlation-id': 'trace-409' }, payload: { reference: 'taken' } });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({
      type: 'https://errors.example.com/problems/case-exists',
      title: 'Case Exists',
      status: 409,
      detail: 'The idempotency key was already used for case case-9.',
      code: 'CASE_EXISTS',
      instance: '/cases',
      correlationId: 'trace-409',
      caseId: 'case-9',
    });

    const invalid = await app.inject({ method: 'POST', url: '/cases', payload: {} });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({
      type: 'https://errors.example.com/problems/validation-error',
      errors: [{ path: 'body.reference', message: 'Invalid input: expected string, received undefined' }],
    });
  });

  it('uses the configured type base for unknown routes too', async () => {
    const response = await app.inject({ method: 'GET', url: '/elsewhere' });
    expect(response.json().type).toBe('https://errors.example.com/problems/not-found');
  });
});
