import { describeListenerEdges } from '@svc/service-kit/testing';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

const ADMIN_TOKEN = 'listener-edges-admin-token';

describeListenerEdges({
  service: 'fx',
  serviceDir: fileURLToPath(new URL('..', import.meta.url)),
  healthPath: '/api/v1/health',
  schemaName,
  migrationsFolder,
  parametricPath: '/api/v1/client/webhooks/',
  parametricMethod: 'PUT',
  jsonPost: { path: '/api/v1/admin/rates', headers: { 'x-admin-token': ADMIN_TOKEN }, env: { FX_ADMIN_TOKEN: ADMIN_TOKEN } },
});
