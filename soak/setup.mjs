// What the soak sets up through the services' own command lines and APIs before the load starts:
// identity tenants (cli tenant:create, a sandbox one and a live one), each with a portal login, an
// OAuth client with an openssl-made certificate and its token, webhook endpoints on the receiver,
// and fx API keys (cli client:create).
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, runCommand } from '../bench/out-of-process.mjs';
import { expectJson } from '../services/identity/bench/identity-bench-setup.mjs';

const PARTNER = '/api/partner/v1';
const PASSWORD = 'soak password 123';

/** `node <service>/dist/cli.js <args>` with `env`; resolves with its last stdout line as JSON. */
async function cli(service, args, env) {
  const { stdout } = await runCommand(`${service} cli ${args[0]}`, process.execPath, [join(root, 'services', service, 'dist', 'cli.js'), ...args], { env, timeoutMs: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop());
}

/** A tenant `name` (sandbox or live) with its admin, an OAuth client and a token; `slug` names its files and login. */
export async function identityPartner(origin, env, workDir, { name, slug, sandbox }) {
  const email = `${slug}@example.com`;
  const tenant = await cli('identity', ['tenant:create', '--name', name, '--admin-email', email, '--admin-password', PASSWORD, ...(sandbox ? ['--sandbox'] : [])], env);
  const login = await expectJson(origin, 'POST', `${PARTNER}/portal/login`, 200, { json: { email, password: PASSWORD } });
  const keyFile = join(workDir, `${slug}.key`);
  const certFile = join(workDir, `${slug}.crt`);
  await runCommand('openssl req', 'openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${slug}`, '-days', '2', '-keyout', keyFile, '-out', certFile], { timeoutMs: 30_000 });
  const certificatePem = readFileSync(certFile, 'utf8');
  const thumbprint = new X509Certificate(certificatePem).fingerprint256.replaceAll(':', '').toLowerCase();
  const client = await expectJson(origin, 'POST', `${PARTNER}/oauth/clients`, 201, { json: { clientName: name, certificatePem }, headers: { authorization: `Bearer ${login.sessionToken}` } });
  const token = await expectJson(origin, 'POST', `${PARTNER}/oauth/token`, 200, {
    form: `grant_type=client_credentials&client_id=${encodeURIComponent(client.clientId)}`,
    headers: { 'x-client-cert-thumbprint': thumbprint },
  });
  return { tenantId: tenant.tenantId, clientId: client.clientId, thumbprint, headers: { authorization: `Bearer ${token.access_token}`, 'x-client-cert-thumbprint': thumbprint } };
}

/** A webhook endpoint `name` of `partner`'s tenant on the receiver for `eventTypes`; its secret is handed to the receiver. */
export async function webhookEndpoint(origin, partner, receiver, name, eventTypes) {
  const created = await expectJson(origin, 'POST', `${PARTNER}/webhooks`, 201, { json: { url: `${receiver.origin}/hooks/${name}`, eventTypes }, headers: partner.headers });
  receiver.child.stdin.write(`${JSON.stringify({ name, secret: created.signingSecret })}\n`);
  return { endpointId: created.endpoint.id, endpointName: name, tenantId: partner.tenantId, subscribedTypes: eventTypes, subscribedAt: new Date() };
}

export const fxKey = (env) => cli('fx', ['client:create', '--name', 'Soak', '--plan', 'Professional'], env);
