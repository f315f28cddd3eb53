export const RATE_LIMITED = 'RATE_LIMITED: more than 120 requests per minute from this IP (Retry-After)';
export const portalSecurity: Record<string, string[]>[] = [{ portalSession: [] }, { portalCookie: [] }];
/** One requirement with both schemes: the token is bound to the certificate it was issued to (RFC 8705). */
export const tokenSecurity: Record<string, string[]>[] = [{ mutualTLS: [], accessToken: [] }];
/** The partner areas: the API's certificate-bound token, or a portal session (reads any role, writes PartnerAdmin). */
export const partnerSecurity: Record<string, string[]>[] = [...tokenSecurity, ...portalSecurity];
/** The internal API: a staff session, as a bearer token or as the console's cookie. */
export const staffSecurity: Record<string, string[]>[] = [{ staffSession: [] }, { consoleCookie: [] }];
