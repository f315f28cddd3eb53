import { problemResponses } from '@svc/problem-json';
import { z } from 'zod';

/** fx's 429 body (plugins/rate-limits.ts tooManyRequestsBody), not problem+json. */
export const tooManyRequestsSchema = z.object({ error: z.string(), retryAfter: z.int() }).describe('Rate limit or monthly quota exceeded (Retry-After)');

/** Public reads: anonymous (the {} requirement), or with a key pair that moves the call to the key's own limits. */
export const publicReadSecurity: Record<string, string[]>[] = [{}, { apiKey: [], apiSecret: [] }];

/** What every public read can answer besides its data: a bad query, a wrong key pair, a limit reached. */
export function publicReadErrors(badRequest: string) {
  return {
    ...problemResponses({ 400: badRequest, 401: 'X-Api-Key and X-Api-Secret were sent but are not an active key pair' }),
    429: tooManyRequestsSchema,
  };
}

export const ADMIN_UNAUTHENTICATED = 'Missing or wrong X-Admin-Token';
