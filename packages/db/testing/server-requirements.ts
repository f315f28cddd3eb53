import { describe, it } from 'vitest';

type ServerVariable = 'DATABASE_URL' | 'REDIS_URL';
const SERVER: Record<ServerVariable, string> = { DATABASE_URL: 'PostgreSQL', REDIS_URL: 'Redis' };

// A skipped group would otherwise show up only as a count: say which variable runs it.
function announceSkip(reason: string, name: string): void {
  console.info(`skipped ${reason}: ${name}`);
}

/** A describe that runs only when the variable names a real server (locking, queues, several instances). */
export function describeNeeding(variable: ServerVariable) {
  return (name: string, body: () => void): void => {
    const present = Boolean(process.env[variable]);
    if (!present) announceSkip(`(set ${variable} to run it on ${SERVER[variable]}; .ci/run's second pass does)`, name);
    describe.runIf(present)(name, body);
  };
}

/** One test that runs only when the variable names a real server. */
export function itNeeding(variable: ServerVariable) {
  return (name: string, body: () => Promise<void> | void, timeout?: number): void => {
    const present = Boolean(process.env[variable]);
    if (!present) announceSkip(`(set ${variable} to run it on ${SERVER[variable]}; .ci/run's second pass does)`, name);
    it.runIf(present)(name, body, timeout);
  };
}

/** A describe about the embedded default itself (PGlite's single process), skipped when DATABASE_URL is set. */
export function describeEmbeddedOnly(name: string, body: () => void): void {
  const embedded = !process.env.DATABASE_URL;
  if (!embedded) announceSkip('(DATABASE_URL is set; it runs on the embedded default, the first pass of .ci/run)', name);
  describe.runIf(embedded)(name, body);
}

/** One test about the embedded default itself, skipped when DATABASE_URL is set. */
export function itEmbeddedOnly(name: string, body: () => Promise<void> | void, timeout?: number): void {
  const embedded = !process.env.DATABASE_URL;
  if (!embedded) announceSkip('(DATABASE_URL is set; it runs on the embedded default, the first pass of .ci/run)', name);
  it.runIf(embedded)(name, body, timeout);
}
