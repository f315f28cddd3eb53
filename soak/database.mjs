// The harness's own PostgreSQL client (postgres.js, from @svc/db's dependencies), under an
// application_name of its own so the fault that terminates a service's backends spares it.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const requireFromDb = createRequire(new URL('../packages/db/package.json', import.meta.url));

export async function openDatabase(url) {
  const { default: postgres } = await import(pathToFileURL(requireFromDb.resolve('postgres')).href);
  return postgres(url, { max: 2, onnotice: () => undefined, connection: { application_name: 'soak-harness' } });
}
