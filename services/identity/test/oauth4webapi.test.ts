import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '@svc/service-kit/testing';
import * as oauth from 'oauth4webapi';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate, type TestCertificate } from './certificates.js';
import { BASE, buildTestApp, createLoggedInTenant, registerClient, type TestApp } from './helpers.js';

/**
 * A standard OAuth client library, used as it comes, against identity terminating mutual TLS
 * itself: it finds every endpoint by discovery (RFC 8414) and authenticates with the client
 * certificate (RFC 8705 self_signed_tls_client_auth). Only the TLS connection is ours to give
 * it, through its customFetch hook: fetch has no standard way to present a client certificate.
 */
describe('oauth4webapi against identity over direct mutual TLS', () => {
  let test: TestApp;
  let issuer: URL;
  let serverCert: TestCertificate;
  let tlsDir: string;
  const agents: Agent[] = [];

  /** oauth4webapi's fetch, over connections that trust the test server and present `client`'s certificate. */
  const fetchPresenting = (client: TestCertificate | null) => {
    const agent = new Agent({ connect: { ca: serverCert.certPem, servername: 'localhost', ...(client ? { cert: client.certPem, key: client.keyPem } : {}) } });
    agents.push(agent);
    return { [oauth.customFetch]: (url: string, options: oauth.CustomFetchOptions<string, unknown>) => undiciFetch(url, { ...(options as object), dispatcher: agent }) as unknown as Promise<Response> };
  };

  beforeAll(async () => {
    serverCert = await makeCertificate({ cn: 'localhost', dnsNames: ['localhost'] });
    tlsDir = mkdtempSync(join(tmpdir(), 'identity-oauth4webapi-'));
    writeFileSync(join(tlsDir, 'server.crt'), serverCert.certPem);
    writeFileSync(join(tlsDir, 'server.key'), serverCert.keyPem);
    // The issuer is configured before the server listens, so the port is chosen first.
    const port = await findFreePort();
    issuer = new URL(`https://localhost:${port}`);
    test = await buildTestApp({ TLS_CERT: join(tlsDir, 'server.crt'), TLS_KEY: join(tlsDir, 'server.key'), PUBLIC_BASE_URL: issuer.origin });
    await test.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await test.close();
    rmSync(tlsDir, { recursive: true, force: true });
  });

  async function discover(client: TestCertificate | null): Promise<oauth.AuthorizationServer> {
    const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...fetchPresenting(client) });
    return oauth.processDiscoveryResponse(issuer, response);
  }

  it('discovers the endpoints, gets a bound token, introspects it, revokes it, and the revoked token is refused', async () => {
    const tenant = await createLoggedInTenant(test);
    const { cert, clientId } = await registerClient(test, tenant);
    const over = fetchPresenting(cert);

    // Discovery needs no certificate: it comes before the client has anything to present.
    const as = await discover(null);
    expect(as).toMatchObject({
      issuer: issuer.origin,
      token_endpoint: `${issuer.origin}${BASE}/oauth/token`,
      introspection_endpoint: `${issuer.origin}${BASE}/oauth/introspect`,
      revocation_endpoint: `${issuer.origin}${BASE}/oauth/revoke`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['self_signed_tls_client_auth'],
      tls_client_certificate_bound_access_tokens: true,
      scopes_supported: ['verifications', 'webhooks', 'evidence', 'reports'],
    });
    expect(as.mtls_endpoint_aliases).toBeUndefined();

    const client: oauth.Client = { client_id: clientId };
    const auth = oauth.TlsClientAuth();
    const granted = await oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'verifications webhooks' }), over));
    expect(granted).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'verifications webhooks' });
    expect(granted.access_token).toMatch(/^svc_at_/);
    // Bound to the certificate that asked for it (RFC 8705 §3.1).
    expect((granted as unknown as { cnf: { 'x5t#S256': string } }).cnf['x5t#S256']).toBe(Buffer.from(cert.thumbprint, 'hex').toString('base64url'));

    const active = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, granted.access_token, over));
    expect(active).toMatchObject({ active: true, client_id: clientId, scope: 'verifications webhooks', token_type: 'Bearer' });

    const webhooksUrl = new URL(`${issuer.origin}${BASE}/webhooks`);
    const before = await oauth.protectedResourceRequest(granted.access_token, 'GET', webhooksUrl, undefined, undefined, over);
    expect(before.status).toBe(200);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, granted.access_token, over));

    const inactive = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, granted.access_token, over));
    expect(inactive).toEqual({ active: false });
    // oauth4webapi turns a 401 with a WWW-Authenticate challenge into an error that carries the response.
    const after = await oauth.protectedResourceRequest(granted.access_token, 'GET', webhooksUrl, undefined, undefined, over).catch((error: unknown) => error);
    expect(after instanceof oauth.WWWAuthenticateChallengeError ? after.response.status : (after as Response).status).toBe(401);
  });

  it('is refused a token without the registered certificate: invalid_client, as oauth4webapi reports it', async () => {
    const tenant = await createLoggedInTenant(test, 'Other');
    const { clientId } = await registerClient(test, tenant);
    const stranger = await makeCertificate({ cn: 'stranger' });
    const as = await discover(stranger);
    const client: oauth.Client = { client_id: clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.TlsClientAuth(), new URLSearchParams(), fetchPresenting(stranger));
    const failure = await oauth.processClientCredentialsResponse(as, client, response).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(oauth.ResponseBodyError);
    expect((failure as oauth.ResponseBodyError).error).toBe('invalid_client');
    expect((failure as oauth.ResponseBodyError).status).toBe(401);
  });
});
