import { describeServiceProcess } from '@svc/service-kit/testing';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

describeServiceProcess({
  service: 'fx',
  serviceDir: fileURLToPath(new URL('..', import.meta.url)),
  healthPath: '/api/v1/health',
  schemaName,
  migrationsFolder,
});
