// GET /api/v1/rates/latest with the per-IP limiter active (limits raised so nothing is refused)
// against a bare Fastify route serving the same JSON, in the same run, on loopback.
// Run after `pnpm --filter @svc/fx build`: node bench/rates-latest.mjs [seconds]
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceDependencies } from '@svc/service-kit';
import { compareWithBare } from '../../../bench/compare-with-bare.mjs';
import { buildApp } from '../dist/app.js';
import { loadFxConfig } from '../dist/config.js';
import { migrationsFolder, schemaName } from '../dist/db/migrations.js';
import { databaseSchema } from '../dist/db/schema.js';
import { seedEmbeddedFirstStart } from '../dist/domain/rates/embedded-first-start.js';

const seconds = Math.min(Number(process.argv[2] ?? 5), 30);

// Embedded PGlite in a throw-away data directory (REDIS_URL in the environment selects the Redis store).
const dataDir = mkdtempSync(join(tmpdir(), 'fx-bench-'));
const config = loadFxConfig({
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  REDIS_URL: process.env.REDIS_URL,
  RATE_LIMIT_ANON_PER_MINUTE: '1000000000',
  RATE_LIMIT_ANON_PER_HOUR: '1000000000',
});
const dependencies = await createServiceDependencies({ config, schemaName, migrationsFolder, schema: databaseSchema });
await seedEmbeddedFirstStart(dependencies.database.db, config, new Date());
const app = await buildApp({ ...dependencies, config, rateLimitKeyPrefix: `fx-bench:${process.pid}:` });
await app.listen({ host: '127.0.0.1', port: 0 });
const fxUrl = `http://127.0.0.1:${app.server.address().port}/api/v1/rates/latest`;

const result = await compareWithBare({ autocannon, Fastify, url: fxUrl, seconds });
await app.close();
await dependencies.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify({ store: dependencies.redis ? 'redis' : 'memory', ...result }));
