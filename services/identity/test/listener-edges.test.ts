import { describeListenerEdges } from '@svc/service-kit/testing';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

describeListenerEdges({
  service: 'identity',
  serviceDir: fileURLToPath(new URL('..', import.meta.url)),
  healthPath: '/health',
  schemaName,
  migrationsFolder,
  parametricPath: '/api/partner/v1/verifications/',
  jsonPost: { path: '/api/partner/v1/portal/login' },
});
