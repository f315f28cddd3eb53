import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificate, type TestCertificate } from './certificates.js';
import { buildTestApp, createLoggedInTenant, registerClient, type LoggedInTenant, type TestApp } from './helpers.js';

/**
 * identity terminating TLS itself on a real socket (TLS_CERT/TLS_KEY), as a partner's client
 * meets it: the client certificate comes from the handshake, not from a trusted header.
 */
export async function startTlsService(env: Record<string, string> = {}) {
  const serverCert = await makeCertificate({ cn: 'localhost', dnsNames: ['localhost'] });
  const dir = mkdtempSync(join(tmpdir(), 'identity-tls-'));
  writeFileSync(join(dir, 'server.crt'), serverCert.certPem);
  writeFileSync(join(dir, 'server.key'), serverCert.keyPem);
  const test = await buildTestApp({ TLS_CERT: join(dir, 'server.crt'), TLS_KEY: join(dir, 'server.key'), RATE_LIMIT_PER_MINUTE: '100000', ...env });
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  const address = test.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return { test, serverCert, origin: `https://localhost:${address.port}` };
}

/** A tenant with one OAuth client: the options a partner hands to createIdentityClient. */
export async function partnerCredentials(test: TestApp, origin: string, serverCert: TestCertificate, options: { name?: string; sandbox?: boolean } = {}) {
  const tenant: LoggedInTenant = await createLoggedInTenant(test, options.name ?? 'Acme', { sandbox: options.sandbox ?? false });
  const client = await registerClient(test, tenant);
  return { tenant, clientId: client.clientId, cert: client.cert, clientOptions: { baseUrl: origin, clientId: client.clientId, certificate: client.cert.certPem, privateKey: client.cert.keyPem, ca: serverCert.certPem } };
}
