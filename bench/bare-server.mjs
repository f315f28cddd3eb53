// The bare side of an out-of-process comparison (see bench/rounds.mjs): a Fastify route with
// nothing on it (no authentication, no rate limit, no validation) answering <method> <route>
// with fixed bytes, in a process of its own so it shares no event loop with the load generator.
// With a round trip it becomes the reference at the physical limit of a path that must make one:
//   --redis=<url>             before answering, a count through the rate limiter's own store
//                             (RedisCounterStore of @svc/rate-limit: the counts of one event-loop
//                             turn go as one EVALSHA of its Lua script) over the same keys a
//                             per-IP limiter counts (`--redis-prefix`, default fx:rl:; windows
//                             minute and hour, or `--redis-windows=name:ms,...`);
//   --count=memory            before answering, the same count in the limiter's in-memory store
//                             (MemoryCounterStore), as an embedded service counts.
//   --pg=<url> --pg-query=<file.json>
//                             before answering, the query {text, params} the service's route runs,
//                             as a prepared statement through postgres.js with the service's pool
//                             size (`--pg-pool`, default 10, the services' default). With --redis as
//                             well, the count comes first, then the query, as in the service.
//   --pglite=<dir> --pg-query=<file.json>
//                             the same query on the PGlite database in <dir> (the embedded
//                             service's own, while it is stopped), through @svc/db's statements.
//   --status=<code>           the status to answer (default 200; 201 for a create path).
//   --headers=<file.json>     an object of response headers sent on every answer besides
//                             content-type (say, the service's own, captured with curl -D): what
//                             the bytes of a contract's headers cost a server that does nothing else.
// Usage: node bench/bare-server.mjs <method> <route> <body file> [content-type] [options]
//   <route> is a Fastify path pattern, e.g. /verifications/:id; content-type defaults to
//   application/json. Fastify (and ioredis, @svc/rate-limit) are resolved from the working
//   directory: start it in a service directory, as the root has none of them; postgres.js from @svc/db.
// A POST route reads and discards its body (multipart included: `--spool=<dir>` writes each
// body's bytes to a file there and deletes it, the disk work an upload route cannot avoid).
//   --seal                    with --spool, the work an encrypted, durable upload cannot avoid:
//                             the body's SHA-256, then identity's own envelope encryption
//                             (dist/domain/evidence/envelope-stream.js: AES-256-GCM in 256 KB
//                             chunks, a fresh data key per upload) on its way to the file, then
//                             fsync, a rename into place and the directory's fsync, as identity's
//                             file-system store does before it answers 201.
//   --keep                    with --spool, keep every upload's file, as the service keeps every
//                             upload, so the page cache grows by the same bytes; on stopping, flush
//                             them (sync) so the next side does not pay for their write-back. The
//                             bench's work directory goes at the end. Without it each file is deleted
//                             at once and the same few pages are recycled: docs/benchmarks.md, "The
//                             upload and the VM's memory", says why that changes the figures here.
// Listens on a free loopback port and prints {"port":…} as its first stdout line. It stops on
// SIGTERM/SIGINT, and when its stdin closes (the parent that started it has gone away).
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';

const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const options = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((arg) => arg.startsWith('--'))
    .map((arg) => {
      const at = arg.indexOf('=');
      return at < 0 ? [arg.slice(2), 'true'] : [arg.slice(2, at), arg.slice(at + 1)];
    }),
);
const [method, route, bodyFile, contentType = 'application/json'] = positional;
if (!['GET', 'POST'].includes(method) || !route?.startsWith('/') || !bodyFile) {
  console.error('usage: node bench/bare-server.mjs <GET|POST> <route, e.g. /verifications/:id> <body file> [content-type] [--redis=url | --count=memory] [--pg=url | --pglite=dir, --pg-query=file] [--status=code] [--headers=file] [--spool=dir [--seal]]');
  process.exit(2);
}
const requireHere = createRequire(join(process.cwd(), 'package.json'));
// postgres.js is a dependency of @svc/db (patched there), not of the services themselves.
const requireDb = createRequire(new URL('../packages/db/package.json', import.meta.url));
/** A package's entry from the working directory: require's resolution, else (an ESM-only workspace package) its exports' `import` entry. */
function resolveEntry(name) {
  try {
    return (name === 'postgres' ? requireDb : requireHere).resolve(name);
  } catch (error) {
    const dir = join(process.cwd(), 'node_modules', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const entry = manifest.exports?.['.']?.import ?? manifest.exports?.['.']?.default ?? manifest.main;
    if (!entry) throw error;
    return join(dir, entry);
  }
}
const load = async (name) => {
  try {
    return await import(pathToFileURL(resolveEntry(name)).href);
  } catch (error) {
    console.error(`bare-server: ${name} cannot be loaded from ${process.cwd()} (${error.message}); start it in a service directory`);
    process.exit(2);
  }
};
const { default: Fastify } = await load('fastify');
const body = readFileSync(bodyFile);
const status = Number(options.status ?? 200);
const extraHeaders = options.headers ? JSON.parse(readFileSync(options.headers, 'utf8')) : null;

/**
 * The limiter's count (--redis=<url>, or --count=memory for an embedded service's in-memory
 * store) over the keys a per-IP limiter counts, or null.
 */
async function limiterCount() {
  if (!options.redis && options.count !== 'memory') return null;
  const { MemoryCounterStore, RedisCounterStore } = await load('@svc/rate-limit');
  const windows = (options['redis-windows'] ?? 'minute:60000,hour:3600000').split(',').map((spec) => {
    const [name, ms] = spec.split(':');
    return { name, ms: Number(ms) };
  });
  const keysOf = (request) => {
    const now = Date.now();
    return windows.map(({ name, ms }) => ({ key: `ip:${name}:${request.ip}:${Math.floor(now / ms)}`, ttlMs: ms - (now % ms) + 1000 }));
  };
  if (!options.redis) {
    const store = new MemoryCounterStore();
    // Synchronous, as the service's limiter counts in memory.
    return { run: (request) => store.incrementNow(keysOf(request)), close: () => store.close() };
  }
  const { default: Redis } = await load('ioredis');
  const redis = new Redis(options.redis, { lazyConnect: false, maxRetriesPerRequest: 1 });
  const store = new RedisCounterStore(redis, { prefix: options['redis-prefix'] ?? 'fx:rl:' });
  return { run: (request) => store.increment(keysOf(request)), close: () => redis.quit() };
}

/** The route's query on PostgreSQL (--pg, --pg-query), or null. */
async function routeQuery() {
  if (!options.pg) return null;
  const { default: postgres } = await load('postgres');
  const { text, params } = JSON.parse(readFileSync(options['pg-query'], 'utf8'));
  const sql = postgres(options.pg, { max: Number(options['pg-pool'] ?? 10), onnotice: () => undefined });
  return {
    run: async () => {
      const rows = await sql.unsafe(text, params, { prepare: true });
      if (rows.length === 0) throw new Error('the reference query found no row');
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

/**
 * The route's query on PGlite (--pglite=<directory>, --pg-query), or null: the service's own
 * data directory (the service is stopped while a reference runs), opened the way @svc/db opens
 * it (WASM compiled by Liftoff only) and queried through @svc/db's kept named statements, so a
 * read costs the reference the WASM calls it costs the service.
 */
async function pgliteQuery() {
  if (!options.pglite) return null;
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only');
  // PGlite's ESM entry, the module instance @svc/db's statements import (its CommonJS twin has other message classes).
  const { PGlite } = await import(pathToFileURL(requireDb.resolve('@electric-sql/pglite').replace(/index\.cjs$/, 'index.js')).href);
  const { PgliteStatements } = await import(new URL('../packages/db/dist/pglite-statements.js', import.meta.url).href);
  const { text, params } = JSON.parse(readFileSync(options['pg-query'], 'utf8'));
  const client = await PGlite.create(options.pglite);
  const statements = new PgliteStatements(client);
  return {
    run: async () => {
      const { rows } = await statements.query(text, params);
      if (rows.length === 0) throw new Error('the reference query found no row');
    },
    close: () => client.close(),
  };
}

/**
 * The round trips the reference makes before answering, in the service's order (its limiter
 * counts in onRequest, before the route reads), or null when it makes none.
 */
async function roundTrip() {
  const trips = [await limiterCount(), await routeQuery(), await pgliteQuery()].filter(Boolean);
  if (trips.length === 0) return null;
  if (trips.length === 1) return trips[0];
  return {
    run: async (request) => {
      for (const trip of trips) await trip.run(request);
    },
    close: () => Promise.all(trips.map((trip) => trip.close())),
  };
}

/** With --seal: hash and encrypt on the way to the spool file, then make it durable under a new name. */
async function sealer() {
  if (options.seal !== 'true') return null;
  if (!options.spool) throw new Error('--seal needs --spool=<dir>');
  const { createEncryptStream } = await import(pathToFileURL(join(process.cwd(), 'dist', 'domain', 'evidence', 'envelope-stream.js')).href);
  const fsync = async (path) => {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };
  return {
    stages: () => {
      const hash = createHash('sha256');
      const meter = new Transform({
        transform(chunk, _encoding, callback) {
          hash.update(chunk);
          callback(null, chunk);
        },
        flush(callback) {
          hash.digest();
          callback();
        },
      });
      return [meter, createEncryptStream(randomBytes(32), 'bench-evidence-id')];
    },
    async store(file) {
      await fsync(file);
      await rename(file, `${file}.stored`);
      await fsync(options.spool);
      return `${file}.stored`;
    },
  };
}

const trip = await roundTrip();
const seal = await sealer();
const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
// Bodies are taken as raw streams: the reference does no parsing beyond what the bytes need.
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
let spooled = 0;
/** Each upload's file: deleted at once, or with --keep left in place. */
const discard = (file) => (options.keep === 'true' ? undefined : rmSync(file, { force: true }));
app.route({
  method,
  url: route,
  handler: async (request, reply) => {
    if (method === 'POST' && request.body) {
      if (options.spool) {
        const file = join(options.spool, `upload-${process.pid}-${(spooled += 1)}`);
        if (seal) {
          await pipeline(request.body, ...seal.stages(), createWriteStream(file, { mode: 0o600 }));
          discard(await seal.store(file));
        } else {
          await pipeline(request.body, createWriteStream(file));
          discard(file);
        }
      } else {
        for await (const chunk of request.body) void chunk;
      }
    }
    if (trip) await trip.run(request);
    // A copy per answer, as a service builds its headers per request.
    if (extraHeaders) reply.headers({ ...extraHeaders });
    return reply.code(status).header('content-type', contentType).send(body);
  },
});
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: app.server.address().port }));

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  app
    .close()
    .then(() => trip?.close())
    // Kept files written without fsync are flushed now, not during the next side's turn.
    .then(() => (options.keep === 'true' ? execFileSync('sync') : undefined))
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
