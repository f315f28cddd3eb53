// The OpenAPI documents a built service actually serves, not copies that could drift: starts
// services/<name>/dist/server.js on the embedded default with a free port and a temporary
// DATA_DIR, fetches each document, stops the process. Every service serves its public document
// at GET /docs/json; identity also serves a staff document, to staff sessions only (see
// staffDocument). Used by the OpenAPI lint and by the client generator. Node built-ins only;
// needs `pnpm build` first.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The benches' process helpers (Node built-ins only): free port, readiness wait, a stop that always ends the child.
import { collectLines, freePort, root, runCommand, spawnTracked, stopChild, waitForHttp } from '../bench/out-of-process.mjs';

export { root };

/** Services with a build: the names under services/ that have dist/server.js. */
export function builtServices() {
  return readdirSync(join(root, 'services')).filter((name) => existsSync(join(root, 'services', name, 'dist', 'server.js')));
}

async function fetchText(url, init) {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 500)}`);
  return text;
}

/**
 * identity's internal API is documented for staff only (GET /api/internal/v1/openapi.json
 * answers 401 without a staff session), so the generator signs in as the tests do: an operator
 * created with the service's own `staff:create` CLI in the temporary DATA_DIR before the server
 * starts (the embedded database admits one process at a time), then the console's login.
 */
const staffDocument = {
  name: 'staff-openapi',
  async prepare(service, environment) {
    const credentials = { email: 'openapi-generator@example.com', password: randomBytes(18).toString('base64url') };
    const cli = join(root, 'services', service, 'dist', 'cli.js');
    // `--password=` form: a base64url password starts with '-' one time in 64, which parseArgs takes for an option.
    const args = [cli, 'staff:create', '--email', credentials.email, `--password=${credentials.password}`];
    await runCommand('staff:create', process.execPath, args, { env: environment, cwd: join(root, 'services', service), timeoutMs: 60_000 });
    return credentials;
  },
  async read(baseUrl, credentials) {
    const login = await fetchText(`${baseUrl}/api/internal/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
    return fetchText(`${baseUrl}/api/internal/v1/openapi.json`, { headers: { authorization: `Bearer ${JSON.parse(login).sessionToken}` } });
  },
};

const publicDocument = { name: 'openapi', prepare: async () => null, read: (baseUrl) => fetchText(`${baseUrl}/docs/json`) };

/** The documents each service serves, by the name their generated file and lint report take. */
const documentsOf = (service) => (service === 'identity' ? [publicDocument, staffDocument] : [publicDocument]);

/** Every document `service` serves, as `[name, JSON text]` pairs, with `extraEnvironment` added to its environment. */
export async function servedDocuments(service, extraEnvironment = {}) {
  const server = join(root, 'services', service, 'dist', 'server.js');
  if (!existsSync(server)) throw new Error(`${server} is missing: run \`pnpm build\` first`);
  const dataDir = mkdtempSync(join(tmpdir(), `openapi-${service}-`));
  const port = await freePort();
  const environment = { ...process.env, ...extraEnvironment, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  // The embedded default: a document must not depend on which store is configured.
  delete environment.DATABASE_URL;
  delete environment.REDIS_URL;
  delete environment.SECRETS_KEY;
  const documents = documentsOf(service);
  try {
    const prepared = [];
    for (const document of documents) prepared.push(await document.prepare(service, environment));
    const child = spawnTracked(process.execPath, [server], { cwd: join(root, 'services', service), env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectLines(child);
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${baseUrl}/docs/json`, { child, timeoutMs: 60_000, describe: () => `:\n${output.tail.join('\n')}` });
      const texts = [];
      for (const [index, document] of documents.entries()) texts.push([document.name, await document.read(baseUrl, prepared[index])]);
      return texts;
    } finally {
      await stopChild(child);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
