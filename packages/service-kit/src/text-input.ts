import { ValidationError } from '@svc/problem-json';
import type { FastifyInstance } from 'fastify';

const NUL = '\u0000';
/** Deeper than any schema of ours: a value nested further is refused by validation anyway. */
const MAX_DEPTH = 64;

/** The keys leading to the first string (or key) holding U+0000, innermost first; null when there is none. */
function findNul(value: unknown, depth: number): string[] | null {
  if (typeof value === 'string') return value.includes(NUL) ? [] : null;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (key.includes(NUL)) return [key];
    const found = findNul((value as Record<string, unknown>)[key], depth + 1);
    if (found) return [...found, key];
  }
  return null;
}

// Built only for the request that is refused: the clean path allocates nothing per key.
const pathOf = (where: string, keys: string[]) => [where, ...keys.reverse().map((key) => key.replaceAll(NUL, '\\u0000').slice(0, 50))].join('.');

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a string carrying one fails at the database
 * (a 500) wherever it would be stored or compared. One check before validation, for every route
 * and content type (JSON, form), answers a 400 naming the field instead.
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  // A callback hook, not an async one: every request passes here, and most carry no NUL.
  app.addHook('preValidation', (request, _reply, done) => {
    const found = nulIn('params', request.params) ?? nulIn('query', request.query) ?? nulIn('body', request.body);
    if (!found) return done();
    done(new ValidationError('Text must not contain the NUL character (U+0000).', [{ path: found, message: 'must not contain the NUL character (U+0000)' }]));
  });
}

/** The path of the first NUL in one part of the request (`query.lang`), or null. */
function nulIn(where: string, value: unknown): string | null {
  const keys = findNul(value, 0);
  return keys ? pathOf(where, keys) : null;
}
