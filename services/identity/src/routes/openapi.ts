import { problemDocumentSchema } from '@svc/problem-json';

/** Documents a route's problem+json answers in OpenAPI: status → when it happens. */
export function problemResponses(errors: Record<number, string>) {
  return Object.fromEntries(Object.entries(errors).map(([status, description]) => [status, problemDocumentSchema.describe(description)]));
}

export const RATE_LIMITED = 'RATE_LIMITED: more than 120 requests per minute from this IP (Retry-After)';
export const portalSecurity: Record<string, string[]>[] = [{ portalSession: [] }, { portalCookie: [] }];
export const tokenSecurity: Record<string, string[]>[] = [{ accessToken: [] }];
