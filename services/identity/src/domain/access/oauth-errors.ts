import { ProblemError } from '@svc/problem-json';

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_scope' | 'unsupported_grant_type' | 'unauthorized_client' | 'access_denied';

const TITLES: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden' };

/**
 * An error of the OAuth endpoints: RFC 6749 §5.2 members (`error`, `error_description`) in
 * an application/json body that is also a complete problem document (type, title, status,
 * detail, code), so OAuth libraries and our problem-aware clients both read it.
 */
export class OAuthError extends ProblemError {
  constructor(status: 400 | 401 | 403, error: OAuthErrorCode, description: string, code: string = error.toUpperCase()) {
    super({
      status,
      code,
      title: TITLES[status] ?? 'Error',
      detail: description,
      extensions: { error, error_description: description },
      contentType: 'application/json',
      headers: { 'Cache-Control': 'no-store' },
    });
  }
}

export const invalidClient = (description: string) => new OAuthError(401, 'invalid_client', description);
export const tenantDisabled = () =>
  new OAuthError(403, 'unauthorized_client', 'This account has been disabled by an administrator.', 'ACCOUNT_DISABLED');
