// The OpenAPI document a built service actually serves (GET /docs/json), not a copy that
// could drift: starts services/<name>/dist/server.js on the embedded default with a free
// port and a temporary DATA_DIR, fetches the document, stops the process. Used by the
// OpenAPI lint and by the client generator. Node built-ins only; needs `pnpm build` first.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The benches' process helpers (Node built-ins only): free port, readiness wait, a stop that always ends the child.
import { collectLines, freePort, root, spawnTracked, stopChild, waitForHttp } from '../bench/out-of-process.mjs';

export { root };

/** Services with a build: the names under services/ that have dist/server.js. */
export function builtServices() {
  return readdirSync(join(root, 'services')).filter((name) => existsSync(join(root, 'services', name, 'dist', 'server.js')));
}

/** The document's JSON text as `service` serves it, with `extraEnvironment` added to its environment. */
export async function servedDocument(service, extraEnvironment = {}) {
  const server = join(root, 'services', service, 'dist', 'server.js');
  if (!existsSync(server)) throw new Error(`${server} is missing: run \`pnpm build\` first`);
  const dataDir = mkdtempSync(join(tmpdir(), `openapi-${service}-`));
  const port = await freePort();
  const environment = { ...process.env, ...extraEnvironment, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  // The embedded default: a document must not depend on which store is configured.
  delete environment.DATABASE_URL;
  delete environment.REDIS_URL;
  delete environment.SECRETS_KEY;
  const child = spawnTracked(process.execPath, [server], { cwd: join(root, 'services', service), env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectLines(child);
  const url = `http://127.0.0.1:${port}/docs/json`;
  try {
    await waitForHttp(url, { child, timeoutMs: 60_000, describe: () => `:\n${output.tail.join('\n')}` });
    return await (await fetch(url)).text();
  } finally {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
