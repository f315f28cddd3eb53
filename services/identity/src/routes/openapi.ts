export const RATE_LIMITED = 'RATE_LIMITED: more than 120 requests per minute from this IP (Retry-After)';
export const portalSecurity: Record<string, string[]>[] = [{ portalSession: [] }, { portalCookie: [] }];
export const tokenSecurity: Record<string, string[]>[] = [{ accessToken: [] }];
