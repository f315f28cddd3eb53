import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLintReadyOpenApi } from '@svc/service-kit/testing';
import { buildTestApp, type TestApp } from './helpers.js';

describe('OpenAPI document', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp();
  });
  afterAll(() => test.close());

  it('documents every partner route with its security and its errors', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/docs/json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{ paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>; components: { securitySchemes: Record<string, unknown> } }>();
    const expected: [string, string, string[]][] = [
      ['/api/partner/v1/portal/login', 'post', ['200', '202', '400', '401', '403', '429']],
      ['/api/partner/v1/portal/login/second-factor', 'post', ['200', '400', '401', '403', '429']],
      ['/api/partner/v1/portal/logout', 'post', ['204', '401', '403']],
      ['/api/partner/v1/oauth/clients', 'post', ['201', '400', '401', '403', '409', '429']],
      ['/api/partner/v1/oauth/clients', 'get', ['200', '401', '403', '429']],
      ['/api/partner/v1/oauth/clients/{clientEntityId}', 'delete', ['204', '400', '401', '403', '404', '429']],
      ['/api/partner/v1/oauth/token', 'post', ['200', '400', '401', '403', '429']],
      ['/api/partner/v1/oauth/introspect', 'post', ['200', '400', '401', '403', '429']],
      ['/api/partner/v1/oauth/revoke', 'post', ['200', '400', '401', '403', '429']],
      ['/api/partner/v1/verifications', 'post', ['201', '400', '401', '403', '409', '429']],
      ['/api/partner/v1/verifications', 'get', ['200', '400', '401', '403', '429']],
      ['/api/partner/v1/verifications/{caseId}', 'get', ['200', '400', '401', '403', '404', '429']],
      ['/api/partner/v1/verifications/{caseId}/cancel', 'post', ['204', '400', '401', '403', '404', '409', '429']],
      ['/api/partner/v1/verifications/{caseId}/ocr-fields', 'patch', ['200', '400', '401', '403', '404', '429']],
      ['/api/partner/v1/verifications/{caseId}/redact', 'post', ['202', '400', '401', '403', '404', '409', '429']],
      ['/api/partner/v1/evidence/{evidenceId}/file', 'get', ['200', '400', '401', '403', '404', '410', '429', '500']],
      ['/api/partner/v1/reports/summary', 'get', ['200', '400', '401', '403', '429']],
      ['/api/partner/v1/reports/export', 'get', ['200', '400', '401', '403', '429']],
      ['/api/capture/v1/session', 'post', ['200', '401', '410', '429']],
      ['/api/capture/v1/evidence', 'post', ['201', '400', '401', '408', '409', '410', '413', '415', '429', '503']],
      ['/api/capture/v1/submit', 'post', ['200', '400', '401', '409', '410', '429']],
      ['/api/capture/v1/status', 'get', ['200', '401', '429']],
    ];
    for (const [path, method, statuses] of expected) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(Object.keys(operation!.responses).sort()).toEqual(statuses.sort());
      if (!path.includes('/login')) expect(operation!.security?.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['accessToken', 'captureSession', 'captureToken', 'mutualTLS', 'portalCookie', 'portalSession']);
    const schemas = (document.components as { schemas?: Record<string, unknown> }).schemas ?? {};
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['VerificationCase', 'VerificationCaseListItem', 'EvidenceRecord', 'OcrResult', 'CaseStatus']));
  });

  it("leaves the operators' internal API and its schemas out of the partner document", async () => {
    const document = (await test.app.inject({ method: 'GET', url: '/docs/json' })).json<{ paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>();
    const paths = Object.keys(document.paths);
    expect(paths).toContain('/api/partner/v1/verifications');
    expect(paths.filter((path) => path.startsWith('/api/internal'))).toEqual([]);
    for (const staffOnly of ['StaffSession', 'StaffRole', 'ReviewQueuePage', 'StaffCaseView', 'ReviewHistoryPage']) expect(document.components.schemas, staffOnly).not.toHaveProperty(staffOnly);
  });

  it('gives every operation what redocly lint asks, and declares the token binding as mutualTLS with the bearer token', async () => {
    const document = (await test.app.inject({ method: 'GET', url: '/docs/json' })).json<Parameters<typeof expectLintReadyOpenApi>[0] & { components: { securitySchemes: Record<string, unknown> } }>();
    const operations = expectLintReadyOpenApi(document);
    expect(document.components.securitySchemes.mutualTLS).toMatchObject({ type: 'mutualTLS' });
    expect(JSON.stringify(document.components.securitySchemes)).not.toContain('X-Client-Cert-Thumbprint');
    const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
    // A certificate-bound token is only good with its certificate: one requirement naming both.
    for (const id of ['createVerification', 'listWebhooks', 'downloadEvidenceFile', 'exportReport']) {
      // The partner areas: the certificate-bound token, or the portal's session (header or cookie).
      expect(byId.get(id)?.security, id).toEqual([{ mutualTLS: [], accessToken: [] }, { portalSession: [] }, { portalCookie: [] }]);
    }
    expect(byId.get('listOAuthClients')?.security).toContainEqual({ mutualTLS: [], accessToken: [] });
    for (const id of ['requestAccessToken', 'introspectAccessToken', 'revokeAccessToken']) expect(byId.get(id)?.security, id).toEqual([{ mutualTLS: [] }]);
    for (const id of ['getHealth', 'logInToPortal', 'getOAuthAuthorizationServerMetadata']) expect(byId.get(id)?.security, id).toEqual([]);
    expect(byId.get('getOAuthAuthorizationServerMetadata')).toMatchObject({ method: 'get', path: '/.well-known/oauth-authorization-server' });
  });
});
