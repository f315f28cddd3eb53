import type { Middleware } from 'openapi-fetch';
import { apiErrorFrom } from './errors.js';

/**
 * openapi-fetch returns `{ error }` for non-2xx answers; our clients throw an ApiError instead,
 * so a forgotten `if (error)` cannot let a failed call pass as an empty success. 304 is not an
 * error: it is how ETag revalidation answers "unchanged".
 */
export const throwOnError: Middleware = {
  async onResponse({ request, response }) {
    if (!response.ok && response.status !== 304) throw await apiErrorFrom(request, response);
    return undefined;
  },
};
