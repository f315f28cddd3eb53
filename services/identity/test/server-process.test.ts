import { describeServiceProcess } from '@svc/service-kit/testing';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, schemaName } from '../src/db/migrations.js';

describeServiceProcess({
  service: 'identity',
  serviceDir: fileURLToPath(new URL('..', import.meta.url)),
  healthPath: '/health',
  schemaName,
  migrationsFolder,
});
