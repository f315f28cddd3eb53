import type { Database } from '@svc/db';
import type { FastifyInstance } from 'fastify';
import type { FxConfig } from '../config.js';
import type { FxDatabaseSchema } from '../db/schema.js';
import { StreamHub } from '../domain/live/stream-hub.js';

/**
 * The instance's live-stream hub, listening from build time (a change is pushed to streams
 * wherever it was written). Streams end in preClose, before the server waits for open
 * responses, so SIGTERM never waits on an endless one.
 */
export async function startStreamHub(app: FastifyInstance, options: { config: FxConfig; database: Database<FxDatabaseSchema>; clock: () => Date }): Promise<StreamHub> {
  const { config } = options;
  const hub = new StreamHub({
    db: options.database.db,
    listen: options.database.listen,
    clock: options.clock,
    log: app.log,
    maxBufferBytes: config.FX_STREAM_MAX_BUFFER_BYTES,
    heartbeatMs: config.FX_STREAM_HEARTBEAT_SECONDS * 1000,
    retryMs: config.FX_STREAM_RETRY_MS,
    retentionMs: config.FX_STREAM_RETENTION_MINUTES * 60_000,
  });
  await hub.start();
  app.addHook('preClose', async () => {
    await hub.close();
  });
  return hub;
}
