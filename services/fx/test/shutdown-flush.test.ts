import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServiceDependencies } from '@svc/service-kit';
import { startServiceProcess } from '@svc/service-kit/testing';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { loadFxConfig } from '../src/config.js';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';
import { ADMIN_TOKEN } from './helpers.js';
import { describeEmbeddedOnly } from '@svc/db/testing';

const serviceDir = fileURLToPath(new URL('..', import.meta.url));

// Embedded only: the point is the order of shutdown on one data directory.
describeEmbeddedOnly('graceful shutdown', () => {
  it('flushes batched lastUsedUtc before the database closes', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'fx-shutdown-')), FX_ADMIN_TOKEN: ADMIN_TOKEN };
    const service = await startServiceProcess({ cwd: serviceDir, entry: 'src/server.ts', env, healthPath: '/api/v1/health' });
    const created = await fetch(`${service.baseUrl}/api/v1/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN_TOKEN },
      body: JSON.stringify({ name: 'flush', plan: 'Free' }),
    });
    const keys = (await created.json()) as { id: string; publicKey: string; privateKey: string };
    const me = await fetch(`${service.baseUrl}/api/v1/client/me`, { headers: { 'x-api-key': keys.publicKey, 'x-api-secret': keys.privateKey } });
    expect(me.status).toBe(200);
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(service.output()).not.toMatch(/flush failed/);
    const dependencies = await createServiceDependencies({ config: loadFxConfig(env), schemaName, migrationsFolder });
    try {
      const rows = await dependencies.database.rows<{ last_used_utc: unknown }>(sql`select last_used_utc from fx.api_clients where id = ${keys.id}`);
      expect(rows[0]?.last_used_utc).not.toBeNull();
    } finally {
      await dependencies.close();
    }
  });
});
