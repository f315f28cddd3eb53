import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate, type TestCertificate } from './certificates.js';
import { BASE, buildTestApp, createLoggedInTenant, type LoggedInTenant, type TestApp } from './helpers.js';

/** The service itself terminating TLS (TLS_CERT/TLS_KEY), over a real socket: the thumbprint comes from the handshake. */
describe('direct mutual TLS', () => {
  let test: TestApp;
  let origin: string;
  let serverCert: TestCertificate;
  let tenant: LoggedInTenant;
  const agents: Agent[] = [];

  const agentWith = (client: TestCertificate | null) => {
    const agent = new Agent({ connect: { ca: serverCert.certPem, servername: 'localhost', ...(client ? { cert: client.certPem, key: client.keyPem } : {}) } });
    agents.push(agent);
    return agent;
  };

  beforeAll(async () => {
    serverCert = await makeCertificate({ cn: 'localhost', dnsNames: ['localhost'] });
    const dir = mkdtempSync(join(tmpdir(), 'identity-tls-'));
    writeFileSync(join(dir, 'server.crt'), serverCert.certPem);
    writeFileSync(join(dir, 'server.key'), serverCert.keyPem);
    test = await buildTestApp({ TLS_CERT: join(dir, 'server.crt'), TLS_KEY: join(dir, 'server.key') });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const address = test.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    origin = `https://localhost:${address.port}`;
    tenant = await createLoggedInTenant(test);
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await test.close();
  });

  it('issues a token to the registered certificate presented in the handshake, and binds it to that certificate', async () => {
    const clientCert = await makeCertificate({ cn: 'direct-client' });
    const registered = await request(`${origin}${BASE}/oauth/clients`, {
      method: 'POST',
      dispatcher: agentWith(null),
      headers: { authorization: `Bearer ${tenant.sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ clientName: 'Direct', certificatePem: clientCert.certPem }),
    });
    expect(registered.statusCode).toBe(201);
    const { clientId } = (await registered.body.json()) as { clientId: string };

    const withCert = agentWith(clientCert);
    const tokenResponse = await request(`${origin}${BASE}/oauth/token`, {
      method: 'POST',
      dispatcher: withCert,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${clientId}`,
    });
    expect(tokenResponse.statusCode).toBe(200);
    const token = (await tokenResponse.body.json()) as { access_token: string; cnf: { 'x5t#S256': string } };
    expect(token.cnf['x5t#S256']).toBe(Buffer.from(clientCert.thumbprint, 'hex').toString('base64url'));

    const listed = await request(`${origin}${BASE}/oauth/clients`, { dispatcher: withCert, headers: { authorization: `Bearer ${token.access_token}` } });
    expect(listed.statusCode).toBe(200);
    expect(((await listed.body.json()) as { clientId: string }[]).map((client) => client.clientId)).toEqual([clientId]);

    // The same token over a connection with another certificate, even claiming the right thumbprint in a header.
    const otherCert = await makeCertificate({ cn: 'thief' });
    const stolen = await request(`${origin}${BASE}/oauth/clients`, {
      dispatcher: agentWith(otherCert),
      headers: { authorization: `Bearer ${token.access_token}`, 'x-client-cert-thumbprint': clientCert.thumbprint },
    });
    expect(stolen.statusCode).toBe(401);
    await stolen.body.dump();

    const noCert = await request(`${origin}${BASE}/oauth/token`, {
      method: 'POST',
      dispatcher: agentWith(null),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${clientId}`,
    });
    expect(noCert.statusCode).toBe(401);
    expect(await noCert.body.json()).toMatchObject({ error: 'invalid_client' });
  });
});
