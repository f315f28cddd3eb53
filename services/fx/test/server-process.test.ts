import { describeServiceProcess } from '@svc/service-kit/testing';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

describeServiceProcess({
  service: 'fx',
  serviceDir: fileURLToPath(new URL('..', import.meta.url)),
  healthPath: '/api/v1/health',
  schemaName,
  migrationsFolder,
  // Embedded: seeded with demo data at first start, so both sources are fresh. With DATABASE_URL
  // nothing is seeded and sources without data are stale.
  expectedHealthStatus: process.env.DATABASE_URL ? 'degraded' : 'ok',
  metrics: { env: { RATE_LIMIT_ANON_PER_MINUTE: '2' }, limitedPath: '/api/v1/pricing', limit: 'ip', queues: ['alert_deliveries'] },
});
