import type { Dispatcher } from 'undici';
import { fetch as undiciFetch } from 'undici';

/**
 * A fetch for openapi-fetch that sends every request through `dispatcher` (the mutual-TLS
 * pool): certificate-bound tokens are accepted only on a connection with that certificate.
 * undici's own fetch is used because Node's built-in one may be another undici version,
 * which cannot take this package's Agent.
 */
export function fetchThrough(dispatcher: Dispatcher): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const response = await undiciFetch(request.url, { method: request.method, headers: [...request.headers], body, dispatcher, signal: request.signal });
    return response;
  };
}
