import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { mapErrorToProblem } from './error-mapping.js';
import { DEFAULT_PROBLEM_TYPE_BASE, PROBLEM_CONTENT_TYPE, toProblemDocument } from './problem-document.js';
import { NotFoundError, type ProblemError } from './problem-error.js';

export interface ProblemJsonPluginOptions {
  /** Prefix of every problem `type` URI; default `/problems/`. */
  typeBaseUri?: string;
}

/** The request path without its query string: the query may carry values that do not belong in a body. */
function requestPath(request: FastifyRequest): string {
  const queryStart = request.url.indexOf('?');
  return queryStart === -1 ? request.url : request.url.slice(0, queryStart);
}

function logProblem(request: FastifyRequest, problem: ProblemError, kind: string, error: unknown): void {
  const summary = { status: problem.status, code: problem.code };
  if (problem.status >= 500) {
    request.log.error({ err: error, problem: summary, errorKind: kind }, `request failed: ${problem.status} ${problem.code}`);
  } else {
    // A client mistake is not our failure: no stack, just what the caller was told.
    request.log.info({ problem: { ...summary, detail: problem.detail }, errorKind: kind }, `request rejected: ${problem.status} ${problem.code}`);
  }
}

/**
 * Answers every error and unknown route with an RFC 7807 problem+json body carrying the
 * request path as `instance` and the request id as `correlationId`.
 */
const problemJson: FastifyPluginAsync<ProblemJsonPluginOptions> = (app, options) => {
  const typeBaseUri = options.typeBaseUri ?? DEFAULT_PROBLEM_TYPE_BASE;

  // Serialised here rather than by the route's response schema: the body is built by us and
  // must keep its extension members whatever the route declared for that status.
  function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError): void {
    const body = { ...toProblemDocument(problem, requestPath(request), typeBaseUri), correlationId: request.id };
    void reply
      .code(problem.status)
      .headers(problem.headers)
      .type(`${problem.contentType ?? PROBLEM_CONTENT_TYPE}; charset=utf-8`)
      .send(JSON.stringify(body));
  }

  app.setErrorHandler((error, request, reply) => {
    const { problem, kind } = mapErrorToProblem(error, request);
    logProblem(request, problem, kind, error);
    sendProblem(request, reply, problem);
  });

  app.setNotFoundHandler((request, reply) => {
    const problem = new NotFoundError(`Route ${request.method} ${requestPath(request)} not found`);
    logProblem(request, problem, 'unknown-route', undefined);
    sendProblem(request, reply, problem);
  });

  return Promise.resolve();
};

export const problemJsonPlugin: FastifyPluginAsync<ProblemJsonPluginOptions> = fp(problemJson, {
  name: '@svc/problem-json',
  fastify: '5.x',
});
