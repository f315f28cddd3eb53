export {
  PROBLEM_CONTENT_TYPE,
  problemDocumentSchema,
  problemResponses,
  problemTypeUri,
  toProblemDocument,
  type FieldError,
  type ProblemDocument,
} from './problem-document.js';
export {
  AccountDisabledError,
  AccountLockedError,
  CaseExistsError,
  ConflictError,
  DependencyUnavailableError,
  ForbiddenError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  IncompleteBodyError,
  ProblemError,
  RequestTimeoutError,
  ShuttingDownError,
  RateLimitedError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ProblemErrorInit,
} from './problem-error.js';
export { problemJsonPlugin, replyWithProblem, type ProblemJsonPluginOptions } from './problem-json-plugin.js';
export { answerClientError, problemForClientError, rawProblemResponse } from './client-errors.js';
