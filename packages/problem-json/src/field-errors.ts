import type { FastifySchemaValidationError } from 'fastify';
import type { FieldError } from './problem-document.js';

// Fastify names the query string `querystring`; callers know it as the query.
const REQUEST_PART_PREFIX: Readonly<Record<string, string>> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

// Beyond this many fields the detail line stops being readable; `errors` still lists them all.
const FIELDS_NAMED_IN_DETAIL = 10;

export function requestPartPrefix(validationContext: string | undefined): string {
  return (validationContext !== undefined && REQUEST_PART_PREFIX[validationContext]) || 'request';
}

function joinFieldPath(prefix: string, segments: readonly string[]): string {
  return [prefix, ...segments].join('.');
}

function stringParam(params: Record<string, unknown>, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * fastify-type-provider-zod reports zod issue paths as `/a/0/b` (segments joined unescaped).
 * An unrecognized-keys issue sits on the object, so each extra key becomes its own field.
 */
export function fieldErrorsFromZodValidation(prefix: string, validation: readonly FastifySchemaValidationError[]): FieldError[] {
  return validation.flatMap((issue) => {
    const segments = issue.instancePath.split('/').filter((segment) => segment !== '');
    const message = issue.message ?? 'Invalid value';
    const unrecognizedKeys = issue.params.keys;
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(unrecognizedKeys) && unrecognizedKeys.length > 0) {
      return unrecognizedKeys.map((key) => ({ path: joinFieldPath(prefix, [...segments, String(key)]), message: 'Unrecognized key' }));
    }
    return [{ path: joinFieldPath(prefix, segments), message }];
  });
}

function decodeJsonPointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Ajv (Fastify's own validator) uses JSON pointers, and reports a missing or extra property
 * on its parent object; the property itself is the failing field.
 */
export function fieldErrorsFromAjvValidation(prefix: string, validation: readonly FastifySchemaValidationError[]): FieldError[] {
  return validation.map((issue) => {
    const segments = issue.instancePath.split('/').filter((segment) => segment !== '').map(decodeJsonPointerSegment);
    const property = stringParam(issue.params, 'missingProperty') ?? stringParam(issue.params, 'additionalProperty');
    return {
      path: joinFieldPath(prefix, property === undefined ? segments : [...segments, property]),
      message: issue.message ?? 'Invalid value',
    };
  });
}

export function summariseFieldErrors(errors: readonly FieldError[]): string {
  if (errors.length === 0) return 'Request validation failed.';
  const named = errors.slice(0, FIELDS_NAMED_IN_DETAIL).map((error) => `${error.path}: ${error.message}`);
  const remainder = errors.length - named.length;
  return `Request validation failed: ${named.join('; ')}${remainder > 0 ? `; and ${remainder} more` : ''}`;
}
