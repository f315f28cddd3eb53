import { ProblemError } from '@svc/problem-json';

/**
 * The one account shape second factors work on, for portal users and staff alike: the rules
 * (enrol, verify, lock out, audit) are written once and the sign-in code of each kind fills this in.
 */
export interface FactorAccount {
  /** `user:<id>` or `staff:<id>`: the owner column of the factor tables and the actor of audit rows. */
  account: string;
  /** The portal user's tenant (every query is scoped by it); null for staff. */
  tenantId: string | null;
  /** The address's login-throttle key: a wrong code counts toward the same lockout as a wrong password. */
  throttleKey: string;
  /** Shown beside the issuer in the authenticator app. */
  email: string;
}

/** 400 and not 401: the session or sign-in is fine, the code typed is not. */
export class InvalidCodeError extends ProblemError {
  constructor(detail = 'The code is incorrect or has already been used.') {
    super({ status: 400, code: 'INVALID_CODE', title: 'Invalid Code', detail });
  }
}
