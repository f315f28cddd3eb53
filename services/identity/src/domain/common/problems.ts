import { ProblemError } from '@svc/problem-json';

/** 400 for a request that is well-formed but not allowed in the current state (e.g. revoking twice). */
export class BadRequestProblem extends ProblemError {
  constructor(code: string, detail: string) {
    super({ status: 400, code, title: 'Bad Request', detail });
  }
}

/** 410: what the credential was for is over for good (expired session, closed case); a retry cannot help. */
export class GoneProblem extends ProblemError {
  constructor(code: string, detail: string, extensions: Record<string, unknown> = {}) {
    super({ status: 410, code, title: 'Gone', detail, extensions });
  }
}
