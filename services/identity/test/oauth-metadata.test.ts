import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIdentityConfig } from '../src/config.js';
import { BASE, buildTestApp, type TestApp } from './helpers.js';

const METADATA = '/.well-known/oauth-authorization-server';

describe('OAuth authorization server metadata (RFC 8414)', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp({ PUBLIC_BASE_URL: 'https://identity.partner.test/', MTLS_BASE_URL: 'https://mtls.identity.partner.test' });
  });
  afterAll(() => test.close());

  it('names the endpoints at the configured issuer, and their mutual-TLS aliases on the other origin', async () => {
    const response = await test.app.inject({ method: 'GET', url: METADATA });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('public, max-age=3600');
    // The trailing slash of the configured URL is dropped: the issuer is compared as a string.
    expect(response.json()).toEqual({
      issuer: 'https://identity.partner.test',
      token_endpoint: `https://identity.partner.test${BASE}/oauth/token`,
      introspection_endpoint: `https://identity.partner.test${BASE}/oauth/introspect`,
      revocation_endpoint: `https://identity.partner.test${BASE}/oauth/revoke`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['self_signed_tls_client_auth'],
      introspection_endpoint_auth_methods_supported: ['self_signed_tls_client_auth'],
      revocation_endpoint_auth_methods_supported: ['self_signed_tls_client_auth'],
      tls_client_certificate_bound_access_tokens: true,
      mtls_endpoint_aliases: {
        token_endpoint: `https://mtls.identity.partner.test${BASE}/oauth/token`,
        introspection_endpoint: `https://mtls.identity.partner.test${BASE}/oauth/introspect`,
        revocation_endpoint: `https://mtls.identity.partner.test${BASE}/oauth/revoke`,
      },
      scopes_supported: ['verifications', 'webhooks', 'evidence', 'reports'],
      service_documentation: 'https://identity.partner.test/docs',
    });
  });

  it('refuses a query parameter with a problem+json 400', async () => {
    const response = await test.app.inject({ method: 'GET', url: `${METADATA}?issuer=https://evil.test` });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('takes the issuer from configuration only: an https origin, without a path, query or fragment', () => {
    expect(loadIdentityConfig({}).PUBLIC_BASE_URL).toBe('https://localhost:8443');
    expect(loadIdentityConfig({}).MTLS_BASE_URL).toBeUndefined();
    expect(() => loadIdentityConfig({ PUBLIC_BASE_URL: 'http://identity.partner.test' })).toThrow(/PUBLIC_BASE_URL: must be an https:\/\/ URL/);
    expect(() => loadIdentityConfig({ PUBLIC_BASE_URL: 'https://identity.partner.test/auth' })).toThrow(/PUBLIC_BASE_URL: must be an origin such as https:\/\/identity.example.com/);
    expect(() => loadIdentityConfig({ MTLS_BASE_URL: 'https://mtls.partner.test?x=1' })).toThrow(/MTLS_BASE_URL: must be an origin/);
  });
});

describe('OAuth metadata without a separate mutual-TLS origin', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp({ PUBLIC_BASE_URL: 'https://identity.partner.test', MTLS_BASE_URL: 'https://identity.partner.test' });
  });
  afterAll(() => test.close());

  it('lists no mtls_endpoint_aliases when they would repeat the endpoints', async () => {
    const response = await test.app.inject({ method: 'GET', url: METADATA });
    expect(response.statusCode).toBe(200);
    expect(response.json()).not.toHaveProperty('mtls_endpoint_aliases');
  });
});
