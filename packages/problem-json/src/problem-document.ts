import { z } from 'zod';
import type { ProblemError } from './problem-error.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const DEFAULT_PROBLEM_TYPE_BASE = '/problems/';

/** An RFC 7807 problem body with our required `code`; any other member is an extension. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  [extension: string]: unknown;
}

/** One failing request field. `path` starts with the request part: `body.rates.0.buy`, `query.currency`. */
export interface FieldError {
  path: string;
  message: string;
}

// Members an extension may not override: a caller must be able to trust them.
const STANDARD_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'instance']);

/**
 * The problem `type` URI for a code: `VALIDATION_ERROR` → `/problems/validation-error`.
 * The default is a relative reference, which RFC 7807 §3.1 allows (resolved against the request URI).
 */
export function problemTypeUri(code: string, base: string = DEFAULT_PROBLEM_TYPE_BASE): string {
  const slug = code.toLowerCase().replace(/_/g, '-');
  // A base that already ends a segment (`/problems/`, `urn:problem:`, `…#`) is used as is.
  return /[/:#]$/.test(base) ? `${base}${slug}` : `${base}/${slug}`;
}

export function toProblemDocument(error: ProblemError, instance?: string, base?: string): ProblemDocument {
  const extensions = Object.fromEntries(Object.entries(error.extensions).filter(([name]) => !STANDARD_MEMBERS.has(name)));
  return {
    type: problemTypeUri(error.code, base),
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    ...(instance === undefined ? {} : { instance }),
    ...extensions,
  };
}

export const fieldErrorSchema = z.object({
  path: z.string().meta({ description: 'The failing field, prefixed by the request part', examples: ['body.rates.0.buy'] }),
  message: z.string(),
});

/**
 * The problem body for route `response` maps, so OpenAPI documents error answers. A loose
 * object: extension members (`errors`, `caseId`, `retryAfter`, …) pass through untouched.
 */
export const problemDocumentSchema: z.ZodType<ProblemDocument> = z
  .looseObject({
    type: z.string().meta({ description: 'URI reference identifying the problem type', examples: ['/problems/validation-error'] }),
    title: z.string().meta({ description: 'Short summary of the problem type; the same for every occurrence' }),
    status: z.number().int().min(400).max(599).meta({ description: 'The HTTP status code' }),
    detail: z.string().meta({ description: 'Explanation specific to this occurrence' }),
    code: z.string().meta({ description: 'Stable machine-readable error code', examples: ['VALIDATION_ERROR'] }),
    instance: z.string().optional().meta({ description: 'The request path this problem occurred on' }),
    correlationId: z.string().optional().meta({ description: 'The request correlation id (also in the X-Correlation-ID header)' }),
    errors: z.array(fieldErrorSchema).optional().meta({ description: 'Every failing field, on VALIDATION_ERROR' }),
  })
  .meta({ description: 'RFC 7807 problem details (application/problem+json)' });

/** A route's problem+json answers for OpenAPI `response`: status → when it happens. */
export function problemResponses(errors: Record<number, string>): Record<string, z.ZodType<ProblemDocument>> {
  return Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, problemDocumentSchema.describe(description)]));
}
