import { ProblemError } from '@svc/problem-json';

/** 400 for a request that is well-formed but not allowed in the current state (e.g. revoking twice). */
export class BadRequestProblem extends ProblemError {
  constructor(code: string, detail: string) {
    super({ status: 400, code, title: 'Bad Request', detail });
  }
}
