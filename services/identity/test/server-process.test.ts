import { describeServiceProcess } from '@svc/service-kit/testing';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

describeServiceProcess({
  service: 'identity',
  serviceDir: fileURLToPath(new URL('..', import.meta.url)),
  healthPath: '/health',
  schemaName,
  migrationsFolder,
  metrics: { env: { RATE_LIMIT_PER_MINUTE: '2' }, limitedPath: '/api/partner/v1/verifications', limit: '/api/partner/v1', queues: ['jobs', 'webhook_deliveries'] },
});
