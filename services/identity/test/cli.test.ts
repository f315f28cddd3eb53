import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectCliFailure, runCliProcess, startServiceProcess } from '@svc/service-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, buildTestApp, PASSWORD, type TestApp } from './helpers.js';
import { describeNeeding } from '@svc/db/testing';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

const cli = (args: string[], env: Record<string, string>) => runCliProcess({ cwd: serviceDir, args, env });

describe('operator CLI (embedded database)', () => {
  const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'identity-cli-')) };

  it('--help lists the commands', async () => {
    const result = await cli(['--help'], env);
    expect(result.code).toBe(0);
    for (const command of ['tenant:create', 'tenant:disable', 'tenant:enable', 'user:create']) expect(result.stdout).toContain(command);
  });

  it('refuses unknown commands and missing or bad flags with one line on stderr and nothing on stdout', async () => {
    expectCliFailure(await cli(['tenant:destroy'], env), /unknown command "tenant:destroy"/);
    expectCliFailure(await cli(['tenant:create', '--name', 'Acme'], env), /--admin-email is required/);
    expectCliFailure(await cli(['tenant:create', '--name', 'Acme', '--admin-email', 'a@b.io', '--admin-password', PASSWORD, '--colour', 'red'], env), /Unknown option '--colour'/);
    expectCliFailure(await cli(['tenant:disable', '--id', 'not-a-uuid'], env), /--id must be a UUID/);
  });

  it('creates a tenant with its admin, adds users, disables and enables it; bad input changes nothing', async () => {
    const email = `admin-${randomUUID()}@example.com`;
    const created = await cli(['tenant:create', '--name', 'Acme Bank', '--admin-email', email, '--admin-password', PASSWORD], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { tenantId, adminUserId } = JSON.parse(created.stdout) as { tenantId: string; adminUserId: string };
    expect(tenantId).toMatch(/^[0-9a-f-]{36}$/);
    expect(adminUserId).toMatch(/^[0-9a-f-]{36}$/);

    expectCliFailure(await cli(['tenant:create', '--name', 'Copy', '--admin-email', email.toUpperCase(), '--admin-password', PASSWORD], env), /already exists/);
    expectCliFailure(await cli(['tenant:create', '--name', 'Weak', '--admin-email', 'weak@example.com', '--admin-password', 'short'], env), /--admin-password must be at least 12 characters/);

    const user = await cli(['user:create', '--tenant', tenantId, '--email', `ops-${randomUUID()}@example.com`, '--password', PASSWORD, '--role', 'PartnerAdmin'], env);
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout)).toEqual({ userId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expectCliFailure(await cli(['user:create', '--tenant', tenantId, '--email', 'x@example.com', '--password', PASSWORD, '--role', 'Owner'], env), /--role must be one of PartnerAdmin/);
    expectCliFailure(await cli(['user:create', '--tenant', randomUUID(), '--email', 'y@example.com', '--password', PASSWORD, '--role', 'PartnerAdmin'], env), /No tenant with id/);

    const disabled = await cli(['tenant:disable', '--id', tenantId], env);
    expect(JSON.parse(disabled.stdout)).toEqual({ tenantId, status: 'disabled' });
    const enabled = await cli(['tenant:enable', '--id', tenantId], env);
    expect(JSON.parse(enabled.stdout)).toEqual({ tenantId, status: 'active' });
    expectCliFailure(await cli(['tenant:enable', '--id', randomUUID()], env), /No tenant with id/);
  });
});

describeNeeding('DATABASE_URL')('tenant:disable on a running instance (PostgreSQL)', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await buildTestApp();
  });
  afterAll(() => test.close());

  it('takes effect on the next request, and tenant:enable restores access', async () => {
    const env = { DATABASE_URL: test.dependencies.databaseUrl!, SECRETS_KEY: randomBytes(32).toString('hex') };
    const email = `admin-${randomUUID()}@example.com`;
    const created = await cli(['tenant:create', '--name', 'Live', '--admin-email', email, '--admin-password', PASSWORD], env);
    const { tenantId } = JSON.parse(created.stdout) as { tenantId: string };
    const service = await startServiceProcess({ cwd: serviceDir, entry: 'src/server.ts', env, healthPath: '/health' });
    try {
      const login = await fetch(`${service.baseUrl}${BASE}/portal/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
      const { sessionToken } = (await login.json()) as { sessionToken: string };
      const list = () => fetch(`${service.baseUrl}${BASE}/oauth/clients`, { headers: { authorization: `Bearer ${sessionToken}` } });
      expect((await list()).status).toBe(200);
      expect((await cli(['tenant:disable', '--id', tenantId], env)).code).toBe(0);
      const refused = await list();
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'ACCOUNT_DISABLED' });
      expect((await cli(['tenant:enable', '--id', tenantId], env)).code).toBe(0);
      expect((await list()).status).toBe(200);
    } finally {
      await service.stop();
    }
  });
});
