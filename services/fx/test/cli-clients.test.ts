import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectCliFailure, runCliProcess } from '@svc/service-kit/testing';
import { describe, expect, it } from 'vitest';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));
const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'fx-cli-')) };
const cli = (...args: string[]) => runCliProcess({ cwd: serviceDir, args, env });

describe('fx operator CLI: API-key clients (embedded database)', () => {
  it('lists the commands with --help', async () => {
    const result = await cli('--help');
    expect(result.code).toBe(0);
    for (const command of ['client:create', 'client:rotate-secret', 'client:deactivate', 'client:set-plan', 'client:set-email', 'seed', 'import']) expect(result.stdout).toContain(command);
  });

  it('creates a client, rotates its secret, changes its plan and deactivates it', async () => {
    const created = await cli('client:create', '--name', 'Acme Exchange', '--plan', 'Starter');
    expect(created.stderr).toBe('');
    const keys = JSON.parse(created.stdout) as { id: string; publicKey: string; privateKey: string };
    expect(keys).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), publicKey: expect.stringMatching(/^svc_pub_[0-9a-f]{48}$/), privateKey: expect.stringMatching(/^svc_prv_[0-9a-f]{64}$/) });
    const rotated = JSON.parse((await cli('client:rotate-secret', '--id', keys.id)).stdout) as { privateKey: string; publicKey: string };
    expect(rotated.publicKey).toBe(keys.publicKey);
    expect(rotated.privateKey).not.toBe(keys.privateKey);
    expect(JSON.parse((await cli('client:set-plan', '--id', keys.id, '--plan', 'Professional')).stdout)).toMatchObject({ id: keys.id, plan: 'Professional' });
    expect(JSON.parse((await cli('client:deactivate', '--id', keys.id)).stdout)).toMatchObject({ id: keys.id, isActive: false });
  });

  it('takes an optional contact address on create and changes or removes it with client:set-email', async () => {
    const created = await cli('client:create', '--name', 'Mailed', '--plan', 'Free', '--email', 'ops@acme.example');
    expect(created.stderr).toBe('');
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(JSON.parse((await cli('client:set-email', '--id', id, '--email', 'alerts@acme.example')).stdout)).toMatchObject({ id, email: 'alerts@acme.example' });
    expect(JSON.parse((await cli('client:set-email', '--id', id, '--email', 'none')).stdout)).toMatchObject({ id, email: null });
    expectCliFailure(await cli('client:create', '--name', 'x', '--plan', 'Free', '--email', 'nope'), /email must be an email address/);
  });

  it('refuses bad commands and flags with one line on stderr and nothing on stdout', async () => {
    expectCliFailure(await cli('client:destroy'), /unknown command "client:destroy"/);
    expectCliFailure(await cli('client:create', '--name', 'x'), /--plan is required/);
    expectCliFailure(await cli('client:create', '--name', 'x', '--plan', 'Gold'), /plan must be one of Free, Starter, Professional, Enterprise/);
    expectCliFailure(await cli('client:deactivate', '--id', '00000000-0000-4000-8000-000000000000'), /No API client with id/);
    expectCliFailure(await cli('client:set-plan', '--id', 'nope', '--plan', 'Free'), /id must be a UUID/);
  });
});
