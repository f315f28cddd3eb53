// The bare side of an out-of-process comparison (see bench/out-of-process.mjs): a Fastify route
// with nothing on it (no authentication, no rate limit, no database) answering GET <route> with
// fixed bytes, in a process of its own so it shares no event loop with the load generator.
// Usage: node bench/bare-server.mjs <route> <body file> [content-type]
//   <route> is a Fastify path pattern, e.g. /verifications/:id; content-type defaults to
//   application/json. Fastify is resolved from the working directory: start it in a package that
//   depends on fastify (a service directory), as the root has no fastify.
// Listens on a free loopback port and prints {"port":…} as its first stdout line. It stops on
// SIGTERM/SIGINT, and when its stdin closes (the parent that started it has gone away).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [route, bodyFile, contentType = 'application/json'] = process.argv.slice(2);
if (!route?.startsWith('/') || !bodyFile) {
  console.error('usage: node bench/bare-server.mjs <route, e.g. /verifications/:id> <body file> [content-type]');
  process.exit(2);
}
let fastifyPath;
try {
  fastifyPath = createRequire(join(process.cwd(), 'package.json')).resolve('fastify');
} catch {
  console.error(`bare-server: fastify cannot be resolved from ${process.cwd()}; start it in a package that depends on fastify`);
  process.exit(2);
}
const { default: Fastify } = await import(pathToFileURL(fastifyPath).href);
const body = readFileSync(bodyFile);

const app = Fastify({ logger: false });
app.get(route, async (_request, reply) => reply.header('content-type', contentType).send(body));
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ port: app.server.address().port }));

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
