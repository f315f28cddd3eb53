import { ValidationError } from '@svc/problem-json';
import type { FastifyInstance } from 'fastify';

const NUL = '\u0000';
/** Deeper than any schema of ours: a value nested further is refused by validation anyway. */
const MAX_DEPTH = 64;

/** The path of the first string (or key) holding U+0000, or null. */
function findNul(value: unknown, path: string, depth: number): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const entryPath = `${path}.${key.replaceAll(NUL, '\\u0000').slice(0, 50)}`;
    if (key.includes(NUL)) return entryPath;
    const found = findNul(entry, entryPath, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a string carrying one fails at the database
 * (a 500) wherever it would be stored or compared. One check before validation, for every route
 * and content type (JSON, form), answers a 400 naming the field instead.
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [where, value] of [
      ['params', request.params],
      ['query', request.query],
      ['body', request.body],
    ] as const) {
      const path = findNul(value, where, 0);
      if (path) throw new ValidationError('Text must not contain the NUL character (U+0000).', [{ path, message: 'must not contain the NUL character (U+0000)' }]);
    }
  });
}
